// The engine's persistent workers (simt/engine/worker_pool.h): every worker index runs once per
// job, jobs follow each other without losing or repeating work, dispatches from several host
// threads and from inside a worker complete, and idle workers sleep instead of spinning.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "simt/engine/worker_pool.h"

namespace metalsim::engine {
namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

TEST(WorkerPool, EveryWorkerIndexRunsOncePerJob) {
  for (int workers : {1, 2, 3, 8, 5, 16, 1, 4}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(workers));
    WorkerPool::shared().run(workers, [&](int w) { runs[size_t(w)].fetch_add(1); });
    for (int w = 0; w < workers; ++w) EXPECT_EQ(runs[size_t(w)].load(), 1) << w << "/" << workers;
  }
}

// Work handed out from one counter, as dispatch hands out threadgroups: every item once.
TEST(WorkerPool, ThousandsOfJobsInARowLoseNothing) {
  for (int job = 0; job < 3000; ++job) {
    const int workers = 1 + job % 4;
    const uint64_t items = uint64_t(job % 37);
    std::atomic<uint64_t> next{0}, sum{0};
    WorkerPool::shared().run(workers, [&](int) {
      for (uint64_t i; (i = next.fetch_add(1)) < items;) sum.fetch_add(i + 1);
    });
    ASSERT_EQ(sum.load(), items * (items + 1) / 2) << "job " << job;
  }
}

TEST(WorkerPool, DispatchesFromSeveralHostThreadsAllComplete) {
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> hosts;
  for (int h = 0; h < 4; ++h)
    hosts.emplace_back([&] {
      for (int job = 0; job < 200; ++job)
        WorkerPool::shared().run(3, [&](int) { total.fetch_add(1); });
    });
  for (std::thread& t : hosts) t.join();
  EXPECT_EQ(total.load(), 4u * 200u * 3u);
}

// A job started from inside a worker runs there, alone, instead of waiting for the pool it holds.
TEST(WorkerPool, AJobFromInsideAWorkerRunsInline) {
  std::atomic<int> inner{0};
  WorkerPool::shared().run(2, [&](int) {
    WorkerPool::shared().run(4, [&](int w) {
      EXPECT_EQ(w, 0);
      inner.fetch_add(1);
    });
  });
  EXPECT_EQ(inner.load(), 2);
}

// After a short spin the workers sleep: the process burns (almost) no CPU while idle.
TEST(WorkerPool, IdleWorkersSleep) {
  WorkerPool::shared().run(8, [](int) {});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the spin
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double used = process_cpu_seconds() - before;
  EXPECT_LT(used, 0.02) << used << " s of CPU while idle for 0.2 s with "
                        << WorkerPool::shared().threads() << " workers";
}

}  // namespace
}  // namespace metalsim::engine
