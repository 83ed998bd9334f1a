#pragma once
// MTL::Resource: what buffers and textures have in common, as in metal-cpp. metalsim needs it for
// ComputeCommandEncoder::memoryBarrier(resources, count), which orders the listed ones only.
#include "metalsim/Metal/MTLAllocation.hpp"

namespace MTL {

class Resource : public Allocation {
 protected:
  Resource() = default;
  ~Resource() override = default;
};

}  // namespace MTL
