// Trace parsers (tools/block_bench/trace/trace.h) and --trace-info's
// statistics (info.h): every format from small samples in the published
// layouts, blktrace files built here in both byte orders, an iolog written by
// fio itself, errors, skip_bad, device filters, sniffing and overflow.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tools/block_bench/trace/blktrace_encode.h"
#include "tools/block_bench/trace/info.h"
#include "tools/block_bench/trace/trace.h"

namespace blk::bench::trace {
namespace {

Trace MustParse(std::string_view data, Format f = Format::kAuto, std::string device = "") {
  ParseOptions o;
  o.format = f;
  o.device = std::move(device);
  auto t = ParseTrace(data, "t.txt", o);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : Trace{};
}

std::string ErrorOf(std::string_view data, Format f = Format::kAuto, std::string device = "",
                    std::string_view name = "t.txt") {
  ParseOptions o;
  o.format = f;
  o.device = std::move(device);
  auto t = ParseTrace(data, name, o);
  EXPECT_FALSE(t.ok());
  return t.ok() ? "" : t.error().message;
}

Record R(int64_t t, uint64_t off, uint32_t len, Op op, bool fua = false, uint16_t file = 0) {
  Record r;
  r.t_ns = t;
  r.offset = off;
  r.len = len;
  r.op = op;
  r.fua = fua;
  r.file = file;
  return r;
}

std::string TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/trace_test.XXXXXX";
  char* d = mkdtemp(tmpl.data());
  EXPECT_NE(d, nullptr);
  return tmpl;
}

void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), std::streamsize(data.size()));
}

// ---- names ----

TEST(TraceFormat, NamesRoundTrip) {
  for (Format f : {Format::kAuto, Format::kIologV2, Format::kIologV3, Format::kBlktrace,
                   Format::kPerf, Format::kAlibaba, Format::kTencent, Format::kMsr}) {
    auto p = ParseFormat(Name(f));
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(*p, f);
  }
  auto bad = ParseFormat("csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("iolog2"), std::string::npos);
}

// ---- fio iolog v2 ----

TEST(Iolog2, ActionsFilesAndAbsoluteWaits) {
  const Trace t = MustParse(
      "fio version 2 iolog\n"
      "/dev/a add\n"
      "/dev/a open\n"
      "/dev/a read 4096 512\n"
      "/dev/a wait 1000 0\n"       // until 1 s after the start
      "/dev/b write 0 8192\n"
      "/dev/a wait 1000 5\n"       // already past: no time
      "/dev/a trim 8192 4096\n"
      "/dev/a wait 3000 0\n"
      "/dev/b sync 0 0\n"
      "/dev/a datasync 0 0\n"
      "/dev/a close\n");
  EXPECT_EQ(t.format, Format::kIologV2);
  EXPECT_EQ(t.files, (std::vector<std::string>{"/dev/a", "/dev/b"}));
  const std::vector<Record> want = {
      R(0, 4096, 512, Op::kRead),
      R(1000000000, 0, 8192, Op::kWrite, false, 1),
      R(1000000000, 8192, 4096, Op::kTrim),
      R(3000000000, 0, 0, Op::kFlush, false, 1),
      R(3000000000, 0, 0, Op::kFlush),
  };
  EXPECT_EQ(t.records, want);
  EXPECT_EQ(t.ignored, 6u);  // add, open, close, 3 waits
  EXPECT_EQ(t.span_ns(), 3000000000);
}

TEST(Iolog2, WaitBeforeTheFirstIoIsNormalisedAway) {
  const Trace t = MustParse("fio version 2 iolog\nf wait 500 0\nf read 0 4096\nf read 4096 4096\n");
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].t_ns, 0);
  EXPECT_EQ(t.records[1].t_ns, 0);
}

TEST(Iolog2, DeviceFilterKeepsOneFile) {
  const Trace t = MustParse("fio version 2 iolog\na add\nb add\na read 0 1\nb write 0 2\n",
                            Format::kIologV2, "b");
  EXPECT_EQ(t.files, std::vector<std::string>{"b"});
  ASSERT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.records[0].op, Op::kWrite);
  EXPECT_EQ(t.filtered, 2u);  // a's add and read
}

