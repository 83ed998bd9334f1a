#include "simt/engine/schedule.h"

namespace metalsim::engine {

uint64_t ScheduleRng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t threadgroup_seed(const SchedulePolicy& policy, uint64_t linear_threadgroup) {
  ScheduleRng rng(policy.seed ^ (linear_threadgroup * 0xd1b54a32d192ed03ull));
  return rng.next();
}

}  // namespace metalsim::engine
