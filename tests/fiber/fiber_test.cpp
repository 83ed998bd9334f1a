#include "simt/fiber/fiber.h"

#include <gtest/gtest.h>

#include <vector>

namespace metalsim::fiber {
namespace {

struct PingPong {
  Fiber fiber;
  std::vector<int> trace;
  static void body(void* p) {
    auto* self = static_cast<PingPong*>(p);
    for (int i = 0; i < 3; ++i) {
      self->trace.push_back(i);
      self->fiber.suspend();
    }
  }
};

TEST(Fiber, ResumeAndSuspendAlternate) {
  StackPool pool(64 * 1024);
  PingPong p;
  p.fiber.start(pool.acquire(), &PingPong::body, &p);
  for (int i = 0; i < 3; ++i) {
    p.fiber.resume();
    ASSERT_EQ(p.trace.size(), size_t(i + 1));
    EXPECT_FALSE(p.fiber.finished());
  }
  p.fiber.resume();
  EXPECT_TRUE(p.fiber.finished());
  EXPECT_EQ(p.trace, (std::vector<int>{0, 1, 2}));
  pool.release(p.fiber.stack());
}

TEST(StackPool, ReusesReleasedStacks) {
  StackPool pool(32 * 1024);
  GuardedStack* a = pool.acquire();
  pool.release(a);
  EXPECT_EQ(pool.acquire(), a);
}

TEST(GuardedStack, GuardPageLiesBelowTheUsableRange) {
  GuardedStack s(16 * 1024);
  EXPECT_TRUE(s.guard_contains(static_cast<char*>(s.bottom()) - 1));
  EXPECT_FALSE(s.guard_contains(s.bottom()));
  EXPECT_GE(s.size(), 16u * 1024);
}

}  // namespace
}  // namespace metalsim::fiber