TEST(Iolog2, MalformedLinesNameFileAndLine) {
  const std::string head = "fio version 2 iolog\nf add\n";
  EXPECT_EQ(ErrorOf(head + "f read 12x 4096\n"), "t.txt:3: offset '12x' is not a number");
  EXPECT_EQ(ErrorOf(head + "f read 0 -1\n"), "t.txt:3: length '-1' is not a number");
  EXPECT_EQ(ErrorOf(head + "f read 0\n"),
            "t.txt:3: expected FILE ACTION [OFFSET LENGTH], found 'f read 0'");
  EXPECT_EQ(ErrorOf(head + "\nf frob 0 0\n").rfind("t.txt:4: unknown action 'frob'", 0), 0u);
  EXPECT_EQ(ErrorOf(head + "f remove\n").rfind("t.txt:3: unknown file action 'remove'", 0), 0u);
  EXPECT_EQ(ErrorOf(head + "f read 0 4294967296\n").rfind("t.txt:3: length '4294967296'", 0), 0u);
  EXPECT_EQ(ErrorOf(head + "f read 18446744073709551616 1\n").rfind("t.txt:3: offset", 0), 0u);
  EXPECT_EQ(ErrorOf(head + "f read 18446744073709551615 2\n").rfind("t.txt:3: offset", 0), 0u);
  EXPECT_EQ(ErrorOf(head + "f wait 18446744073709551615 0\n").rfind("t.txt:3: wait time", 0), 0u);
  EXPECT_EQ(ErrorOf("fio version 2 iolog\nfio version 2 iolog\n").rfind("t.txt:2: a second", 0),
            0u);
  EXPECT_EQ(ErrorOf("fio version 1 iolog\n", Format::kIologV2).rfind("t.txt:1: not a fio iolog", 0),
            0u);
  // A long bad value is cut in the message.
  const std::string msg = ErrorOf(head + "f read " + std::string(500, '7') + "x 1\n");
  EXPECT_LT(msg.size(), 200u) << msg;
  EXPECT_NE(msg.find("more bytes"), std::string::npos) << msg;
  // No I/O at all.
  EXPECT_EQ(ErrorOf(head + "f open\nf close\n").rfind("t.txt: no I/O records", 0), 0u);
}

TEST(Iolog2, SkipBadCounts) {
  ParseOptions o;
  o.skip_bad = true;
  auto t = ParseTrace("fio version 2 iolog\nf read 0 1\nf read x 1\nf bogus\nf write 1 1\n", "t", o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->records.size(), 2u);
  EXPECT_EQ(t->bad, 2u);
}

TEST(Iolog2, CrlfAndBlankLines) {
  const Trace t = MustParse("fio version 2 iolog\r\n\r\nf read 0 512\r\n   \r\nf write 512 512");
  EXPECT_EQ(t.records.size(), 2u);
}

TEST(Iolog2, FormatMismatchIsAnError) {
  EXPECT_NE(ErrorOf("fio version 3 iolog\n1 f read 0 1\n", Format::kIologV2).find("iolog3"),
            std::string::npos);
}

// ---- fio iolog v3 ----

TEST(Iolog3, TimesInMicroseconds) {
  const Trace t = MustParse(
      "fio version 3 iolog\n"
      "37 a.0.0 add\n"
      "208 a.0.0 open\n"
      "215 a.0.0 read 0 4096\n"
      "200 a.0.0 write 8192 4096\n"  // earlier: sorted first
      "215 a.0.0 read 4096 4096\n"
      "216 a.0.0 wait 100 0\n"       // fio ignores wait in v3
      "280 a.0.0 close\n");
  const std::vector<Record> want = {
      R(0, 8192, 4096, Op::kWrite),
      R(15000, 0, 4096, Op::kRead),
      R(15000, 4096, 4096, Op::kRead),
  };
  EXPECT_EQ(t.records, want);
  EXPECT_EQ(t.ignored, 4u);
  EXPECT_EQ(ErrorOf("fio version 3 iolog\nx f read 0 1\n"), "t.txt:2: time 'x' is not a number");
  EXPECT_EQ(ErrorOf("fio version 3 iolog\n9223372036854775807 f read 0 1\n")
                .rfind("t.txt:2: time '9223372036854775807' us is out of range", 0),
            0u);
}

