// Many loops on many threads at once, each with its own file driver
// instance (its own AIO context), on one shared file.
#include <atomic>
#include <cstring>
#include <random>

#include "tests/block/file/file_test_util.h"
#include <blkstack/util/iothread.h>

namespace blk::test {
namespace {

constexpr int kThreads = 4;
constexpr int kBlocksPerThread = 64;
constexpr int kRounds = 300;

// Random writes and read-backs in this thread's own region, 8 in parallel.
Task<void> Worker(BlockBackend& b, int t, std::atomic<int>* errors) {
  WaitGroup wg(b.ctx());
  for (int lane = 0; lane < 8; lane++) {
    wg.add();
    SpawnNow([](BlockBackend& b, int t, int lane, std::atomic<int>* errors,
                WaitGroup* wg) -> Task<void> {
      std::mt19937 rng(t * 100 + lane);
      AlignedBuffer w(4096), r(4096);
      for (int i = 0; i < kRounds / 8; i++) {
        // Lanes own disjoint blocks so their read-backs cannot race.
        uint64_t blk = uint64_t(t) * kBlocksPerThread + lane * 8 + rng() % 8;
        for (int k = 0; k < 4096; k++) w.data()[k] = uint8_t(rng());
        IoVec wv(w.data(), 4096), rv(r.data(), 4096);
        Status s = co_await b.write(blk * 4096, wv);
        if (s.ok()) s = co_await b.read(blk * 4096, rv);
        if (!s.ok() || memcmp(w.data(), r.data(), 4096) != 0) (*errors)++;
      }
      wg->done();
    }(b, t, lane, errors, &wg));
  }
  co_await wg.wait();
}

void RunThreads(const std::string& opts) {
  TempFile f(uint64_t(kThreads) * kBlocksPerThread * 4096);
  std::vector<std::unique_ptr<IOThread>> threads;
  std::vector<std::unique_ptr<BlockBackend>> backends(kThreads);
  for (int t = 0; t < kThreads; t++) {
    threads.push_back(std::make_unique<IOThread>("file-test"));
    threads[t]->run_sync([&, t] {
      backends[t] = Open(threads[t]->ctx(), "driver=file,filename=" + f.path() + "," + opts);
    });
    ASSERT_TRUE(backends[t]);
  }
  std::atomic<int> errors{0};
  std::atomic<int> done{0};
  for (int t = 0; t < kThreads; t++) {
    Spawn(threads[t]->ctx(), [](BlockBackend& b, int t, std::atomic<int>* errors,
                                std::atomic<int>* done) -> Task<void> {
      co_await Worker(b, t, errors);
      done->fetch_add(1);
    }(*backends[t], t, &errors, &done));
  }
  while (done.load() < kThreads) usleep(1000);
  EXPECT_EQ(errors.load(), 0);
  for (int t = 0; t < kThreads; t++) {
    threads[t]->run_sync([&, t] {
      const NodeStats& st = backends[t]->stats();
      EXPECT_EQ(st.op[int(IoOp::kRead)].ops + st.op[int(IoOp::kWrite)].ops,
                uint64_t(2 * (kRounds / 8) * 8));
      backends[t].reset();
    });
  }
}

TEST(FileThreadsTest, NativeOnManyIOThreads) {
  RunThreads("aio=native,cache.direct=on");
}

TEST(FileThreadsTest, NativeNoPeekOnManyIOThreads) {
  RunThreads("aio=native,cache.direct=on,peek-after-submit=off");
}

TEST(FileThreadsTest, IoUringOnManyIOThreads) {
  RunThreads("aio=io_uring,cache.direct=on");
}

TEST(FileThreadsTest, IoUringSqpollRegisteredFileOnManyIOThreads) {
  RunThreads("aio=io_uring,cache.direct=on,aio-sqpoll=on,aio-register-file=on");
}

TEST(FileThreadsTest, ThreadPoolOnManyIOThreads) {
  RunThreads("aio=threads,thread-pool-size=4");
}

}  // namespace
}  // namespace blk::test
