// Options as written, before interpretation: the common currency of the job
// file reader and the command-line parser, handed to ApplyOptions (apply.h).
//
// Thread-safety: plain values; no shared state.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace blk::bench {

// Where an option or section was written.  Messages start with
// ToString(): "dir/job.fio:12" or "<command line>".
struct SourceLocation {
  std::string file;  // as opened (include paths resolved), or kCommandLine
  int line = 0;      // 1-based; 0 on the command line

  bool command_line() const { return line == 0; }
  std::string ToString() const {
    return command_line() ? file : file + ":" + std::to_string(line);
  }
};

inline constexpr const char* kCommandLine = "<command line>";

inline SourceLocation CommandLineLocation() { return SourceLocation{kCommandLine, 0}; }

// "name=value", or "name" alone (value empty).
struct RawOption {
  std::string name;
  std::optional<std::string> value;  // environment variables and keywords expanded
  bool wants_arithmetic = false;     // see ExpandedValue
  SourceLocation where;
};

// "[name]" followed by its options (including those pulled in by include).
struct RawSection {
  std::string name;
  SourceLocation where;
  std::vector<RawOption> options;
};

// How an option name is shown in messages: "iodepth" in a file,
// "--iodepth" on the command line.
inline std::string DisplayName(const std::string& name, const SourceLocation& where) {
  return where.command_line() ? "--" + name : name;
}

}  // namespace blk::bench
