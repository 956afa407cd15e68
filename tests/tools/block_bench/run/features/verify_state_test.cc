// fio's verify state file (run/features/verify_state.h): the bytes fio 3.33
// writes, the round trip, the errors, the completion ring and the stop rule.
#include "tools/block_bench/run/features/verify_state.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace blk::bench {
namespace {

// fio 3.33's state after `fio --name=w --rw=write --bs=4k --verify=crc32c
// --ioengine=psync --number_ios=16` (168-byte list, crc32c 0x9f1de9c4).
VerifyState SixteenWrites() {
  VerifyState s;
  s.depth = 1;
  s.nofiles = 1;
  s.numberio = 16;
  s.index = 0;
  s.name = "w";
  s.comps = {{0, 61440}};
  return s;
}

TEST(VerifyStateTest, BytesAreFios) {
  const std::vector<uint8_t> b = EncodeVerifyState(SixteenWrites());
  ASSERT_EQ(b.size(), 24u + 168u);
  EXPECT_EQ(b[0], 3);     // version
  EXPECT_EQ(b[8], 0xa8);  // size
  EXPECT_EQ(b[16], 0xc4);
  EXPECT_EQ(b[17], 0xe9);
  EXPECT_EQ(b[18], 0x1d);
  EXPECT_EQ(b[19], 0x9f);
  EXPECT_EQ(b[24 + 88], 'w');
  EXPECT_EQ(b[24 + 152 + 9], 0xf0);  // offset 61440 = 0xf000
}

TEST(VerifyStateTest, RoundTrip) {
  VerifyState s = SixteenWrites();
  s.depth = 8;
  s.nofiles = 2;
  s.index = 5;
  s.name = std::string(80, 'n');  // fio keeps 63 bytes
  s.comps = {{1, 8192}, {0, 4096}};
  auto d = DecodeVerifyState(EncodeVerifyState(s));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->depth, 8u);
  EXPECT_EQ(d->nofiles, 2u);
  EXPECT_EQ(d->numberio, 16u);
  EXPECT_EQ(d->index, 5u);
  EXPECT_EQ(d->name, std::string(63, 'n'));
  EXPECT_EQ(d->comps, s.comps);
}

TEST(VerifyStateTest, BadFilesAreRefused) {
  std::vector<uint8_t> b = EncodeVerifyState(SixteenWrites());
  std::vector<uint8_t> c = b;
  c[40] ^= 1;
  auto d = DecodeVerifyState(c);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("corrupt"), std::string::npos) << d.error().message;
  c = b;
  c[0] = 2;
  d = DecodeVerifyState(c);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("version 2"), std::string::npos) << d.error().message;
  c = b;
  c.pop_back();
  EXPECT_FALSE(DecodeVerifyState(c).ok());
  EXPECT_FALSE(DecodeVerifyState({}).ok());
}

TEST(VerifyStateTest, SaveAndLoad) {
  const char* dir = std::getenv("TEST_TMPDIR");
  ASSERT_NE(dir, nullptr);
  const std::string path = VerifyStatePath(dir, "job", 3);
  EXPECT_EQ(path, std::string(dir) + "/local-job-3-verify.state");
  ASSERT_TRUE(SaveVerifyState(path, SixteenWrites()).ok());
  auto l = LoadVerifyState(path);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->comps, SixteenWrites().comps);
  auto missing = LoadVerifyState(path + ".none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, -ENOENT);
  EXPECT_NE(missing.error().message.find("local-job-3-verify.state.none"), std::string::npos);
}

TEST(VerifyStateTest, LogKeepsTheLastCompletionsPerFile) {
  VerifyStateLog log(4, 2);
  for (uint64_t i = 0; i < 6; i++) {
    log.issued();
    log.completed(0, i * 4096);
  }
  log.issued();  // in flight at the end: counted, not an entry
  const VerifyState s = log.snapshot("j", 1);
  EXPECT_EQ(s.numberio, 7u);
  EXPECT_EQ(s.depth, 4u);
  EXPECT_EQ(s.nofiles, 2u);
  // The latest first; file 1 never completed a write: fio's zero entries.
  const std::vector<VerifyStateEntry> want = {{0, 20480}, {0, 16384}, {0, 12288}, {0, 8192},
                                              {1, 0},     {1, 0},     {1, 0},     {1, 0}};
  EXPECT_EQ(s.comps, want);
  VerifyStateLog two(4, 1);
  two.completed(0, 4096);
  two.completed(0, 0);
  EXPECT_EQ(two.snapshot("j", 0).comps, (std::vector<VerifyStateEntry>{{0, 0}, {0, 4096}}));
}

TEST(VerifyStateTest, StopsWhereTheWritesStopped) {
  const VerifyState s = SixteenWrites();
  for (uint64_t r = 0; r < 15; r++) EXPECT_FALSE(VerifyStateShouldStop(s, r, 0, r * 4096)) << r;
  EXPECT_FALSE(VerifyStateShouldStop(s, 15, 0, 61440));
  EXPECT_TRUE(VerifyStateShouldStop(s, 15, 0, 65536));
  EXPECT_TRUE(VerifyStateShouldStop(s, 16, 0, 65536));
  EXPECT_TRUE(VerifyStateShouldStop(s, 15, 1, 61440));  // another file
  // numberio <= depth: every read is inside the window.
  VerifyState few = s;
  few.numberio = 1;
  EXPECT_TRUE(VerifyStateShouldStop(few, 0, 0, 0));
  EXPECT_FALSE(VerifyStateShouldStop(few, 0, 0, 61440));
}

}  // namespace
}  // namespace blk::bench
