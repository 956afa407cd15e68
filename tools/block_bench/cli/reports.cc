#include "tools/block_bench/cli/reports.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tools/block_bench/report/report.h"
#include "tools/block_bench/report/terse.h"

namespace blk::bench::cli {

void WriteReports(const ToolFlags& flags, FILE* out, bool json_on_stdout, const TextMaker& text,
                  const JsonMaker& json) {
  const auto& fmts = flags.output_formats;
  auto asked = [&](OutputFormat f) { return std::find(fmts.begin(), fmts.end(), f) != fmts.end(); };
  // fio's order, whatever the order asked: terse, JSON, text.
  if (asked(OutputFormat::kTerse))
    std::fputs(TerseReport(json(false), flags.terse_version).c_str(), out);
  if (asked(OutputFormat::kJson) || asked(OutputFormat::kJsonPlus)) {
    // One document; json+ when either asked for it (fio's json,json+).
    std::string doc = json(asked(OutputFormat::kJsonPlus))
                          .dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fputs(doc.c_str(), out);
    std::fputs("\n", out);
  }
  if (asked(OutputFormat::kNormal)) {
    if (json_on_stdout) {
      // Keep stdout pure JSON: the text report goes to stderr.
      std::fputs(text().c_str(), stderr);
    } else {
      std::fputs("\n", out);
      std::fputs(text().c_str(), out);
    }
  }
}

int PrintReports(const ToolFlags& flags, FILE* out, bool json_on_stdout, int status,
                 const TextMaker& text, const JsonMaker& json) {
  WriteReports(flags, out, json_on_stdout, text, json);
  if (std::fflush(out) != 0 || (out != stdout && std::fclose(out) != 0)) {
    std::fprintf(stderr, "block-bench: writing output: %s\n", std::strerror(errno));
    status = 1;
  }
  return status;
}

bool WriteBandwidthLog(const RunResult& run) {
  if (auto w = WriteAggregateBwLogs(run, "."); !w.ok()) {
    std::fprintf(stderr, "block-bench: --bandwidth-log: %s\n", w.error().message.c_str());
    return false;
  }
  return true;
}

bool WriteJobLogs(const RunResult& run, const std::string& tag, const std::string& me) {
  if (auto w = WriteLogs(run, tag); !w.ok()) {
    std::fprintf(stderr, "block-bench: %swriting logs: %s\n", me.c_str(),
                 w.error().message.c_str());
    return false;
  }
  return true;
}

}  // namespace blk::bench::cli
