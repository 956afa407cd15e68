#include "tools/block_bench/cli/outputs.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace blk::bench::cli {

bool WantsJson(const std::vector<OutputFormat>& formats) {
  for (OutputFormat f : formats)
    if (f == OutputFormat::kJson || f == OutputFormat::kJsonPlus) return true;
  return false;
}

bool WantsNormal(const std::vector<OutputFormat>& formats) {
  for (OutputFormat f : formats)
    if (f == OutputFormat::kNormal) return true;
  return false;
}

FILE* OpenReportStream(const ToolFlags& flags, bool lead) {
  if (flags.output.empty() || !lead) return stdout;
  FILE* out = std::fopen(flags.output.c_str(), "w");
  if (!out)
    std::fprintf(stderr, "block-bench: --output=%s: %s\n", flags.output.c_str(),
                 std::strerror(errno));
  return out;
}

Outputs ChooseOutputs(const ToolFlags& flags, FILE* out, bool multi) {
  Outputs o;
  o.out = out;
  // As fio: with normal asked too, every format goes to standard output, the
  // header first (fio's json,normal).
  o.json_on_stdout =
      WantsJson(flags.output_formats) && !WantsNormal(flags.output_formats) && out == stdout;
  o.progress_stream = o.json_on_stdout ? stderr : stdout;
  o.progress = ShowProgress(flags.eta, isatty(fileno(o.progress_stream)), out == stdout,
                            o.json_on_stdout, multi);
  return o;
}

bool ShowProgress(EtaMode eta, bool terminal, bool reports_on_stdout, bool json_on_stdout,
                  bool multi) {
  if (multi) return false;
  if (eta == EtaMode::kAlways) return true;
  return eta == EtaMode::kAuto && terminal && reports_on_stdout && !json_on_stdout;
}

}  // namespace blk::bench::cli
