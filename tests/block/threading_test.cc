// Cross-thread use of a BlockBackend: the callback API posts from foreign
// threads, the coroutine API refuses them with -EXDEV, and move_to() moves a
// busy graph between I/O threads.  Run under TSan by scripts/test.sh.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include <blkstack/block/registry.h>
#include <blkstack/util/clock.h>
#include <blkstack/util/iothread.h>

namespace blk {
namespace {

struct CbState {
  std::atomic<int> done{0};
  std::atomic<int> errors{0};
  std::atomic<int> wrong_thread{0};
  pthread_t loop{};
};

void OnDone(void* opaque, int ret) {
  auto* st = static_cast<CbState*>(opaque);
  if (!pthread_equal(pthread_self(), st->loop)) st->wrong_thread++;
  if (ret != 0) st->errors++;
  st->done++;
}

TEST(ThreadingTest, CallbackApiFromForeignThreadsIsPostedToTheLoop) {
  IOThread io("io");
  std::unique_ptr<BlockBackend> blk;
  CbState st;
  io.run_sync([&] {
    auto b = OpenBackend(io.ctx(), "driver=null,size=64M,latency-ns=10000");
    ASSERT_TRUE(b.ok());
    blk = std::move(b.value());
    st.loop = pthread_self();
  });
  constexpr int kThreads = 4, kEach = 500;
  std::vector<std::vector<uint8_t>> bufs(kThreads, std::vector<uint8_t>(4096));
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; t++) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < kEach; i++) {
        blk->aio_read(uint64_t(i) * 4096, IoVec(bufs[t].data(), 4096), &OnDone, &st);
      }
    });
  }
  for (auto& t : ts) t.join();
  int64_t start = NowNs();
  while (st.done.load() < kThreads * kEach && NowNs() - start < 20'000'000'000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(st.done.load(), kThreads * kEach);
  EXPECT_EQ(st.errors.load(), 0);
  EXPECT_EQ(st.wrong_thread.load(), 0);
  io.run_sync([&] { blk.reset(); });
}

TEST(ThreadingTest, CoroutineApiFromAForeignThreadIsRefused) {
  IOThread io("io");
  std::unique_ptr<BlockBackend> blk;
  io.run_sync([&] {
    auto b = OpenBackend(io.ctx(), "driver=null");
    ASSERT_TRUE(b.ok());
    blk = std::move(b.value());
  });
  // This thread runs its own loop, not the backend's.
  AioContext mine;
  std::vector<uint8_t> buf(512);
  IoVec iov(buf.data(), buf.size());
  Status s = RunSync(mine, blk->read(0, iov));
  EXPECT_EQ(s.error(), -EXDEV);
  EXPECT_EQ(blk->stats()[IoOp::kRead].ops, 0u);  // nothing was touched
  io.run_sync([&] { blk.reset(); });
}

// A worker that keeps issuing reads, each time first hopping to whatever
// loop the backend is on now.
Task<void> Worker(BlockBackend* b, std::atomic<bool>* stop, std::atomic<int>* ok,
                  std::atomic<int>* bad, std::atomic<int>* live) {
  std::vector<uint8_t> buf(4096);
  IoVec iov(buf.data(), buf.size());
  while (!stop->load()) {
    co_await b->ctx().schedule();
    Status s = co_await b->read(0, iov);
    if (s.ok()) (*ok)++; else (*bad)++;
  }
  (*live)--;
}

TEST(ThreadingTest, MoveBusyBackendBetweenIoThreads) {
  IOThread a("io-a"), b("io-b");
  std::unique_ptr<BlockBackend> blk;
  a.run_sync([&] {
    auto o = OpenBackend(a.ctx(), "driver=null,latency-ns=50000");
    ASSERT_TRUE(o.ok());
    blk = std::move(o.value());
  });
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, bad{0}, live{8};
  for (int i = 0; i < 8; i++) Spawn(a.ctx(), Worker(blk.get(), &stop, &ok, &bad, &live));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  int before = ok.load();
  EXPECT_GT(before, 0);

  // Move a -> b, then b -> a, with the workers running.
  for (int round = 0; round < 4; round++) {
    IOThread& from = round % 2 ? b : a;
    IOThread& to = round % 2 ? a : b;
    std::promise<void> moved;
    auto mover = [](BlockBackend* blk, AioContext* dst, std::promise<void>* p) -> Task<void> {
      co_await blk->move_to(*dst);
      EXPECT_TRUE(dst->in_loop_thread());
      p->set_value();
    };
    Spawn(from.ctx(), mover(blk.get(), &to.ctx(), &moved));
    ASSERT_EQ(moved.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  int64_t start = NowNs();
  while (live.load() > 0 && NowNs() - start < 10'000'000'000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(live.load(), 0);
  EXPECT_GT(ok.load(), before);
  // A request that raced a move may be refused (-EXDEV) but none may fail
  // otherwise, and most must succeed.
  EXPECT_LT(bad.load(), 8 * 4 + 1);
  a.run_sync([&] { blk.reset(); });
}

}  // namespace
}  // namespace blk
