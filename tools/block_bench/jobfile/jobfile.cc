#include "tools/block_bench/jobfile/jobfile.h"

#include <algorithm>

#include "tools/block_bench/jobfile/apply.h"
#include "tools/block_bench/jobfile/ini_reader.h"

namespace blk::bench {

namespace {

// The text a job holds (what copying it copies, roughly).
uint64_t TextBytes(const JobOptions& j) {
  uint64_t n = j.name.size() + j.description.size() + j.blockdev.size() + j.rbd.pool.size() +
               j.rbd.rbdname.size() + j.rbd.clientname.size() + j.rbd.clustername.size();
  for (const auto& f : j.filenames) n += f.size();
  for (const auto& d : j.directories) n += d.size();
  for (const auto* log : {&j.write_lat_log, &j.write_bw_log, &j.write_iops_log})
    if (*log) n += (*log)->size();
  return n;
}

// Adds `options` to fio's echo (WrittenOptions): first place, last value.
void Echo(const std::vector<RawOption>& options, WrittenOptions::List* to) {
  for (const RawOption& o : options) {
    if (!o.value) continue;
    auto at = std::find_if(to->begin(), to->end(), [&](const auto& e) { return e.first == o.name; });
    if (at != to->end()) at->second = *o.value;
    else to->emplace_back(o.name, *o.value);
  }
}

}  // namespace

Expected<std::vector<JobOptions>> BuildJobs(const std::vector<RawSection>& sections,
                                            JobOptions& defaults) {
  std::vector<JobOptions> jobs;
  uint64_t text_bytes = 0;
  for (const RawSection& section : sections) {
    if (section.name != "global") {
      if (jobs.size() == kMaxJobs) {
        return MakeError(-E2BIG, section.where.ToString() + ": more than " +
                                     std::to_string(kMaxJobs) + " jobs (fio's limit too)");
      }
      text_bytes += TextBytes(defaults);
      if (text_bytes > kMaxJobTextBytes) {
        return MakeError(-E2BIG, section.where.ToString() + ": the jobs so far hold more than " +
                                     std::to_string(kMaxJobTextBytes >> 20) +
                                     " MiB of text (every job copies the [global] values: "
                                     "shorten them or use fewer jobs)");
      }
    }
    if (section.name == "global") {
      Expected<void> r = ApplyOptions(defaults, section.options);
      if (!r.ok()) return r.error();
      // The command line's group before --name is one only when not empty.
      if (!section.where.command_line() || !section.options.empty())
        defaults.written.global_section = true;
      Echo(section.options, &defaults.written.global);
      continue;
    }
    JobOptions job = defaults;
    // The section name wins over a name= inherited from [global].
    job.name = section.name;
    Expected<void> r = ApplyOptions(job, section.options);
    if (!r.ok()) return r.error();
    job.written.job.clear();
    if (section.where.command_line()) job.written.job.emplace_back("name", section.name);
    Echo(section.options, &job.written.job);
    r = ValidateJob(job, section.where);
    if (!r.ok()) return r.error();
    // (That the waitee is defined earlier is checked over every job file:
    // CheckWaitFor, run/runner.h.)
    if (!job.proc.wait_for.empty() && job.proc.wait_for == job.name)
      return MakeError(-EINVAL, section.where.ToString() + ": wait_for=" + job.name +
                                    ": a job cannot wait for itself");
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Expected<std::vector<JobOptions>> ParseJobText(std::string_view text,
                                               const std::string& display_name,
                                               const ParseEnvironment& env,
                                               const JobOptions& defaults) {
  Expected<std::vector<RawSection>> sections = ReadJobText(text, display_name, env);
  if (!sections.ok()) return sections.error();
  JobOptions current = defaults;
  return BuildJobs(sections.value(), current);
}

Expected<std::vector<JobOptions>> ParseJobFile(const std::string& path,
                                               const ParseEnvironment& env,
                                               const JobOptions& defaults) {
  Expected<std::vector<RawSection>> sections = ReadJobFile(path, env);
  if (!sections.ok()) return sections.error();
  JobOptions current = defaults;
  return BuildJobs(sections.value(), current);
}

}  // namespace blk::bench
