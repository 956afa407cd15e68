// Parsing fio job files into JobOptions: the entry points for job files.
//
// Semantics, as in fio:
//  * Jobs start from `defaults` (fio's defaults, or the global options given
//    on the command line).
//  * A [global] section changes the defaults for the jobs after it, in that
//    file; a file may have several [global] sections, each affecting only
//    later jobs.
//  * Each other section is a job named after the section (a name= option in
//    the section overrides it) that inherits the defaults in force at its
//    header and then applies its own options.
//  * numjobs stays a field; the runner clones.
// See ini_reader.h for the file syntax and apply.h for option rules and
// error messages.
//
// Thread-safety: no shared state; `env` is only read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/block_bench/jobfile/job.h"
#include "tools/block_bench/jobfile/parse_env.h"
#include "tools/block_bench/jobfile/raw_option.h"
#include <blkstack/util/result.h>

namespace blk::bench {

// Parses the job file at `path` and its includes.  Returns its jobs in file
// order (possibly none, for a file with only [global] sections).
Expected<std::vector<JobOptions>> ParseJobFile(const std::string& path,
                                               const ParseEnvironment& env,
                                               const JobOptions& defaults = JobOptions{});

// As ParseJobFile for text in memory; `display_name` names it in messages
// and anchors relative includes.
Expected<std::vector<JobOptions>> ParseJobText(std::string_view text,
                                               const std::string& display_name,
                                               const ParseEnvironment& env,
                                               const JobOptions& defaults = JobOptions{});

// At most this many jobs in one run, as fio (FIO_MAX_JOBS); numjobs clones
// are counted by the runner's resource check instead.
inline constexpr size_t kMaxJobs = 4096;
// At most this many bytes of text (names, descriptions, file names, specs)
// over the jobs of one BuildJobs call: every job copies the [global] values
// in force, so a large value times many sections would otherwise take
// memory without bound (a 140 KB file took 1 GB).
inline constexpr uint64_t kMaxJobTextBytes = uint64_t(64) << 20;

// Builds jobs from sections already read (shared with the command line).
// `defaults` is updated by [global] sections.  More than kMaxJobs jobs, or
// jobs holding more than kMaxJobTextBytes of text, are an error naming the
// section where the limit was passed.
Expected<std::vector<JobOptions>> BuildJobs(const std::vector<RawSection>& sections,
                                            JobOptions& defaults);

}  // namespace blk::bench
