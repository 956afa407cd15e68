// Trace times at the ends of int64, in every trace format, parsed and
// replayed through RunJobs on the null driver (issue #29 item 4; the
// outcome is documented in docs/replay.md, "Times at the ends of int64"):
//  * a time that fits in int64 ns relative to the first record is kept; its
//    due time start + t * 100 / replay_time_scale saturates, so a record
//    292 years out is never issued within the runtime -- the run ends at
//    its runtime with the other records issued (the optimised build issued
//    it at once: start + INT64_MAX wrapped to the past);
//  * a time whose unit conversion leaves int64 ns is refused when the trace
//    is parsed, in a message naming FILE:LINE (or the blktrace record) and
//    the value.
// Run under --config=asan too: UBSan (no recovery) aborts on any signed
// overflow on the way.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "bench_test_util.h"
#include "replay_test_util.h"
#include "tools/block_bench/run/clone.h"
#include "tools/block_bench/run/runner.h"
#include <blkstack/util/clock.h>

namespace blk::bench {
namespace {

using testing::Issued;
using testing::RunReplay;
using testing::TempPath;

constexpr int64_t kMax = INT64_MAX;
constexpr int64_t kMin = INT64_MIN;

std::string Write(const std::string& name, const std::string& content) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// ---- the formats, two records each: offset 0 at `t0`, offset 4096 at `t1`
// (in the format's own unit) ----

std::string Iolog3(const std::string& t0, const std::string& t1) {
  return "fio version 3 iolog\n0 dev add\n0 dev open\n" + t0 + " dev read 0 4096\n" + t1 +
         " dev read 4096 4096\n";
}

// v2 has no timestamps: `wait MS` before the second record.
std::string Iolog2(const std::string& wait_ms) {
  return "fio version 2 iolog\ndev add\ndev open\ndev read 0 4096\ndev wait " + wait_ms +
         " 0\ndev read 4096 4096\n";
}

template <class T>
void Put(std::string* out, T v, bool big) {
  for (size_t i = 0; i < sizeof(T); i++) {
    const size_t shift = 8 * (big ? sizeof(T) - 1 - i : i);
    out->push_back(char(uint64_t(v) >> shift));
  }
}

// Two queue (Q) events of device 8,0 in the given byte order.
std::string Blktrace(uint64_t t0, uint64_t t1, bool big) {
  constexpr uint32_t kQueue = 1 | (1u << 4) << 16;
  std::string out;
  const uint64_t times[] = {t0, t1}, sectors[] = {0, 8};
  for (int i = 0; i < 2; i++) {
    Put(&out, uint32_t(0x65617407), big);  // magic | version
    Put(&out, uint32_t(i), big);           // sequence
    Put(&out, times[i], big);
    Put(&out, sectors[i], big);
    Put(&out, uint32_t(4096), big);    // bytes
    Put(&out, kQueue, big);            // action
    Put(&out, uint32_t(1), big);       // pid
    Put(&out, uint32_t(8u << 20), big);  // device
    Put(&out, uint32_t(0), big);       // cpu
    Put(&out, uint16_t(0), big);       // error
    Put(&out, uint16_t(0), big);       // pdu_len
  }
  return out;
}

std::string Perf(const std::string& t0, const std::string& t1) {
  return "dd 1 [000] " + t0 + ": block:block_rq_issue: 8,0 R 4096 () 0 + 8 [dd]\n" +
         "dd 1 [000] " + t1 + ": block:block_rq_issue: 8,0 R 4096 () 8 + 8 [dd]\n";
}

std::string Alibaba(int64_t t0, int64_t t1) {
  return "1,R,0,4096," + std::to_string(t0) + "\n1,R,4096,4096," + std::to_string(t1) + "\n";
}

std::string Tencent(int64_t t0, int64_t t1) {
  return std::to_string(t0) + ",0,8,0,1\n" + std::to_string(t1) + ",8,8,0,1\n";
}

std::string Msr(int64_t t0, int64_t t1, int64_t resp = 10) {
  return std::to_string(t0) + ",h,0,Read,0,4096," + std::to_string(resp) + "\n" +
         std::to_string(t1) + ",h,0,Read,4096,4096," + std::to_string(resp) + "\n";
}

struct Outcome {
  RunResult r;
  Issued issued;
  int64_t wall_ns = 0;
};

// Replays `content` (trace_format=`format`) on the null driver for
// `runtime`.
void Replay(const std::string& name, const std::string& format, const std::string& content,
            Outcome* o, const std::string& runtime = "300ms",
            const std::vector<std::string>& extra = {}) {
  const std::string path = Write(name, content);
  std::vector<std::string> args = {"--name=x", "--ioengine=null", "--size=1m",
                                   "--read_iolog=" + path, "--trace_format=" + format,
                                   "--runtime=" + runtime};
  args.insert(args.end(), extra.begin(), extra.end());
  const int64_t t0 = NowNs();
  o->r = RunReplay(args, &o->issued);
  o->wall_ns = NowNs() - t0;
}

// The first record was issued, the far one never: the run ended at its
// runtime (300 ms; 5 s allows a loaded sanitized run).
void ExpectFarRecordNeverIssued(const Outcome& o, int64_t want_span_ns, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(o.r.clones.size(), 1u);
  const CloneResult& c = o.r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  ASSERT_EQ(o.issued.ios.size(), 1u) << "the record due at " << want_span_ns
                                     << " ns was issued within a 300 ms run";
  EXPECT_EQ(o.issued.ios[0].offset, 0u);
  EXPECT_EQ(c.schedule.trace_ios, 2u);
  EXPECT_EQ(c.schedule.trace_span_ns, want_span_ns);
  EXPECT_LT(o.wall_ns, 5'000'000'000) << "the run did not end at its runtime";
}

// Both records issued (their times are close).
void ExpectBothIssued(const Outcome& o, int64_t want_span_ns, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(o.r.clones.size(), 1u);
  const CloneResult& c = o.r.clones[0];
  ASSERT_EQ(c.error, 0) << c.error_message;
  EXPECT_EQ(o.issued.ios.size(), 2u);
  EXPECT_EQ(c.schedule.trace_span_ns, want_span_ns);
}

// Refused when parsed: the message names the place and has `want`.
void ExpectRefused(const Outcome& o, const std::string& place, const std::string& want,
                   const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(o.r.clones.size(), 1u);
  const CloneResult& c = o.r.clones[0];
  EXPECT_NE(c.error, 0);
  EXPECT_NE(c.error_message.find(place), std::string::npos) << c.error_message;
  EXPECT_NE(c.error_message.find(want), std::string::npos) << c.error_message;
  EXPECT_TRUE(o.issued.ios.empty());
}

TEST(ExtremeTimes, BlktraceInt64MaxIsNeverIssuedInEitherByteOrder) {
  // The reproducer: a record at INT64_MAX ns (signed overflow in
  // the pacer, and issued at once by the optimised build).
  for (bool big : {false, true}) {
    const std::string order = big ? "big-endian" : "little-endian";
    Outcome o;
    Replay("bt_max", "blktrace", Blktrace(0, uint64_t(kMax), big), &o);
    ExpectFarRecordNeverIssued(o, kMax, order + " INT64_MAX");
    Outcome near;
    Replay("bt_near", "blktrace", Blktrace(1000, uint64_t(kMax) - 5, big), &near);
    ExpectFarRecordNeverIssued(near, kMax - 5 - 1000, order + " near INT64_MAX");
    // 2^63 (INT64_MIN as u64) and UINT64_MAX do not fit in int64 ns.
    Outcome min;
    Replay("bt_min", "blktrace", Blktrace(0, uint64_t(kMin), big), &min);
    ExpectRefused(min, "record 1 at byte 48", "time '9223372036854775808' ns is out of range",
                  order + " 2^63");
    Outcome umax;
    Replay("bt_umax", "blktrace", Blktrace(0, UINT64_MAX, big), &umax);
    ExpectRefused(umax, "record 1 at byte 48", "out of range", order + " UINT64_MAX");
  }
}

TEST(ExtremeTimes, ReplayTimeScaleSaturates) {
  // replay_time_scale=1: 100 times longer, far past int64 -- never, not a
  // wrapped time; the largest scale still leaves it past the runtime.
  Outcome slow;
  Replay("bt_scale1", "blktrace", Blktrace(0, uint64_t(kMax) / 2, false), &slow, "300ms",
         {"--replay_time_scale=1"});
  ExpectFarRecordNeverIssued(slow, kMax, "replay_time_scale=1");
  Outcome fast;
  Replay("bt_scale_max", "blktrace", Blktrace(0, uint64_t(kMax), false), &fast, "300ms",
         {"--replay_time_scale=1000000"});
  ExpectFarRecordNeverIssued(fast, kMax / 10000, "replay_time_scale=1000000");
}

TEST(ExtremeTimes, IologV3) {
  // TIME in us: 9223372036854775 us fits in int64 ns, one more does not.
  Outcome near;
  Replay("io3_near", "iolog3", Iolog3("0", "9223372036854775"), &near);
  ExpectFarRecordNeverIssued(near, 9223372036854775000, "near max");
  Outcome conv;
  Replay("io3_conv", "iolog3", Iolog3("0", "9223372036854776"), &conv);
  ExpectRefused(conv, ":5: time '9223372036854776' us is out of range", "292 years",
                "conversion overflow");
  Outcome max;
  Replay("io3_max", "iolog3", Iolog3("0", "9223372036854775807"), &max);
  ExpectRefused(max, ":5:", "out of range", "INT64_MAX");
  Outcome min;
  Replay("io3_min", "iolog3", Iolog3("-9223372036854775808", "0"), &min);
  ExpectRefused(min, ":4:", "time '-9223372036854775808' is negative", "INT64_MIN");
  Outcome past;
  Replay("io3_past", "iolog3", Iolog3("0", "9223372036854775808"), &past);
  ExpectRefused(past, ":5:", "is not a number", "past INT64_MAX");
}

TEST(ExtremeTimes, IologV2Wait) {
  // wait VALUE in ms: 9223372036854 ms fits in int64 ns, one more does not.
  Outcome near;
  Replay("io2_near", "iolog2", Iolog2("9223372036854"), &near);
  ExpectFarRecordNeverIssued(near, 9223372036854000000, "near max");
  Outcome conv;
  Replay("io2_conv", "iolog2", Iolog2("9223372036855"), &conv);
  ExpectRefused(conv, ":5: wait time '9223372036855' ms is out of range", "292 years",
                "conversion overflow");
  Outcome max;
  Replay("io2_max", "iolog2", Iolog2("18446744073709551615"), &max);
  ExpectRefused(max, ":5:", "out of range", "UINT64_MAX");
}

TEST(ExtremeTimes, Perf) {
  // SECONDS.FRACTION: 9223372036.854775807 s is INT64_MAX ns exactly.
  Outcome max;
  Replay("perf_max", "perf", Perf("0.000000", "9223372036.854775807"), &max);
  ExpectFarRecordNeverIssued(max, kMax, "INT64_MAX ns");
  Outcome conv;
  Replay("perf_conv", "perf", Perf("0.000000", "9223372036.854775808"), &conv);
  ExpectRefused(conv, ":2: time '9223372036.854775808:' s is out of range", "292 years",
                "one ns past");
  Outcome sec;
  Replay("perf_sec", "perf", Perf("0.000000", "9223372036854775807.0"), &sec);
  ExpectRefused(sec, ":2:", "out of range", "INT64_MAX seconds");
}

TEST(ExtremeTimes, Alibaba) {
  // Microseconds, any sign, relative to the first record.
  Outcome min;
  Replay("ali_min", "alibaba", Alibaba(kMin, kMin + 1), &min);
  ExpectBothIssued(min, 1000, "INT64_MIN as the origin");
  Outcome max;
  Replay("ali_max", "alibaba", Alibaba(kMax - 1, kMax), &max);
  ExpectBothIssued(max, 1000, "INT64_MAX as the origin");
  Outcome near;
  Replay("ali_near", "alibaba", Alibaba(0, kMax / 1000), &near);
  ExpectFarRecordNeverIssued(near, kMax / 1000 * 1000, "near max");
  Outcome conv;
  Replay("ali_conv", "alibaba", Alibaba(0, kMax / 1000 + 1), &conv);
  ExpectRefused(conv, ":2: timestamp '9223372036854776' is too far", "292 years",
                "conversion overflow");
  Outcome both;
  Replay("ali_both", "alibaba", Alibaba(kMin, kMax), &both);
  ExpectRefused(both, ":2:", "too far from the first record's", "INT64_MIN and INT64_MAX");
}

TEST(ExtremeTimes, Tencent) {
  // Seconds: 9223372036 s fits in int64 ns, one more does not.
  Outcome near;
  Replay("ten_near", "tencent", Tencent(0, 9223372036), &near);
  ExpectFarRecordNeverIssued(near, 9223372036000000000, "near max");
  Outcome conv;
  Replay("ten_conv", "tencent", Tencent(0, 9223372037), &conv);
  ExpectRefused(conv, ":2:", "too far", "conversion overflow");
  Outcome both;
  Replay("ten_both", "tencent", Tencent(kMax, kMin), &both);
  ExpectRefused(both, ":2:", "too far", "INT64_MAX and INT64_MIN");
}

TEST(ExtremeTimes, Msr) {
  // Filetime ticks of 100 ns; the response time ends an I/O later still.
  Outcome near;
  Replay("msr_near", "msr", Msr(0, kMax / 100 - 1, 0), &near);
  ExpectFarRecordNeverIssued(near, (kMax / 100 - 1) * 100, "near max");
  Outcome conv;
  Replay("msr_conv", "msr", Msr(0, kMax / 100 + 1), &conv);
  ExpectRefused(conv, ":2:", "too far", "conversion overflow");
  Outcome resp;
  Replay("msr_resp", "msr", Msr(0, 1, kMax), &resp);
  ExpectRefused(resp, ":1: response time '9223372036854775807' ticks is out of range",
                "292 years", "response time INT64_MAX");
  Outcome end;
  Replay("msr_end", "msr", Msr(0, kMax / 100 - 1, 100), &end);
  ExpectRefused(end, ":2: response time '100' ticks is out of range", "292 years",
                "record end past INT64_MAX");
  Outcome both;
  Replay("msr_both", "msr", Msr(kMin, kMax), &both);
  ExpectRefused(both, ":2:", "too far", "INT64_MIN and INT64_MAX");
}

}  // namespace
}  // namespace blk::bench
