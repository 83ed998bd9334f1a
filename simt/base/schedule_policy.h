#pragma once
// Which schedule a run uses: the order in which lanes run between sync points and
// threadgroups are handed to workers (the engine's schedule.h does the ordering). A race-free
// kernel gives bit-identical results under every policy; a difference reveals a race.
#include <cstdint>
#include <string>
#include <string_view>

namespace metalsim {

enum class ScheduleKind : uint8_t { in_order, reversed, random };

struct SchedulePolicy {
  ScheduleKind kind = ScheduleKind::in_order;
  uint64_t seed = 0;  // used by `random`

  std::string str() const;  // "in-order", "reversed", "random:42"
  // Accepts the forms str() prints; "random" alone means seed 1.
  static bool parse(std::string_view text, SchedulePolicy& out);
  static SchedulePolicy from_environment();  // METALSIM_SCHEDULE, else in-order
  friend bool operator==(const SchedulePolicy&, const SchedulePolicy&) = default;
};

}  // namespace metalsim
