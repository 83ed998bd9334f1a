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

// Three fibers hand control round without the scheduler: 0 -> 1 -> 2, and 2 suspends. A
// fiber first entered through switch_to (1 and 2 in the first round) starts like a resumed one.
struct Relay {
  Fiber fibers[3];
  std::vector<int> trace;
  static Relay* self;
  static void body(void* arg) {
    const int i = int(reinterpret_cast<intptr_t>(arg));
    for (int round = 0; round < 2; ++round) {
      self->trace.push_back(10 * round + i);
      if (i < 2)
        self->fibers[i].switch_to(self->fibers[i + 1]);
      else
        self->fibers[i].suspend();
    }
  }
};
Relay* Relay::self = nullptr;

TEST(Fiber, SwitchToHandsControlToASiblingAndResumeReturnsWhoCameBack) {
  StackPool pool(64 * 1024);
  Relay r;
  Relay::self = &r;
  for (intptr_t i = 0; i < 3; ++i)
    r.fibers[i].start(pool.acquire(), &Relay::body, reinterpret_cast<void*>(i));
  EXPECT_EQ(r.fibers[0].resume(), &r.fibers[2]);  // 0, 1, 2 ran; 2 suspended
  EXPECT_EQ(r.trace, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(r.fibers[0].resume(), &r.fibers[2]);  // the second round, the same way
  EXPECT_EQ(r.trace, (std::vector<int>{0, 1, 2, 10, 11, 12}));
  for (Fiber& f : r.fibers) {  // each leaves its loop and returns to the scheduler
    EXPECT_FALSE(f.finished());
    EXPECT_EQ(f.resume(), &f);
    EXPECT_TRUE(f.finished());
  }
  for (Fiber& f : r.fibers) pool.release(f.stack());
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
