#pragma once
// NS::Range as metal-cpp spells it (Foundation/NSRange.hpp): the range of an indirect command
// buffer's commands to execute or reset.
#include "metalsim/Foundation/NSObject.hpp"

namespace NS {

struct Range {
  UInteger location = 0, length = 0;
  static Range Make(UInteger loc, UInteger len) { return {loc, len}; }
  UInteger maxRange() const { return location + length; }
};

}  // namespace NS
