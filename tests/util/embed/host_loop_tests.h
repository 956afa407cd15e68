// Tests shared by the host-loop adapters.  Each test file defines a `Host`
// type with: Host(); void attach(AioContext&); void detach(AioContext&);
// void run_once();  (one blocking iteration of the host loop)
#pragma once

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/aligned_buffer.h>
#include <blkstack/util/clock.h>

namespace blk::embed_test {

template <class Host, class Pred>
bool RunHostUntil(Host& host, Pred done, int64_t timeout_ns = 10'000'000'000) {
  int64_t start = NowNs();
  while (!done()) {
    if (NowNs() - start > timeout_ns) return false;
    host.run_once();
  }
  return true;
}

inline Task<void> ReadWriteVerify(BlockBackend& b, uint64_t off, int* ok, int* done) {
  std::vector<uint8_t> out(4096), in(4096);
  for (size_t i = 0; i < out.size(); i++) out[i] = uint8_t(off + i * 7);
  IoVec oi(out.data(), out.size()), ii(in.data(), in.size());
  Status s = co_await b.write(off, oi);
  if (s.ok()) s = co_await b.read(off, ii);
  if (s.ok()) (*ok)++;
  (*done)++;
}

template <class Host>
void IoCompletesUnderHost() {
  Host host;
  AioContext ctx;
  host.attach(ctx);
  auto blk = OpenBackend(ctx, "driver=null,size=64M,read-zeroes=on");
  ASSERT_TRUE(blk.ok());
  int ok = 0, done = 0;
  for (int i = 0; i < 64; i++) Spawn(ctx, ReadWriteVerify(**blk, uint64_t(i) * 4096, &ok, &done));
  ASSERT_TRUE(RunHostUntil(host, [&] { return done == 64; }));
  EXPECT_EQ(ok, 64);
  host.detach(ctx);
}

// Writes a pattern, reads it back through the device and compares bytes.
inline Task<void> WriteReadCompare(BlockBackend& b, uint64_t off, int* ok, int* done) {
  AlignedBuffer out(4096), in(4096);
  for (size_t i = 0; i < 4096; i++) out.data()[i] = uint8_t((off >> 12) + i * 13);
  std::memset(in.data(), 0, 4096);
  IoVec oi = out.iov(), ii = in.iov();
  Status s = co_await b.write(off, oi);
  if (s.ok()) s = co_await b.read(off, ii);
  if (s.ok() && std::memcmp(in.data(), out.data(), 4096) == 0) (*ok)++;
  (*done)++;
}

// The file driver with Linux native AIO and O_DIRECT on a real temporary
// file: data written under the host loop reads back intact.
template <class Host>
void FileDriverIoUnderHost(const char* aio) {
  char path[] = "/tmp/blkstack-embed-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 16 << 20), 0);
  close(fd);
  Host host;
  AioContext ctx;
  host.attach(ctx);
  std::string spec = std::string("driver=file,filename=") + path + ",aio=" + aio +
                     (std::string(aio) == "native" ? ",cache.direct=on" : "");
  auto blk = OpenBackend(ctx, spec);
  ASSERT_TRUE(blk.ok()) << blk.error().message;
  int ok = 0, done = 0;
  for (int i = 0; i < 64; i++) {
    Spawn(ctx, WriteReadCompare(**blk, uint64_t(i) * 65536, &ok, &done));
  }
  ASSERT_TRUE(RunHostUntil(host, [&] { return done == 64; }));
  EXPECT_EQ(ok, 64);
  blk->reset();
  host.detach(ctx);
  unlink(path);
}

template <class Host>
void TimersFireUnderHost() {
  Host host;
  AioContext ctx;
  host.attach(ctx);
  bool fired = false;
  int64_t t0 = NowNs();
  Timer t(ctx, [&] { fired = true; });
  t.arm_in(5'000'000);
  ASSERT_TRUE(RunHostUntil(host, [&] { return fired; }));
  EXPECT_GE(NowNs() - t0, 5'000'000);
  auto blk = OpenBackend(ctx, "driver=null,latency-ns=3000000");
  ASSERT_TRUE(blk.ok());
  int ok = 0, done = 0;
  Spawn(ctx, ReadWriteVerify(**blk, 0, &ok, &done));
  ASSERT_TRUE(RunHostUntil(host, [&] { return done == 1; }));
  EXPECT_EQ(ok, 1);
  EXPECT_GE(NowNs() - t0, 5'000'000 + 6'000'000);
  host.detach(ctx);
}

template <class Host>
void ManyContextsOnOneHost() {
  Host host;
  constexpr int kN = 8;
  std::vector<std::unique_ptr<AioContext>> ctxs;
  std::vector<std::unique_ptr<BlockBackend>> blks;
  int ok = 0, done = 0;
  for (int i = 0; i < kN; i++) {
    ctxs.push_back(std::make_unique<AioContext>());
    host.attach(*ctxs.back());
    auto b = OpenBackend(*ctxs.back(), "driver=null,latency-ns=100000");
    ASSERT_TRUE(b.ok());
    blks.push_back(std::move(b.value()));
    for (int j = 0; j < 16; j++) Spawn(*ctxs.back(), ReadWriteVerify(*blks.back(), j * 4096, &ok, &done));
  }
  ASSERT_TRUE(RunHostUntil(host, [&] { return done == kN * 16; }));
  EXPECT_EQ(ok, kN * 16);
  blks.clear();
  for (auto& c : ctxs) host.detach(*c);
}

template <class Host>
void DetachWithIoInFlightThenDriveNatively() {
  Host host;
  AioContext ctx;
  host.attach(ctx);
  auto blk = OpenBackend(ctx, "driver=null,latency-ns=20000000");
  ASSERT_TRUE(blk.ok());
  int ok = 0, done = 0;
  for (int i = 0; i < 8; i++) Spawn(ctx, ReadWriteVerify(**blk, i * 4096, &ok, &done));
  host.run_once();  // requests start and wait on their timers
  EXPECT_EQ(done, 0);
  EXPECT_GT((*blk)->root().in_flight(), 0);
  host.detach(ctx);
  // The host no longer drives it; the native loop finishes the requests.
  ctx.bind_to_current_thread();
  int64_t start = NowNs();
  while (done < 8 && NowNs() - start < 10'000'000'000) ctx.run_once(true);
  EXPECT_EQ(done, 8);
  EXPECT_EQ(ok, 8);
  RunSync(ctx, (*blk)->drain());
  EXPECT_EQ((*blk)->root().in_flight(), 0);
}

}  // namespace blk::embed_test