// fio writes the log; the test reads fio's file line by line on its own and
// compares.
TEST(Iolog3, WrittenByFio) {
  if (std::system("command -v fio >/dev/null 2>&1") != 0) {
    std::fprintf(stderr, "\n*** SKIPPED: fio not installed ***\n\n");
    GTEST_SKIP() << "fio not installed";
  }
  const std::string dir = TempDir();
  const std::string log = dir + "/fio.iolog";
  // fio appends to an existing log: start from none.
  unlink(log.c_str());
  const std::string cmd = "cd " + dir +
                          " && fio --name=a --ioengine=null --size=1M --bs=4k --rw=randrw "
                          "--write_iolog=" + log + " >fio.out 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(log);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  ASSERT_EQ(line, "fio version 3 iolog");
  struct Want {
    int64_t us;
    Op op;
    uint64_t off, len;
  };
  std::vector<Want> want;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    int64_t us;
    std::string file, act;
    s >> us >> file >> act;
    if (act == "read" || act == "write") {
      Want w{us, act == "read" ? Op::kRead : Op::kWrite, 0, 0};
      s >> w.off >> w.len;
      want.push_back(w);
    }
  }
  ASSERT_EQ(want.size(), 256u);  // 1 MiB / 4 KiB
  auto t = LoadTrace(log, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->format, Format::kIologV3);
  EXPECT_EQ(t->files, std::vector<std::string>{"a.0.0"});
  ASSERT_EQ(t->records.size(), want.size());
  // fio's times never decrease, so the order is the file's.
  for (size_t i = 0; i < want.size(); i++) {
    const Record& r = t->records[i];
    EXPECT_EQ(r.t_ns, (want[i].us - want[0].us) * 1000) << i;
    EXPECT_EQ(r.op, want[i].op) << i;
    EXPECT_EQ(r.offset, want[i].off) << i;
    EXPECT_EQ(r.len, want[i].len) << i;
  }
  EXPECT_EQ(t->ignored, 3u);  // add, open, close
}

// ---- blktrace ----

std::vector<Bt> Sample() {
  return {
      Ev(1000, kNotify | 0, 0, 0, std::string("process\0", 8)),  // BLK_TN_PROCESS
      Ev(2000, kQ | kW, 16, 4096),
      Ev(2100, kD | kW, 16, 4096),
      Ev(2500, kQ, 100, 8192, std::string(8, 'c')),  // a read, with a payload
      Ev(2600, kD, 100, 8192),
      Ev(3000, kC | kW, 16, 4096),
      Ev(3200, kQ | kW | kFl, 0, 0),                             // a flush
      Ev(3300, kQ | kDisc | kW, 200, 65536),                     // a discard
      Ev(3400, kQ | kW | kFua | kCg, 300, 512, std::string(8, '\x01') + "x"),  // cgroup + FUA
      Ev(4000, kC, 100, 8192),
  };
}

const std::vector<Record> kSampleRecords = {
    R(0, 16 * 512, 4096, Op::kWrite),
    R(500, 100 * 512, 8192, Op::kRead),
    R(1200, 0, 0, Op::kFlush),
    R(1300, 200 * 512, 65536, Op::kTrim),
    R(1400, 300 * 512, 512, Op::kWrite, true),
};

TEST(Blktrace, BothByteOrders) {
  for (bool big : {false, true}) {
    const std::string data = Encode(Sample(), big);
    EXPECT_EQ(SniffFormat(data), Format::kBlktrace);
    const Trace t = MustParse(data);
    EXPECT_EQ(t.format, Format::kBlktrace);
    EXPECT_EQ(t.records, kSampleRecords) << "big=" << big;
    EXPECT_EQ(t.ignored, 5u);  // notify, 2 D, 2 C
    ASSERT_TRUE(t.max_outstanding.has_value());
    EXPECT_EQ(*t.max_outstanding, 2u);
    // D at 2100 and 2600, C at 3000 and 4000 over 1900 ns: 1*500+2*400+1*1000.
    EXPECT_NEAR(*t.mean_outstanding, 2300.0 / 1900.0, 1e-9);
  }
}

TEST(Blktrace, PerCpuFilesMergeInTimeOrder) {
  const std::string dir = TempDir();
  const std::string stem = dir + "/sda";
  // Interleaved times over three CPUs, cpu 1 in the other byte order.
  WriteFile(stem + ".blktrace.0", Encode({Ev(10, kQ, 0, 512), Ev(40, kQ, 3, 512)}, false));
  WriteFile(stem + ".blktrace.1", Encode({Ev(20, kQ | kW, 1, 512), Ev(50, kQ, 4, 512)}, true));
  WriteFile(stem + ".blktrace.2", Encode({Ev(30, kQ, 2, 512)}, false));
  WriteFile(stem + ".blktrace.4", Encode({Ev(5, kQ, 9, 512)}, false));  // not consecutive: unread
  auto t = LoadTrace(stem, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->records.size(), 5u);
  for (size_t i = 0; i < 5; i++) {
    EXPECT_EQ(t->records[i].offset, i * 512);
    EXPECT_EQ(t->records[i].t_ns, int64_t(i) * 10);
  }
  EXPECT_EQ(t->records[1].op, Op::kWrite);
  // A single merged file (blkparse -d) parses as is.
  auto one = LoadTrace(stem + ".blktrace.0", {});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->records.size(), 2u);
  // An error in the second file names it.
  WriteFile(stem + ".blktrace.1", Encode({Ev(20, kQ, 1, 512)}, true) + "abc");
  auto bad = LoadTrace(stem, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            stem + ".blktrace.1: record 1 at byte 48: truncated record (3 of 48 bytes)");
  auto missing = LoadTrace(dir + "/nothing", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find(dir + "/nothing: No such file"), std::string::npos);
}

