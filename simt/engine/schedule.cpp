#include "simt/engine/schedule.h"

#include <cstdlib>

namespace metalsim::engine {

std::string SchedulePolicy::str() const {
  switch (kind) {
    case ScheduleKind::in_order: return "in-order";
    case ScheduleKind::reversed: return "reversed";
    case ScheduleKind::random: return "random:" + std::to_string(seed);
  }
  return "?";
}

bool SchedulePolicy::parse(std::string_view text, SchedulePolicy& out) {
  if (text == "in-order" || text == "inorder") {
    out = {ScheduleKind::in_order, 0};
    return true;
  }
  if (text == "reversed" || text == "reverse") {
    out = {ScheduleKind::reversed, 0};
    return true;
  }
  if (text == "random") {
    out = {ScheduleKind::random, 1};
    return true;
  }
  if (text.starts_with("random:")) {
    std::string digits(text.substr(7));
    char* end = nullptr;
    uint64_t seed = std::strtoull(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0') return false;
    out = {ScheduleKind::random, seed};
    return true;
  }
  return false;
}

SchedulePolicy SchedulePolicy::from_environment() {
  SchedulePolicy policy;
  if (const char* env = std::getenv("METALSIM_SCHEDULE"); env != nullptr) parse(env, policy);
  return policy;
}

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
