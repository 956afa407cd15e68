// Options of trace replay and recording: read_iolog and fio's replay_*
// options, block-bench's trace_format/trace_device/trace_skip_bad/trace_max_size, and
// write_iolog.  What they do at run time: docs/replay.md.
#include "tools/block_bench/jobfile/option_helpers.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

using internal::FioValueError;

// The trace formats (trace::Format names); checked again where the trace is
// read.
constexpr std::string_view kFormats[] = {"auto", "iolog2", "iolog3", "blktrace",
                                         "perf", "alibaba", "tencent", "msr"};
// replay_skip words, in trace::Op order (read, write, trim, sync = flush).
constexpr std::string_view kSkipWords[] = {"read", "write", "trim", "sync"};

FioOptionSpec TraceFormat() {
  FioOptionSpec s;
  s.name = "trace_format";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    for (std::string_view f : kFormats) {
      if (*v == f) {
        job.trace_format = std::string(f);
        return {};
      }
    }
    return FioValueError("expected auto, iolog2, iolog3, blktrace, perf, alibaba, tencent or msr, got " +
                         QuoteInput(*v));
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.trace_format != DefaultJob().trace_format) out.push_back({std::string(n), job.trace_format});
  };
  s.help = "format of read_iolog: auto (sniffed), iolog2, iolog3, blktrace, perf, alibaba, tencent, msr";
  return s;
}

FioOptionSpec ReplaySkip() {
  FioOptionSpec s;
  s.name = "replay_skip";
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    uint32_t mask = 0;
    for (std::string_view item : SplitTopLevel(*v, ',')) {
      item = Trim(item);
      bool found = false;
      for (size_t i = 0; i < std::size(kSkipWords); i++) {
        if (item == kSkipWords[i]) {
          mask |= 1u << i;
          found = true;
        }
      }
      if (!found) return FioValueError("expected a ','-separated list of read, write, trim, sync, got " + QuoteInput(item));
    }
    job.replay_skip = mask;
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.replay_skip == 0) return;
    std::string value;
    for (size_t i = 0; i < std::size(kSkipWords); i++)
      if (job.replay_skip & (1u << i)) value += (value.empty() ? "" : ",") + std::string(kSkipWords[i]);
    out.push_back({std::string(n), value});
  };
  s.help = "operations of the trace not replayed: read, write, trim, sync (','-separated)";
  return s;
}

FioOptionSpec ReplayAlign() {
  FioOptionSpec s;
  s.name = "replay_align";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base);
    if (!n.ok()) return n.error();
    if (n.value() & (n.value() - 1)) return FioValueError("must be a power of 2, got " + QuoteInput(*v));
    job.replay_align = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.replay_align) out.push_back({std::string(n), FormatSize(job.replay_align, job.kb_base)});
  };
  s.help = "align the trace's offsets and lengths down to this power of 2";
  return s;
}

FioOptionSpec ReplayScale() {
  FioOptionSpec s;
  s.name = "replay_scale";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = ParseInteger(*v, job.kb_base, 1, UINT32_MAX);
    if (!n.ok()) return n.error();
    job.replay_scale = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.replay_scale != 1) out.push_back({std::string(n), std::to_string(job.replay_scale)});
  };
  s.help = "divide the trace's offsets by this factor";
  return s;
}

FioOptionSpec TraceMaxSize() {
  FioOptionSpec s;
  s.name = "trace_max_size";
  s.numeric = true;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    Expected<uint64_t> n = FioParseSize(*v, job.kb_base);
    if (!n.ok()) return n.error();
    if (n.value() == 0) return FioValueError("must be above 0, got " + QuoteInput(*v));
    job.trace_max_size = n.value();
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if (job.trace_max_size != DefaultJob().trace_max_size)
      out.push_back({std::string(n), FormatSize(job.trace_max_size, job.kb_base)});
  };
  s.help = "refuse a trace larger than this (default 4g; a pipe is read up to it)";
  return s;
}

// merge_blktrace_scalars / merge_blktrace_iters: fio's ':'-separated float
// lists, one value per read_iolog file, each truncated to an integer as
// fio's merge does; block-bench wants each at least 1 (fio ends the list
// at a 0 and would scale every time to 0 below 1 %).
template <std::vector<uint32_t> JobOptions::*F>
FioOptionSpec MergeList(std::string_view name, std::string_view help) {
  FioOptionSpec s;
  s.name = name;
  s.apply = [](JobOptions& job, std::optional<std::string_view> v) -> Expected<void> {
    std::vector<uint32_t> list;
    for (std::string_view item : SplitTopLevel(*v, ':')) {
      Expected<double> d = ParseDouble(Trim(item), 1, 1e9);
      if (!d.ok()) return d.error();
      list.push_back(uint32_t(d.value()));
    }
    job.*F = std::move(list);
    return {};
  };
  s.render = [](const JobOptions& job, std::string_view n, RenderedOptions& out) {
    if ((job.*F).empty()) return;
    std::string text;
    for (uint32_t x : job.*F) text += (text.empty() ? "" : ":") + std::to_string(x);
    out.push_back({std::string(n), text});
  };
  s.help = help;
  return s;
}

}  // namespace

std::vector<FioOptionSpec> ReplayOptions() {
  using namespace internal;
  std::vector<FioOptionSpec> v;
  v.push_back(NameList<&JobOptions::read_iolog>(
      "read_iolog", "replay a trace (fio iolog, blktrace, perf, CSV); ':'-separated: one per clone"));
  v.push_back(BoolOption<&JobOptions::read_iolog_chunked>(
      "read_iolog_chunked", "accepted: block-bench reads a trace whole (same replay, 24 B per record)"));
  v.push_back(TraceFormat());
  v.push_back(StringOption<&JobOptions::trace_device>(
      "trace_device", "replay only this device/volume of the trace (MAJ,MIN, device id, ...)"));
  v.push_back(BoolOption<&JobOptions::trace_skip_bad>(
      "trace_skip_bad", "1: count and skip malformed trace records instead of failing"));
  v.push_back(TraceMaxSize());
  v.push_back(BoolOption<&JobOptions::replay_no_stall>(
      "replay_no_stall", "1: replay in order as fast as iodepth allows, ignoring the timestamps"));
  v.push_back(UintOption<&JobOptions::replay_time_scale, 1, 1000000>(
      "replay_time_scale", "replay at this percentage of the trace's rate (100: as recorded)"));
  v.push_back(StringOption<&JobOptions::replay_redirect>(
      "replay_redirect", "replay every record onto this file or device"));
  v.push_back(ReplayAlign());
  v.push_back(ReplayScale());
  v.push_back(ReplaySkip());
  v.push_back(StringOption<&JobOptions::merge_blktrace_file>(
      "merge_blktrace_file", "merge read_iolog's blktrace files by time into this file before the "
                             "run and replay it (fio's merge; --merge-blktrace-only: merge and exit)"));
  v.push_back(MergeList<&JobOptions::merge_blktrace_scalars>(
      "merge_blktrace_scalars", "per read_iolog file (':'-separated), the percentage its times are "
                                "scaled by in the merge (50: twice as fast)"));
  v.push_back(MergeList<&JobOptions::merge_blktrace_iters>(
      "merge_blktrace_iters", "per read_iolog file (':'-separated), how many passes over it the "
                              "merge takes, each starting where the last ended"));
  v.push_back(StringOption<&JobOptions::write_iolog>(
      "write_iolog",
      "record the issued I/O to this file (fio iolog v3), also when replaying; clone N > 0 "
      "of numjobs to FILE.N (fio appends every job to FILE)"));
  return v;
}

}  // namespace blk::bench