// The limit is for the per-CPU files together; devices are refused unread.
TEST(LoadLimits, PerCpuFilesShareTheLimitAndDevicesAreRefused) {
  const std::string dir = TempDir();
  const std::string stem = dir + "/sdb";
  WriteFile(stem + ".blktrace.0", Encode({Ev(10, kQ, 0, 512), Ev(40, kQ, 3, 512)}, false));
  WriteFile(stem + ".blktrace.1", Encode({Ev(20, kQ, 1, 512), Ev(50, kQ, 4, 512)}, false));
  ParseOptions o;
  o.max_bytes = 4 * 48;  // exactly both files
  o.how_to_raise = "trace_max_size=";
  ASSERT_TRUE(LoadTrace(stem, o).ok());
  o.max_bytes = 3 * 48;  // each file alone fits, both do not
  auto t = LoadTrace(stem, o);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, -EFBIG);
  EXPECT_EQ(t.error().message, stem + ".blktrace.1: 96 bytes, over the limit of 48 bytes for a "
                                      "trace; raise it with trace_max_size=");
  auto z = LoadTrace("/dev/zero", {});
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().code, -EINVAL);
  EXPECT_EQ(z.error().message,
            "/dev/zero: a character device, not a trace (read from a regular file or a pipe)");
}

// A stop request ends a long parse: checked every 65536 records.
TEST(LoadLimits, AStopRequestEndsTheParse) {
  std::string log = "fio version 2 iolog\n";
  for (int i = 0; i < 200000; i++) log += "f read " + std::to_string(i * 4096) + " 4096\n";
  const std::string blk = Encode(std::vector<Bt>(70000, Ev(10, kQ, 0, 512)), false);
  const std::string csv = [] {
    std::string c;
    for (int i = 0; i < 70000; i++) c += "1,R,0,4096," + std::to_string(i) + "\n";
    return c;
  }();
  const std::vector<const std::string*> inputs = {&log, &blk, &csv};
  for (const std::string* data : inputs) {
    ParseOptions o;
    if (data == &csv) o.format = Format::kAlibaba;
    int polls = 0;
    o.interrupted = [&] { return ++polls >= 1; };
    auto t = ParseTrace(*data, "t", o);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, -EINTR);
    EXPECT_EQ(t.error().message, "t: parsing interrupted by a signal");
    EXPECT_EQ(polls, 1);
    o.interrupted = [] { return false; };
    EXPECT_TRUE(ParseTrace(*data, "t", o).ok());
  }
}

TEST(Blktrace, Errors) {
  const std::string good = Encode({Ev(1, kQ, 0, 512)}, false);
  EXPECT_EQ(ErrorOf(good + good.substr(0, 47)),
            "t.txt: record 1 at byte 48: truncated record (47 of 48 bytes)");
  std::string midway = good + good;
  midway[51] = 'X';  // the magic's top byte (little-endian)
  EXPECT_EQ(ErrorOf(midway, Format::kBlktrace).rfind("t.txt: record 1 at byte 48: bad magic", 0),
            0u);
  // pdu_len past the end.
  Bt huge = Ev(1, kQ, 0, 512);
  std::string h = Encode({huge}, false);
  h[46] = '\xff';
  h[47] = '\xff';
  EXPECT_EQ(ErrorOf(good + h),
            "t.txt: record 1 at byte 48: payload of 65535 bytes runs past the end of the file");
  // A cgroup record too short for its id.
  EXPECT_NE(ErrorOf(Encode({Ev(1, kQ | kCg, 0, 512, "abc")}, false)).find("cgroup"),
            std::string::npos);
  // Wrong version.
  Bt v6 = Ev(1, kQ, 0, 512);
  v6.magic = 0x65617406;
  EXPECT_NE(ErrorOf(Encode({v6}, false), Format::kBlktrace).find("version 6"), std::string::npos);
  // Overflow: sector * 512, a time beyond int64.
  EXPECT_NE(ErrorOf(Encode({Ev(1, kQ, UINT64_MAX / 256, 512)}, false)).find("sector"),
            std::string::npos);
  EXPECT_NE(ErrorOf(Encode({Ev(UINT64_MAX, kQ, 0, 512)}, false)).find("time"), std::string::npos);
  // Only non-Q events: empty.
  EXPECT_NE(ErrorOf(Encode({Ev(1, kD, 0, 512)}, false)).find("no I/O records"), std::string::npos);
}

