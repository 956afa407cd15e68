#include "tools/block_bench/jobfile/render.h"

#include <cctype>

#include "tools/block_bench/jobfile/option_table.h"

namespace blk::bench {

std::vector<std::string> RenderJobArgs(const JobOptions& job) {
  std::vector<std::string> args = {"--name=" + job.name};
  RenderedOptions rendered;
  for (const FioOptionSpec& spec : OptionTable()) {
    if (spec.render != nullptr) spec.render(job, spec.name, rendered);
  }
  for (const RenderedOption& r : rendered) {
    args.push_back(r.value ? "--" + r.name + "=" + *r.value : "--" + r.name);
  }
  return args;
}

std::string ShellQuote(std::string_view arg) {
  bool safe = !arg.empty();
  for (char c : arg) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("_@%+=:,./-").find(c) == std::string_view::npos) {
      safe = false;
    }
  }
  if (safe) return std::string(arg);
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string ShowCommand(const std::vector<JobOptions>& jobs, std::string_view program) {
  std::string out(program);
  for (const JobOptions& job : jobs) {
    for (const std::string& arg : RenderJobArgs(job)) out += " " + ShellQuote(arg);
  }
  return out;
}

}  // namespace blk::bench
