// The lexical layer of fio job files: lines, comments, [sections], include
// directives and value substitution.  It knows nothing of option meanings.
//
// Syntax, as fio reads it:
//  * Everything from the first ';' or '#' on a line is a comment (fio cuts
//    lines there, so a comment may follow a value and values cannot contain
//    those characters).  Blank lines are ignored; CR-LF line ends are fine.
//  * "[name]" starts a section; "[global]" is special to the caller.
//  * "name=value" or a bare "name" inside a section is an option; spaces
//    around the name and the value are dropped.  The value gets ${VAR} and
//    keyword substitution (parse_env.h).
//  * "include FILE" inside a section reads FILE's lines as if they were
//    written there.  A relative FILE is relative to the directory of the file
//    that includes it.  Included files may include others (at most 16 deep,
//    no cycles) but may not contain sections.
//
// Thread-safety: no shared state; `env` is only read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/parse_env.h"
#include "tools/block_bench/jobfile/raw_option.h"
#include <blkstack/util/result.h>

namespace blk::bench {

inline constexpr int kMaxIncludeDepth = 16;

// Reads the job file at `path` (through env.read_file) and its includes.
// Errors name the file and line, e.g. "job.fio:3: option 'bs' outside of a
// [section]".
Expected<std::vector<RawSection>> ReadJobFile(const std::string& path,
                                              const ParseEnvironment& env);

// As ReadJobFile for text already in memory.  `display_name` names it in
// messages and its directory anchors relative includes.
Expected<std::vector<RawSection>> ReadJobText(std::string_view text,
                                              const std::string& display_name,
                                              const ParseEnvironment& env);

}  // namespace blk::bench