TEST(Blktrace, SkipBad) {
  const std::string good = Encode({Ev(1, kQ, 0, 512), Ev(2, kQ | kCg, 0, 512, "x")}, false);
  ParseOptions o;
  o.skip_bad = true;
  auto t = ParseTrace(good + "tail", "t", o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->records.size(), 1u);
  EXPECT_EQ(t->bad, 2u);
}

TEST(Blktrace, Devices) {
  Bt a = Ev(1, kQ, 0, 512), b = Ev(2, kQ, 8, 512);
  b.device = (8u << 20) | 16;
  const std::string data = Encode({a, b, a}, false);
  const std::string err = ErrorOf(data);
  EXPECT_NE(err.find("8,0, 8,16"), std::string::npos) << err;
  EXPECT_NE(err.find("trace_device="), std::string::npos) << err;
  Trace t = MustParse(data, Format::kAuto, "8,16");
  EXPECT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.filtered, 2u);
  t = MustParse(data, Format::kAuto, std::to_string((8u << 20) | 0));  // dev_t in decimal
  EXPECT_EQ(t.records.size(), 2u);
  EXPECT_NE(ErrorOf(data, Format::kAuto, "sda").find("trace_device='sda'"), std::string::npos);
  // replay_redirect=: every device's records, in trace order.
  ParseOptions every;
  every.every_device = true;
  auto all = ParseTrace(data, "t.txt", every);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->records.size(), 3u);
  EXPECT_EQ(std::count_if(all->records.begin(), all->records.end(),
                          [](const Record& r) { return r.offset == 8u * 512; }),
            1);
  EXPECT_EQ(all->filtered, 0u);
}

// ---- perf script ----

const char kPerf[] =
    "         cc1plus 26513 [001] 29964.248054:   block:block_bio_queue: 254,0 RA 13534496 + 8 [cc1plus]\n"
    "         cc1plus 26513 [001] 29964.248062:   block:block_rq_insert: 254,0 RA 4096 () 13534496 + 8 0x2,0,4 [cc1plus]\n"
    "         cc1plus 26513 [001] 29964.248066:    block:block_rq_issue: 254,0 RA 4096 () 13534496 + 8 0x2,0,4 [cc1plus]\n"
    " C1 CompilerThre 26356 [001] 29964.248217: block:block_rq_complete: 254,0 RA () 13534496 + 8 0x2,0,4 [0]\n"
    "              dd 26515 [001] 29964.255714:   block:block_bio_queue: 254,0 WS 382609288 + 8 [dd]\n"
    "              dd 26515 [001] 29964.255716:    block:block_rq_issue: 254,0 WS 4096 () 382609288 + 8 0x2,0,4 [dd]\n"
    "              dd 26515 [001] 29964.255800:   block:block_bio_queue: 254,0 FWFS 382609296 + 8 [dd]\n"
    "   kworker/0:1H 10 [000] 29964.255900:   block:block_bio_queue: 254,0 FWS 0 + 0 [kworker/0:1H]\n"
    "   kworker/0:1H 10 [000] 29964.256000:   block:block_bio_queue: 254,0 DS 355493760 + 1384 [x]\n"
    "   kworker/0:1H 10 [000] 29964.256100:   block:block_bio_queue: 254,0 N 0 + 0 [x]\n"
    "   kworker/0:1H 10 [000] 29964.256200:    block:block_rq_complete: 254,0 WS () 382609288 + 8 [0]\n"
    "   kworker/0:1H 10 [000] 29964.256300:    block:block_plug: [kworker/0:1H]\n";

