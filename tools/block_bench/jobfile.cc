#include "tools/block_bench/jobfile.h"

#include "tools/block_bench/apply.h"
#include "tools/block_bench/ini_reader.h"

namespace blk::bench {

Expected<std::vector<JobOptions>> BuildJobs(const std::vector<RawSection>& sections,
                                            JobOptions& defaults) {
  std::vector<JobOptions> jobs;
  for (const RawSection& section : sections) {
    if (section.name == "global") {
      Expected<void> r = ApplyOptions(defaults, section.options);
      if (!r.ok()) return r.error();
      continue;
    }
    JobOptions job = defaults;
    // The section name wins over a name= inherited from [global].
    job.name = section.name;
    Expected<void> r = ApplyOptions(job, section.options);
    if (!r.ok()) return r.error();
    r = ValidateJob(job, section.where);
    if (!r.ok()) return r.error();
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
