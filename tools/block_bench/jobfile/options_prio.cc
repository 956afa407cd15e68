// I/O priority options, as fio 3.33 reads them: prio, prioclass (the job's
// own priority) and the libaio / io_uring engine options cmdprio_percentage,
// cmdprio_class, cmdprio and cmdprio_bssplit (a priority per request).
#include <algorithm>

#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::ApplyPerDir;
using internal::FioValueError;
using internal::RenderPerDir;

// prio=0..7 / prioclass=0..3 into an optional field of IoPrioOptions.
template <std::optional<uint32_t> IoPrioOptions::*F, uint64_t Max>
FioOptionSpec JobPrio(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 0, Max);
    if (!n.ok()) return n.error();
    job.ioprio.*F = uint32_t(n.value());
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.ioprio.*F) out.push_back({std::string(n), std::to_string(*(job.ioprio.*F))});
  };
  s.help = help;
  return s;
}

// A cmdprio_* int[,int] option into a PerDir field, in [Min, Max]; valid
// with libaio and io_uring.
template <PerDir<uint32_t> IoPrioOptions::*F, uint64_t Min, uint64_t Max>
FioOptionSpec CmdPrioInt(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.engines = {IoEngine::kLibaio, IoEngine::kIoUring};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const uint32_t kb = job.kb_base;
    return ApplyPerDir(*v, job.ioprio.*F, [kb](std::string_view part) -> Expected<uint32_t> {
      Expected<uint64_t> n = ParseInteger(part, kb, Min, Max);
      if (!n.ok()) return n.error();
      return uint32_t(n.value());
    });
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.ioprio.*F == DefaultJob().ioprio.*F) return;
    out.push_back({std::string(n), RenderPerDir(job.ioprio.*F, [](uint32_t x) { return std::to_string(x); })});
  };
  s.help = help;
  return s;
}

// One direction of cmdprio_bssplit: "bs/perc[/class/level]:..." (fio's two
// formats); entries sorted by block size as fio's, percentages of one block
// size at most 100 in total.
Expected<std::vector<IoPrioOptions::BsPrio>> ParseBsPrioList(std::string_view text, uint32_t kb) {
  std::vector<IoPrioOptions::BsPrio> out;
  while (!text.empty()) {
    const size_t colon = text.find(':');
    const std::string_view entry = Trim(text.substr(0, colon));
    text = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
    if (entry.empty()) continue;
    std::vector<std::string_view> f;
    for (std::string_view rest = entry;;) {
      const size_t slash = rest.find('/');
      f.push_back(Trim(rest.substr(0, slash)));
      if (slash == std::string_view::npos) break;
      rest = rest.substr(slash + 1);
    }
    if (f.size() != 2 && f.size() != 4)
      return FioValueError("entry " + QuoteInput(entry) +
                           ": expected blocksize/percentage or blocksize/percentage/class/level");
    IoPrioOptions::BsPrio e;
    Expected<uint64_t> bs = FioParseSize(f[0], kb, 1);
    if (!bs.ok()) return bs.error();
    e.bs = bs.value();
    Expected<uint64_t> perc = ParseInteger(f[1], kb, 0, 100);
    if (!perc.ok()) return perc.error();
    e.percentage = uint32_t(perc.value());
    if (f.size() == 4) {
      Expected<uint64_t> c = ParseInteger(f[2], kb, 0, 3);
      if (!c.ok()) return FioValueError("entry " + QuoteInput(entry) + ": class: " + c.error().message);
      Expected<uint64_t> l = ParseInteger(f[3], kb, 0, 7);
      if (!l.ok()) return FioValueError("entry " + QuoteInput(entry) + ": level: " + l.error().message);
      e.prioclass = uint32_t(c.value());
      e.level = uint32_t(l.value());
    }
    out.push_back(e);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bs < b.bs; });
  for (size_t i = 0; i < out.size();) {
    uint32_t total = 0;
    size_t j = i;
    for (; j < out.size() && out[j].bs == out[i].bs; j++) total += out[j].percentage;
    if (total > 100)
      return FioValueError("total percentage for bs " + std::to_string(out[i].bs) + " exceeds 100");
    i = j;
  }
  return out;
}

FioOptionSpec CmdPrioBsSplit() {
  FioOptionSpec s;
  s.name = "cmdprio_bssplit";
  s.engines = {IoEngine::kLibaio, IoEngine::kIoUring};
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    const uint32_t kb = job.kb_base;
    PerDir<std::vector<IoPrioOptions::BsPrio>> lists{};
    Expected<void> r = ApplyPerDir(*v, lists, [kb](std::string_view part) { return ParseBsPrioList(part, kb); });
    if (!r.ok()) return r;
    lists[int(Dir::kTrim)].clear();  // fio ignores the trim part
    job.ioprio.cmdprio_bssplit = std::move(lists);
    job.ioprio.cmdprio_bssplit_text = std::string(*v);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (!job.ioprio.cmdprio_bssplit_text.empty())
      out.push_back({std::string(n), job.ioprio.cmdprio_bssplit_text});
  };
  s.help = "share of I/Os with a priority per block size: bs/percentage[/class/level]:... "
           "[read,write] (libaio, io_uring)";
  return s;
}

}  // namespace

std::vector<FioOptionSpec> PriorityOptions() {
  std::vector<FioOptionSpec> v;
  v.push_back(JobPrio<&IoPrioOptions::prio, 7>(
      "prio", "the job's I/O priority level, 0 (highest) to 7 (ioprio_set on its thread)"));
  v.push_back(JobPrio<&IoPrioOptions::prioclass, 3>(
      "prioclass", "the job's I/O priority class: 1 real-time, 2 best-effort, 3 idle (0: best-effort)"));
  v.push_back(CmdPrioInt<&IoPrioOptions::cmdprio_percentage, 0, 100>(
      "cmdprio_percentage", "percent of I/Os sent with the cmdprio class/level [read,write] "
      "(libaio, io_uring)"));
  v.push_back(CmdPrioInt<&IoPrioOptions::cmdprio_class, 1, 3>(
      "cmdprio_class", "the priority class of cmdprio I/Os (default 1, real-time) [read,write]"));
  v.push_back(CmdPrioInt<&IoPrioOptions::cmdprio, 0, 7>(
      "cmdprio", "the priority level of cmdprio I/Os (default 0) [read,write]"));
  v.push_back(CmdPrioBsSplit());
  return v;
}

}  // namespace blk::bench
