#pragma once
// The small per-dispatch arguments of a call (the kernels' `constant T&` parameters: sizes,
// RoPE and attention parameters) written one after another into reused device buffers and bound
// with setBuffer at their offset. setBytes would do, but metalsim backs each setBytes with a
// guarded buffer of its own (an mmap), and a SmolLM token has about 1200 of them; this is also
// the form an indirect command buffer needs (it has no setBytes). The cost: a kernel reading
// past its argument reads the next one instead of a guard page.
#include <cstddef>
#include <vector>

#include "host/model/buffer_slice.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model {

class ArgumentArena {
 public:
  explicit ArgumentArena(MTL::Device* device) : device_(device) {}

  // The start of a call: the buffers are reused from the beginning (the previous call's
  // command buffer has run: metalsim's commit is synchronous).
  void reset();
  // A copy of `value`, 16-byte aligned, valid until the next reset().
  template <class T>
  BufferSlice put(const T& value) {
    return put_bytes(&value, sizeof(T));
  }
  BufferSlice put_bytes(const void* data, size_t size);

 private:
  MTL::Device* device_;
  std::vector<NS::SharedPtr<MTL::Buffer>> chunks_;
  size_t chunk_ = 0, offset_ = 0;
};

}  // namespace metalsim::model