TEST(Perf, BioQueueIsTheSource) {
  const Trace t = MustParse(kPerf);
  EXPECT_EQ(t.format, Format::kPerf);
  const std::vector<Record> want = {
      R(0, 13534496ull * 512, 4096, Op::kRead),
      R(7660000, 382609288ull * 512, 4096, Op::kWrite),
      R(7746000, 382609296ull * 512, 4096, Op::kWrite, true),  // preflush + FUA
      R(7846000, 0, 0, Op::kFlush),
      R(7946000, 355493760ull * 512, 1384 * 512, Op::kTrim),
  };
  EXPECT_EQ(t.records, want);
  ASSERT_TRUE(t.max_outstanding.has_value());
  EXPECT_EQ(*t.max_outstanding, 1u);
  // insert, 2 issue, 2 complete, N, plug.
  EXPECT_EQ(t.ignored, 7u);
}

TEST(Perf, IssueWhenNoQueueEventsAndNanoseconds) {
  const Trace t = MustParse(
      "dd 1 [000] 10.000000100: block:block_rq_issue: 8,0 W 4096 () 8 + 8 [dd]\n"
      "dd 1 [000] 10.000000300: block:block_rq_issue: 8,0 FF 0 () 0 + 0 [dd]\n"
      "dd 1 [000] 10.000000400: block:block_rq_complete: 8,0 W () 8 + 8 [0]\n");
  const std::vector<Record> want = {R(0, 4096, 4096, Op::kWrite), R(200, 0, 0, Op::kFlush)};
  EXPECT_EQ(t.records, want);
}

TEST(Perf, DevicesAndErrors) {
  const std::string two =
      "a 1 [000] 1.000001: block:block_bio_queue: 8,0 R 0 + 8 [a]\n"
      "a 1 [000] 1.000002: block:block_bio_queue: 8,16 R 0 + 8 [a]\n";
  EXPECT_NE(ErrorOf(two).find("(8,0, 8,16)"), std::string::npos);
  const Trace t = MustParse(two, Format::kPerf, "8,16");
  EXPECT_EQ(t.records.size(), 1u);
  EXPECT_EQ(t.filtered, 1u);
  ParseOptions every;
  every.every_device = true;
  auto all = ParseTrace(two, "t.txt", every);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->records.size(), 2u);
  EXPECT_EQ(ErrorOf("a 1 [000] 1.x: block:block_bio_queue: 8,0 R 0 + 8 [a]\n"),
            "t.txt:1: time '1.x:' is not SECONDS.FRACTION");
  EXPECT_EQ(ErrorOf("a 1 [000] 1.0: block:block_bio_queue: 8,0 Q 0 + 8 [a]\n"),
            "t.txt:1: RWBS flags 'Q' are not known");
  EXPECT_EQ(ErrorOf("a 1 [000] 1.0: block:block_bio_queue: 8,0 R 0x + 8 [a]\n"),
            "t.txt:1: sector '0x' is not a number");
  EXPECT_NE(ErrorOf("a 1 [000] 1.0: block:block_bio_queue: 8,0 R 0 + 99999999999 [a]\n")
                .find("4 GiB"),
            std::string::npos);
  EXPECT_NE(ErrorOf("a 1 [000] 1.0: block:block_bio_queue: 8,0 R 36028797018963968 + 8 [a]\n")
                .find("beyond 2^64"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("a 1 [000] 1.0: block:block_bio_queue: 8:0 R 0 + 8 [a]\n"),
            "t.txt:1: device '8:0' is not MAJ,MIN");
}

// ---- CSV ----

TEST(Alibaba, WithAndWithoutHeader) {
  for (std::string head : {"", "device_id,opcode,offset,length,timestamp\n"}) {
    const std::string data = head +
                             "419,W,8792731648,16384,1577808144360767\n"
                             "419,R,4096,4096,1577808144360700\n";
    EXPECT_EQ(SniffFormat(data), Format::kAlibaba);
    const Trace t = MustParse(data);
    const std::vector<Record> want = {R(0, 4096, 4096, Op::kRead),
                                      R(67000, 8792731648ull, 16384, Op::kWrite)};
    EXPECT_EQ(t.records, want);
  }
  const std::string two = "1,R,0,512,10\n2,W,0,512,11\n3,W,0,512,12\n";
  const std::string err = ErrorOf(two);
  EXPECT_EQ(err, "t.txt: the trace has records of several devices (1, 2, 3): pick one with "
                 "trace_device=DEVICE_ID");
  EXPECT_EQ(MustParse(two, Format::kAlibaba, "2").records.size(), 1u);
  EXPECT_EQ(ErrorOf("1,R,0,512,10\n1,R,12x,512,10\n"), "t.txt:2: offset '12x' is not a number");
  EXPECT_NE(ErrorOf("1,R,0,4294967296,10\n").find("t.txt:1: length"), std::string::npos);
  EXPECT_EQ(ErrorOf("1,R,0,512,10\n1,X,0,512,10\n"), "t.txt:2: opcode 'X' is not R or W");
  EXPECT_EQ(ErrorOf("1,R,0,512,10\n1,R,0,512\n", Format::kAlibaba).rfind("t.txt:2: expected 5", 0),
            0u);
  // Times far apart: beyond int64 nanoseconds.
  EXPECT_NE(ErrorOf("1,R,0,512,-9223372036854775807\n1,R,0,512,9223372036854775807\n")
                .find("too far"),
            std::string::npos);
}

