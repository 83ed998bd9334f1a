#include "simt/base/schedule_policy.h"

#include <cstdlib>

namespace metalsim {

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

}  // namespace metalsim
