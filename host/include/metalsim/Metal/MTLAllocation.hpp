#pragma once
// MTL::Allocation: what a residency set holds (MTLResidencySet.hpp) and what buffers and
// textures are (through MTL::Resource), as in metal-cpp since macOS 15.
#include "metalsim/Foundation/NSObject.hpp"

namespace MTL {

class Allocation : public NS::Object {
 public:
  // The bytes of memory the allocation occupies: a buffer's length rounded up to whole pages of
  // the host; a texture's storage, the same way (0 for a texture over a buffer's bytes: they are
  // the buffer's).
  virtual NS::UInteger allocatedSize() const = 0;

 protected:
  Allocation() = default;
  ~Allocation() override = default;
};

}  // namespace MTL