TEST(Tencent, SecondsAndSectors) {
  const std::string data =
      "1538323200,12910952,128,0,1063\n"
      "1538323200,100,8,1,1063\n"
      "1538323201,0,16,1,1063\n"
      "1538323200,5,1,0,1063\n";
  EXPECT_EQ(SniffFormat(data), Format::kTencent);
  const Trace t = MustParse(data);
  // Within a second: the file's order.
  const std::vector<Record> want = {
      R(0, 12910952ull * 512, 65536, Op::kRead), R(0, 51200, 4096, Op::kWrite),
      R(0, 2560, 512, Op::kRead), R(1000000000, 0, 8192, Op::kWrite)};
  EXPECT_EQ(t.records, want);
  EXPECT_EQ(ErrorOf("Timestamp,Offset,Size,IOType,VolumeID\n1,2,3,4,5\n", Format::kTencent),
            "t.txt:2: IOType '4' is not 0 (read) or 1 (write)");
  EXPECT_NE(ErrorOf("1,36028797018963968,1,0,1\n", Format::kTencent).find("beyond 2^64"),
            std::string::npos);
  EXPECT_NE(ErrorOf("1,0,8388608,0,1\n", Format::kTencent).find("above 4 GiB"), std::string::npos);
  EXPECT_NE(ErrorOf("1,0,1,0,1\n1,0,1,0,2\n").find("trace_device=VOLUME_ID"), std::string::npos);
}

TEST(Msr, FiletimeResponseTimesAndDevices) {
  const std::string data =
      "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
      "128166372003061629,hm,1,Read,3154152448,4096,3092\n"
      "128166372003061729,hm,1,Write,3154156544,512,50\n"
      "128166372016382155,hm,0,Write,0,4096,100\n";
  EXPECT_EQ(SniffFormat(data), Format::kMsr);
  EXPECT_NE(ErrorOf(data).find("(hm,1, hm,0)"), std::string::npos);
  const Trace t = MustParse(data, Format::kAuto, "hm,1");
  const std::vector<Record> want = {R(0, 3154152448ull, 4096, Op::kRead),
                                    R(10000, 3154156544ull, 512, Op::kWrite)};
  EXPECT_EQ(t.records, want);
  EXPECT_EQ(t.filtered, 1u);
  ASSERT_TRUE(t.max_outstanding.has_value());
  EXPECT_EQ(*t.max_outstanding, 2u);
  const Trace t0 = MustParse(data, Format::kMsr, "hm");  // disk 0
  EXPECT_EQ(t0.records.size(), 1u);
  EXPECT_EQ(ErrorOf("1,h,0,Read,0,1,x\n", Format::kMsr), "t.txt:1: response time 'x' is not a number");
  EXPECT_EQ(ErrorOf("1,h,0,Erase,0,1,1\n", Format::kMsr), "t.txt:1: Type 'Erase' is not Read or Write");
  EXPECT_NE(ErrorOf("1,h,0,Read,0,1,9223372036854775807\n", Format::kMsr).find("out of range"),
            std::string::npos);
}

TEST(Csv, SkipBad) {
  ParseOptions o;
  o.skip_bad = true;
  auto t = ParseTrace("1,R,0,512,10\n1,R,x,512,10\n1,R,0,512\n1,W,0,512,11\n", "t", o);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->records.size(), 2u);
  EXPECT_EQ(t->bad, 2u);
}

// ---- sniffing ----

