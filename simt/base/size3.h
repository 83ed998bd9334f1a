#pragma once
// A three-component size or position (grids, threadgroups, lanes): the value type every layer
// shares, from the engine's geometry to the reports and the host API's validation.
#include <cstdint>

namespace metalsim {

struct Size3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t volume() const { return uint64_t(x) * y * z; }
  friend bool operator==(const Size3&, const Size3&) = default;
};

}  // namespace metalsim
