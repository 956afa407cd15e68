#include "tools/block_bench/run/clone_source.h"

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "tools/block_bench/run/files.h"
#include "tools/block_bench/run/generator.h"
#include "tools/block_bench/run/target.h"
#include <blkstack/util/quote.h>

namespace blk::bench {
namespace {

Expected<CloneSource> TraceCloneSource(const JobOptions& job, CloneResult* res,
                                       CloneFiles& files) {
  const auto& trace = files.trace();
  auto src = std::make_unique<TraceSource>(trace, job, files.blk(0).length());
  ScheduleResult& sc = res->schedule;
  sc.kind = ScheduleResult::Kind::kTrace;
  sc.trace = TracePathFor(job, res->clone);
  sc.trace_ios = src->ios();
  sc.skipped = src->skipped();
  sc.folded = src->folded();
  sc.too_large = src->too_large();
  sc.trace_bad = trace->bad;
  sc.trace_span_ns = src->span_ns();
  sc.no_stall = job.replay_no_stall;
  if (src->ios() == 0) {
    return Error{-EINVAL, "read_iolog '" + sc.trace + "': nothing to replay (" +
                              std::to_string(trace->records.size()) + " records, " +
                              std::to_string(sc.skipped) + " skipped, " +
                              std::to_string(sc.too_large) + " longer than the target)"};
  }
  CloneSource cs;
  cs.trace = src.get();
  cs.source = std::move(src);
  return cs;
}

}  // namespace

Expected<CloneSource> MakeCloneSource(const JobOptions& job, CloneResult* res, CloneFiles& files,
                                      bool rate_paced) {
  if (files.trace()) return TraceCloneSource(job, res, files);
  const bool time_limited = job.runtime.count() > 0;
  const uint32_t rand_thread = RandThread(*res);
  std::vector<IoGenerator> gens;
  for (uint32_t i = 0; i < files.size(); i++) {
    JobOptions fj = FileJob(CloneJob(job, res->clone), res->clone, i, rand_thread, res->seed);
    if (const auto& at = files.files()[i].append_at) fj.offset = SizeSpec{*at, false};
    // fio hashes the file's name into a skewed distribution's seed.
    auto g = IoGenerator::Create(fj, files.blk(i).length(), FileSeed(res->seed, i), rand_thread,
                                 FioFileName(job, res->clone, i, files.files()[i].target));
    if (!g.ok())
      return Error{g.error().code, ShortenName(files.display(i)) + ": " + g.error().message};
    // cpuio's and exec's I/O moves no bytes, so its size never ends the job
    // (fio's FIO_NOIO): only the runtime does, or exit_on_io_done.
    g->set_unlimited((job.time_based && time_limited) || MovesNoData(job.ioengine));
    gens.push_back(std::move(*g));
  }
  const JobOptions cj = CloneJob(job, res->clone);
  if (gens.size() > 1) {  // one mix and one set of job states, as fio's per job
    auto mix = NewRwMix(cj, res->seed, rand_thread);
    auto states = gens[0].job_rand();
    for (IoGenerator& g : gens) {
      g.share_mix(mix);
      g.share_rand(states);
    }
  }
  for (uint32_t i = 0; i < gens.size(); i++) {
    if (auto e = gens[i].lfsr_error())
      return Error{e->code, ShortenName(files.display(i)) + ": " + e->message};
  }
  CloneSource cs;
  if (gens.size() == 1) {
    cs.source = std::make_unique<IoGenerator>(std::move(gens[0]));
  } else {
    const uint64_t* rs = job.randseed ? &*job.randseed : nullptr;
    const uint64_t file_seed = FioSlotSeed(job.randrepeat, job.allrandrepeat, rs, rand_thread,
                                           kFioRandFileOff, res->seed ^ 0x5555);
    // The job's passes over all its files: size= (else the files' regions
    // together), io_size= of that.
    uint64_t total = 0;
    for (const IoGenerator& g : gens) total += g.region_size();
    if (cj.size && !cj.size->percent) total = cj.size->value;
    const uint64_t io_size = cj.io_size ? ResolveSize(*cj.io_size, total) : 0;
    cs.source = std::make_unique<MultiFileSource>(std::move(gens), job.file_service,
                                                  job.file_service_ios, file_seed,
                                                  job.tausworthe64,
                                                  PassLimits::Of(cj, total, io_size),
                                                  job.openfiles, job.randrepeat);
  }
  if (rate_paced) res->schedule.kind = ScheduleResult::Kind::kRate;
  return cs;
}

QueueShape QueueShapeOf(const JobOptions& job, const trace::Trace* trace) {
  QueueShape q;
  q.depth = std::max<uint32_t>(1, job.iodepth);
  if (trace && !job.iodepth_given) {
    q.depth = std::max<uint32_t>(1, trace->max_outstanding.value_or(kDefaultReplayDepth));
    if (q.depth > kReplayDepthCap) {
      q.capped_from = q.depth;
      q.depth = kReplayDepthCap;
    }
  }
  if (OneIoAtATime(job)) {
    q.depth = 1;  // one I/O at a time, as fio's psync/sync (and its other FIO_SYNCIO engines)
    q.capped_from = 0;
  }
  // iodepth_low=L: refill once the depth fell to L; default: after every
  // completion.
  q.low = job.iodepth_low ? std::min(*job.iodepth_low, q.depth - 1) : q.depth - 1;
  q.batch = job.iodepth_batch_submit == 0 ? q.depth : job.iodepth_batch_submit;
  q.complete_min = std::clamp<uint32_t>(job.iodepth_batch_complete_min, 1, q.depth);
  return q;
}

uint64_t MinBlockSize(const JobOptions& job, Dir d) {
  const auto& split = job.bssplit[int(d)];
  if (split.empty()) return job.bs[int(d)].min;
  uint64_t m = UINT64_MAX;
  for (const auto& e : split)
    if (e.percent > 0) m = std::min(m, e.block_size);
  return m;
}

uint64_t MaxBlockSize(const JobOptions& job, Dir d) {
  const auto& split = job.bssplit[int(d)];
  if (split.empty()) return job.bs[int(d)].max;
  uint64_t m = 0;
  for (const auto& e : split)
    if (e.percent > 0) m = std::max(m, e.block_size);
  return m ? m : job.bs[int(d)].max;
}

}  // namespace blk::bench