TEST(Sniff, EachFormatAndAmbiguity) {
  EXPECT_EQ(SniffFormat("fio version 2 iolog\nf add\n"), Format::kIologV2);
  EXPECT_EQ(SniffFormat("fio version 3 iolog\r\n1 f add\n"), Format::kIologV3);
  EXPECT_EQ(SniffFormat(kPerf), Format::kPerf);
  EXPECT_EQ(SniffFormat("1,R,0,512,10\n"), Format::kAlibaba);
  EXPECT_EQ(SniffFormat("1,0,8,1,v\n"), Format::kTencent);
  EXPECT_EQ(SniffFormat("1,h,0,Write,0,1,1\n"), Format::kMsr);
  EXPECT_EQ(SniffFormat(""), Format::kAuto);
  EXPECT_EQ(SniffFormat("hello\nworld\n"), Format::kAuto);
  // Lines of two formats.
  EXPECT_EQ(SniffFormat("1,R,0,512,10\n1,0,8,1,v\n"), Format::kAuto);
  const std::string err = ErrorOf("1,R,0,512,10\n1,0,8,1,v\n");
  EXPECT_NE(err.find("trace_format="), std::string::npos) << err;
  EXPECT_NE(err.find("alibaba, tencent, msr"), std::string::npos) << err;
}

// ---- no crash on odd input ----

TEST(Robustness, OddInputsGiveErrorsNotCrashes) {
  const std::string inputs[] = {
      std::string("\0\0\0", 3), std::string(47, '\x07'), "fio version 3 iolog",
      "fio version 2 iolog\n\xff\xfe read 1 1\n", ",,,,\n", ",,,,,,\n",
      "block:block_bio_queue:", " block:block_rq_issue: 8,0 W\n", "1.0: block:block_",
  };
  for (const std::string& in : inputs) {
    for (Format f : {Format::kAuto, Format::kIologV2, Format::kIologV3, Format::kBlktrace,
                     Format::kPerf, Format::kAlibaba, Format::kTencent, Format::kMsr}) {
      ParseOptions o;
      o.format = f;
      auto t = ParseTrace(in, "odd", o);
      if (!t.ok()) {
        EXPECT_EQ(t.error().message.rfind("odd", 0), 0u) << t.error().message;
      }
    }
  }
}

// ---- --trace-info statistics ----

TEST(Info, Counts) {
  Trace t;
  t.format = Format::kIologV2;
  t.records = {R(0, 0, 4096, Op::kRead),           R(500000000, 4096, 4096, Op::kRead),
               R(1500000000, 0, 8192, Op::kWrite, true), R(1500000000, 0, 0, Op::kFlush),
               R(2500000000, 1 << 20, 512, Op::kTrim)};
  t.files = {"f"};
  t.ignored = 2;
  const TraceInfo in = ComputeInfo(t, "x.log");
  EXPECT_EQ(in.ios, 5u);
  EXPECT_EQ(in.ops[0].count, 2u);
  EXPECT_EQ(in.ops[1].bytes, 8192u);
  EXPECT_EQ(in.fua, 1u);
  EXPECT_EQ(in.sizes[12], 2u);  // 4096
  EXPECT_EQ(in.sizes[13], 1u);  // 8192
  EXPECT_EQ(in.sizes[9], 1u);   // 512
  EXPECT_EQ(in.footprint_bytes, 3u * 4096);
  EXPECT_EQ(in.max_end, (1u << 20) + 512u);
  EXPECT_DOUBLE_EQ(in.sequential, 1.0 / 4);  // the second read
  EXPECT_DOUBLE_EQ(in.iops.max, 2);
  EXPECT_DOUBLE_EQ(in.iops.min, 1);
  EXPECT_DOUBLE_EQ(in.iops.mean, 5.0 / 3);
  EXPECT_EQ(in.iops_series, (std::vector<double>{2, 2, 1}));
  ASSERT_TRUE(in.interarrival_ns.has_value());
  EXPECT_EQ(in.interarrival_ns->min, 0);
  EXPECT_EQ(in.interarrival_ns->max, 1000000000);
  const std::string text = RenderText(in);
  EXPECT_NE(text.find("x.log: format=iolog2, ios=5"), std::string::npos) << text;
  EXPECT_NE(text.find("fua=1"), std::string::npos) << text;
  const std::string json = RenderJson(in);
  EXPECT_NE(json.find("\"footprint_bytes\": 12288"), std::string::npos) << json;
}

TEST(Info, LongSpansKeepTheSeriesShort) {
  Trace t;
  t.records = {R(0, 0, 512, Op::kRead), R(INT64_MAX, 0, 512, Op::kRead)};
  const TraceInfo in = ComputeInfo(t, "x");
  EXPECT_LE(in.iops_series.size(), TraceInfo::kSeriesPoints);
  EXPECT_EQ(in.iops.min, 0);
}

}  // namespace
}  // namespace blk::bench::trace
