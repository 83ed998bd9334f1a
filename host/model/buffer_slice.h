#pragma once
// A buffer and a byte offset into it: what one kernel argument is bound to.
#include <cstddef>

#include "metalsim/Metal.hpp"

namespace metalsim::model {

struct BufferSlice {
  MTL::Buffer* buffer = nullptr;
  size_t offset = 0;
};

// Float element `index` of `buffer`.
inline BufferSlice floats_at(MTL::Buffer* buffer, size_t index) {
  return {buffer, index * sizeof(float)};
}

}  // namespace metalsim::model
