// fio's blktrace merge (trace/blktrace_merge.h) on blktrace files built
// here: which events are kept, their order across inputs, scalars and
// passes, byte orders, fio's tie order, errors; the merge is read back by
// block-bench's own blktrace parser.
#include "tools/block_bench/trace/blktrace_merge.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/tools/block_bench/trace/blktrace_encode.h"
#include "tools/block_bench/trace/trace.h"

namespace blk::bench::trace {
namespace {

// (time, sector) of each record of a merged trace, and its pdu_len.
struct Out {
  uint64_t time, sector;
  uint16_t pdu_len;
  bool operator==(const Out&) const = default;
};
std::vector<Out> Records(const std::string& data) {
  std::vector<Out> v;
  EXPECT_EQ(data.size() % 48, 0u);
  for (size_t p = 0; p + 48 <= data.size(); p += 48) {
    Out o;
    std::memcpy(&o.time, data.data() + p + 8, 8);
    std::memcpy(&o.sector, data.data() + p + 16, 8);
    std::memcpy(&o.pdu_len, data.data() + p + 46, 2);
    v.push_back(o);
  }
  return v;
}

MergeResult Merge(std::vector<MergeInput> in) {
  Expected<MergeResult> r = MergeBlktraceData(in);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? r.value() : MergeResult{};
}

MergeInput In(std::string name, const std::string& data, uint32_t scalar = 100, uint32_t iters = 1) {
  MergeInput m;
  m.name = std::move(name);
  m.data = data;
  m.scalar = scalar;
  m.iters = iters;
  return m;
}

TEST(BlktraceMerge, QueueEventsOfBothInputsInTimeOrder) {
  const std::string a = Encode({Ev(0, kNotify, 0, 0, std::string("proc\0\0\0\0", 8)),
                                Ev(100, kQ | kR, 1, 4096, "pdu!"), Ev(150, kD | kR, 1, 4096),
                                Ev(300, kQ | kW, 2, 4096), Ev(400, kC | kW, 2, 4096)},
                               false);
  const std::string b = Encode({Ev(200, kQ | kDisc, 10, 65536), Ev(250, kQ | kFl, 11, 0),
                                Ev(500, kQ | kR | kCg, 12, 512, std::string(8, 'c'))},
                               false);
  const MergeResult m = Merge({In("a", a), In("b", b)});
  // Kept: queue events with TC_READ, TC_WRITE or TC_DISCARD; not the
  // notify, issue and complete events, not a flush without a data
  // direction, not the cgroup-flagged queue (fio compares action & 0xffff).
  EXPECT_EQ(Records(m.data), (std::vector<Out>{{100, 1, 0}, {200, 10, 0}, {300, 2, 0}}));
  EXPECT_EQ(m.records, 3u);
  // The merge is a blktrace block-bench replays.
  Expected<Trace> t = ParseTrace(m.data, "merged", {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t.value().records.size(), 3u);
  EXPECT_EQ(t.value().records[1].op, Op::kTrim);
  EXPECT_EQ(t.value().records[2].op, Op::kWrite);
  EXPECT_EQ(t.value().records[2].t_ns, 200);
}

TEST(BlktraceMerge, ScalarsAndPasses) {
  const std::string a = Encode({Ev(100, kQ | kR, 1, 512), Ev(200, kQ | kR, 2, 512),
                                Ev(1000, kC | kR, 2, 512)},
                               false);
  // Half the times; two passes, the second 1000 ns (the last record) on.
  EXPECT_EQ(Records(Merge({In("a", a, 50)}).data),
            (std::vector<Out>{{50, 1, 0}, {100, 2, 0}}));
  EXPECT_EQ(Records(Merge({In("a", a, 100, 2)}).data),
            (std::vector<Out>{{100, 1, 0}, {200, 2, 0}, {1100, 1, 0}, {1200, 2, 0}}));
  // Both: (t + pass * 1000) * 50 / 100.
  EXPECT_EQ(Records(Merge({In("a", a, 50, 2)}).data),
            (std::vector<Out>{{50, 1, 0}, {100, 2, 0}, {550, 1, 0}, {600, 2, 0}}));
}

TEST(BlktraceMerge, ByteOrdersBecomeThisMachines) {
  const std::string big = Encode({Ev(7, kQ | kW, 3, 4096)}, true);
  const MergeResult m = Merge({In("big", big)});
  EXPECT_EQ(Records(m.data), (std::vector<Out>{{7, 3, 0}}));
  uint32_t magic;
  std::memcpy(&magic, m.data.data(), 4);
  EXPECT_EQ(magic, 0x65617407u);
}

TEST(BlktraceMerge, TiesFollowFiosCursorOrder) {
  // a ends first; c then takes a's place ahead of b, so at the tie at 50
  // c's record comes before b's.
  const std::string a = Encode({Ev(10, kQ | kR, 1, 512)}, false);
  const std::string b = Encode({Ev(20, kQ | kR, 2, 512), Ev(50, kQ | kR, 3, 512)}, false);
  const std::string c = Encode({Ev(30, kQ | kR, 4, 512), Ev(50, kQ | kR, 5, 512)}, false);
  EXPECT_EQ(Records(Merge({In("a", a), In("b", b), In("c", c)}).data),
            (std::vector<Out>{{10, 1, 0}, {20, 2, 0}, {30, 4, 0}, {50, 5, 0}, {50, 3, 0}}));
}

TEST(BlktraceMerge, TimesSaturate) {
  const std::string a = Encode({Ev(UINT64_MAX - 10, kQ | kR, 1, 512)}, false);
  EXPECT_EQ(Records(Merge({In("a", a, 200)}).data),
            (std::vector<Out>{{UINT64_MAX, 1, 0}}));
}

TEST(BlktraceMerge, InputsWithoutKeptEventsEnd) {
  const std::string none = Encode({Ev(5, kC | kR, 1, 512)}, false);
  const std::string a = Encode({Ev(10, kQ | kR, 1, 512)}, false);
  EXPECT_EQ(Merge({In("none", none, 100, 1000000), In("a", a)}).records, 1u);
  EXPECT_EQ(Merge({In("empty", "", 100, 3)}).records, 0u);
}

TEST(BlktraceMerge, ErrorsNameTheInputAndRecord) {
  const std::string good = Encode({Ev(10, kQ | kR, 1, 512)}, false);
  Expected<MergeResult> r = MergeBlktraceData({In("x.txt", std::string(64, 'x'))});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("x.txt: record 0 at byte 0: bad magic", 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find("not a blktrace"), std::string::npos);
  const std::string cut = good + good.substr(0, 20);
  r = MergeBlktraceData({In("cut", cut)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cut: record 1 at byte 48: truncated record (20 of 48 bytes)");
  std::string long_pdu = Encode({Ev(10, kQ | kR, 1, 512, "abcd")}, false);
  long_pdu.resize(long_pdu.size() - 2);
  r = MergeBlktraceData({In("pdu", long_pdu)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("payload of 4 bytes runs past the end"), std::string::npos);
}

TEST(BlktraceMerge, FilesAndParameterCounts) {
  const std::string dir = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
  const std::string a = dir + "/a.bin", b = dir + "/b.bin", out = dir + "/m.bin";
  std::ofstream(a) << Encode({Ev(10, kQ | kR, 1, 512)}, false);
  std::ofstream(b) << Encode({Ev(5, kQ | kW, 2, 512)}, false);
  Expected<uint64_t> n = MergeBlktraceFiles({a, b}, {}, {}, out, 1 << 20);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n.value(), 2u);
  std::stringstream s;
  s << std::ifstream(out).rdbuf();
  EXPECT_EQ(Records(s.str()), (std::vector<Out>{{5, 2, 0}, {10, 1, 0}}));
  EXPECT_NE(access((out + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
  n = MergeBlktraceFiles({a, b}, {50}, {}, out, 1 << 20);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("merge_blktrace_scalars(1) != nr_logs(2)"), std::string::npos);
  n = MergeBlktraceFiles({a, b}, {}, {1, 2, 3}, out, 1 << 20);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("merge_blktrace_iters(3) != nr_logs(2)"), std::string::npos);
  n = MergeBlktraceFiles({a, dir + "/missing.bin"}, {}, {}, out, 1 << 20);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("missing.bin"), std::string::npos);
  n = MergeBlktraceFiles({a}, {}, {}, dir + "/no/such/dir/m.bin", 1 << 20);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, -ENOENT);
}

}  // namespace
}  // namespace blk::bench::trace
