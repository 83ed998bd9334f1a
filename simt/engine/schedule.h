#pragma once
// Schedule policies: the order in which lanes run between sync points and threadgroups are
// handed to workers. A race-free kernel gives bit-identical results under every policy; a
// difference reveals a race or a dependence between threadgroups. The same seed always gives
// the same schedule, whatever the number of workers.
#include <algorithm>
#include <cstdint>
#include <span>

#include "simt/base/schedule_policy.h"

namespace metalsim::engine {

// splitmix64: small, fast, and good enough to shuffle schedules.
class ScheduleRng {
 public:
  explicit ScheduleRng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  uint32_t below(uint32_t bound) { return uint32_t(next() % bound); }

 private:
  uint64_t state_;
};

// The seed of one threadgroup's lane schedule: independent of which worker runs it.
uint64_t threadgroup_seed(const SchedulePolicy& policy, uint64_t linear_threadgroup);

template <class T>
void shuffle(std::span<T> items, ScheduleRng& rng) {
  for (size_t i = items.size(); i > 1; --i) {
    size_t j = rng.below(uint32_t(i));
    T tmp = items[i - 1];
    items[i - 1] = items[j];
    items[j] = tmp;
  }
}

// `items` in the policy's order: as they are (in order), reversed, or shuffled by the policy's
// seed mixed with `salt` (which group of items this is, so that each group gets its own order).
// The host's concurrent dispatches and held command buffers are ordered so.
template <class T>
void arrange(std::span<T> items, const SchedulePolicy& policy, uint64_t salt) {
  if (policy.kind == ScheduleKind::reversed) {
    std::reverse(items.begin(), items.end());
  } else if (policy.kind == ScheduleKind::random) {
    ScheduleRng rng(policy.seed * 0x9e3779b97f4a7c15ull + salt);
    shuffle(items, rng);
  }
}

}  // namespace metalsim::engine
