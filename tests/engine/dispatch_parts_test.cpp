// Parts of a dispatch's set-up (simt/engine): the threadgroup locator gives every threadgroup the
// position and size DispatchGeometry gives it, and the process-wide watchdog fires for the
// dispatch whose limit ran out, on time, and never for one disarmed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "simt/engine/dispatch_state.h"
#include "simt/engine/watchdog.h"

namespace metalsim::engine {
namespace {

// The reference: DispatchGeometry's own functions, one threadgroup at a time.
void expect_locator_matches(const abi::DispatchGeometry& g) {
  const ThreadgroupLocator locate(g);
  for (uint64_t linear = 0; linear < g.threadgroups.volume(); ++linear) {
    const ThreadgroupPlace place = locate(linear);
    const Size3 position = g.threadgroup_position(linear);
    ASSERT_EQ(place.position, position) << "threadgroup " << linear;
    ASSERT_EQ(place.size, g.threadgroup_size_at(position)) << "threadgroup " << linear;
  }
}

TEST(ThreadgroupLocator, MatchesTheGeometryOnRandomGrids) {
  std::mt19937 rng(20261128);
  auto below = [&](uint32_t n) { return 1 + uint32_t(rng() % n); };
  for (int i = 0; i < 300; ++i) {
    const Size3 tg{below(64), below(8), below(4)};
    // One grid in three one-dimensional (the locator's path without division).
    const bool one_dimensional = i % 3 == 0;
    const Size3 threads{below(700), one_dimensional ? tg.y : below(90),
                        one_dimensional ? tg.z : below(20)};
    expect_locator_matches(abi::DispatchGeometry::for_threads(threads, tg));
    const Size3 groups{below(40), one_dimensional ? 1 : below(9), one_dimensional ? 1 : below(5)};
    expect_locator_matches(abi::DispatchGeometry::for_threadgroups(groups, tg));
  }
}

bool becomes_true(const std::atomic<bool>& flag, std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A short limit armed while the watchdog's thread sleeps to a far deadline wakes it.
TEST(Watchdog, AShortLimitFiresWhileALongOneIsArmed) {
  std::atomic<bool> stop_long{false}, stop_short{false};
  Watchdog long_limit(stop_long, 100.0, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the thread sleeps to +100 s
  const auto armed = std::chrono::steady_clock::now();
  Watchdog short_limit(stop_short, 0.05, 1);
  ASSERT_TRUE(becomes_true(stop_short, std::chrono::seconds(5)));
  EXPECT_GE(std::chrono::steady_clock::now() - armed, std::chrono::milliseconds(50));
  EXPECT_TRUE(short_limit.fired());
  EXPECT_FALSE(stop_long.load());
  EXPECT_FALSE(long_limit.fired());
}

// Dispatches that end within their limits, one after another, are never stopped, and one
// disarmed is never touched afterwards.
TEST(Watchdog, NeverFiresForADisarmedDispatch) {
  std::vector<std::unique_ptr<std::atomic<bool>>> stops;
  for (int i = 0; i < 2000; ++i) {
    stops.push_back(std::make_unique<std::atomic<bool>>(false));
    Watchdog w(*stops.back(), 0.03, 2);
  }
  std::atomic<bool> stop{false};
  {
    Watchdog w(stop, 0.03, 1);
    w.disarm();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(w.fired());
  }
  EXPECT_FALSE(stop.load());
  for (const auto& s : stops) EXPECT_FALSE(s->load());
}

size_t threads_in_process() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    (void)entry;
    ++n;
  }
  return n;
}

// One watchdog thread for the process, however many dispatches arm it.
TEST(Watchdog, OneThreadServesEveryDispatch) {
  std::atomic<bool> stop{false};
  {
    Watchdog first(stop, 10.0, 1);
  }  // the thread exists from here on
  const size_t before = threads_in_process();
  for (int i = 0; i < 500; ++i) Watchdog w(stop, 10.0, 1);
  EXPECT_EQ(threads_in_process(), before);
  EXPECT_FALSE(stop.load());
}

}  // namespace
}  // namespace metalsim::engine
