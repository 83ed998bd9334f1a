#pragma once
// The NS::Error handed out through an NS::Error** out-parameter.
#include <string>
#include <utility>

#include "metalsim/Foundation/NSObject.hpp"

namespace metalsim::host {

// Autoreleased, as in metal-cpp: the caller does not own it. `domain` nullptr: "metalsim".
inline NS::Error* autoreleased_error(NS::Integer code, std::string text,
                                     const char* domain = nullptr) {
  auto* e = new NS::Error(code, std::move(text), domain);
  NS::autorelease(e);
  return e;
}

}  // namespace metalsim::host
