#include "tools/block_bench/cli/progress.h"

#include "tools/block_bench/report/report.h"

namespace blk::bench::cli {

std::string FormatEta(double seconds) {
  long t = long(seconds + 0.5);
  char buf[64];
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%02ldh:%02ldm:%02lds", t / 3600, (t / 60) % 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%02ldm:%02lds", t / 60, t % 60);
  return buf;
}

std::string FormatProgress(const ProgressSnapshot& p) {
  std::string bw, io;
  const char* dn[] = {"r", "w", "t"};
  for (int d = 0; d < kNumDirs; d++) {
    if (p.iops[d] <= 0) continue;
    bw += std::string(bw.empty() ? "" : ",") + dn[d] + "=" +
          NumToStr(uint64_t(p.bw_bytes[d]), 4, true, "B/s");
    io += std::string(io.empty() ? "" : ",") + dn[d] + "=" + NumToStr(uint64_t(p.iops[d]), 4, false);
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "Jobs: %d (f=%d): [%s][%.1f%%][%s][%s IOPS][eta %s]", p.running,
                p.running, p.modes.c_str(), p.percent, bw.c_str(), io.c_str(),
                FormatEta(p.eta_s).c_str());
  return buf;
}

ProgressLine::ProgressLine(FILE* stream, int64_t newline_every_ms)
    : stream_(stream), newline_every_ns_(newline_every_ms * 1'000'000) {}

void ProgressLine::Show(const ProgressSnapshot& p, int64_t now_ns) {
  std::string line = FormatProgress(p);
  const size_t len = line.size();
  if (len < last_len_) line += std::string(last_len_ - len, ' ');
  last_len_ = len;
  // --eta-newline: keep a line every so often (fio's behaviour).
  if (newline_every_ns_ && now_ns - last_newline_ns_ >= newline_every_ns_) {
    if (last_newline_ns_) std::fputc('\n', stream_);
    last_newline_ns_ = now_ns;
  }
  std::fprintf(stream_, "\r%s", line.c_str());
  std::fflush(stream_);
}

void ProgressLine::Erase() {
  if (!last_len_) return;
  std::fprintf(stream_, "\r%s\r", std::string(last_len_, ' ').c_str());
  last_len_ = 0;
}

void ProgressLine::Finish() {
  if (!last_len_) return;
  Erase();
  std::fflush(stream_);
}

}  // namespace blk::bench::cli
