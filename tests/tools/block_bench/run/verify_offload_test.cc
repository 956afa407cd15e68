// VerifyOffload (run/verify_offload.h) with real threads and a real loop:
// the function runs on a verify thread, bound to verify_async_cpus, and
// the caller resumes on its own loop with the result; concurrent calls
// spread over the threads; CPUs the machine lacks are refused naming the
// option; the threads' CPU time is added to the clone's.
#include "tools/block_bench/run/verify_offload.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "tests/tools/block_bench/run/hold_driver.h"
#include <blkstack/util/task.h>

namespace blk::bench {
namespace {

using testing::Settle;

// Runs v.run(ctx, fn) to completion on ctx (the test's thread).
std::string RunOne(VerifyOffload& v, AioContext& ctx, std::function<std::string()> fn) {
  return blk::RunSync(ctx, v.run(ctx, std::move(fn)));
}

TEST(VerifyOffload, TheFunctionRunsOnAVerifyThreadAndTheCallerResumesHome) {
  AioContext ctx;
  auto v = VerifyOffload::Start("t", 1, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  const pthread_t me = pthread_self();
  std::atomic<bool> elsewhere{false};
  char name[16] = {};
  const std::string r = RunOne(**v, ctx, [&] {
    elsewhere = !pthread_equal(pthread_self(), me);
    pthread_getname_np(pthread_self(), name, sizeof name);
    return std::string("verdict");
  });
  EXPECT_EQ(r, "verdict");
  EXPECT_TRUE(elsewhere.load());
  EXPECT_STREQ(name, "t-verify0");
  EXPECT_TRUE(ctx.in_loop_thread());
}

TEST(VerifyOffload, ConcurrentCallsGoToTheLeastBusyThread) {
  AioContext ctx;
  auto v = VerifyOffload::Start("t", 3, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  VerifyOffload& off = **v;
  std::vector<std::string> got(6);
  std::set<std::string> threads;
  std::mutex mu;
  int done = 0;
  const auto call = [&](int i) -> Task<void> {
    got[i] = co_await off.run(ctx, [&, i] {
      char name[16] = {};
      pthread_getname_np(pthread_self(), name, sizeof name);
      std::lock_guard<std::mutex> l(mu);
      threads.insert(name);
      return std::to_string(i);
    });
    EXPECT_TRUE(ctx.in_loop_thread());
    done++;
  };
  // Six calls issued before any returns: two per thread.
  for (int i = 0; i < 6; i++) SpawnNow(call(i));
  while (done < 6) ctx.run_once(true);
  for (int i = 0; i < 6; i++) EXPECT_EQ(got[i], std::to_string(i));
  for (uint32_t t = 0; t < 3; t++) EXPECT_EQ(off.calls(t), 2u) << "thread " << t;
  EXPECT_EQ(threads, (std::set<std::string>{"t-verify0", "t-verify1", "t-verify2"}));
  // Done one at a time, they all go to the first (each finds it idle).
  for (int i = 0; i < 3; i++) RunOne(off, ctx, [] { return std::string(); });
  EXPECT_EQ(off.calls(0), 5u);
}

TEST(VerifyOffload, TheThreadsAreBoundToVerifyAsyncCpus) {
  AioContext ctx;
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  uint32_t last = 0;
  for (uint32_t c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &mine)) last = c;
  auto v = VerifyOffload::Start("t", 2, {last});
  ASSERT_TRUE(v.ok()) << v.error().message;
  for (int i = 0; i < 2; i++) {
    const std::string cpus = RunOne(**v, ctx, [] {
      cpu_set_t s;
      sched_getaffinity(0, sizeof s, &s);
      std::string out;
      for (uint32_t c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &s)) out += std::to_string(c) + ",";
      return out;
    });
    EXPECT_EQ(cpus, std::to_string(last) + ",");
  }
  // The caller's thread is not bound by it.
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof after, &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&after, &mine));
}

TEST(VerifyOffload, ACpuTheMachineLacksIsRefusedNamingTheOption) {
  const long n = sysconf(_SC_NPROCESSORS_CONF);
  auto v = VerifyOffload::Start("t", 2, {uint32_t(n)});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code, -EINVAL);
  EXPECT_NE(v.error().message.find("verify_async_cpus (" + std::to_string(n) +
                                   "): cannot run the verify threads there"),
            std::string::npos)
      << v.error().message;
}

TEST(VerifyOffload, TheThreadsCpuTimeIsAddedToTheClones) {
  AioContext ctx;
  auto v = VerifyOffload::Start("t", 1, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  // Burn some CPU on the verify thread (a loop the compiler keeps).
  RunOne(**v, ctx, [] {
    rusage ru0, ru1;
    getrusage(RUSAGE_THREAD, &ru0);
    volatile uint64_t x = 0;
    do {
      for (int i = 0; i < 1000000; i++) x = x + uint64_t(i);
      getrusage(RUSAGE_THREAD, &ru1);
    } while (ru1.ru_utime.tv_sec * 1000000 + ru1.ru_utime.tv_usec -
                 (ru0.ru_utime.tv_sec * 1000000 + ru0.ru_utime.tv_usec) <
             20000);
    return std::string();
  });
  CloneResult r;
  (*v)->add_usage(&r);
  EXPECT_GE(r.usr_s, 0.02);
}

}  // namespace
}  // namespace blk::bench
