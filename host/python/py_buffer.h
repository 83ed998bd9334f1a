#pragma once
// A device buffer as Python sees it: bytes behind the buffer protocol, so a NumPy array made over
// it (numpy.frombuffer) is the kernel's memory itself. Outputs come back to Python without a
// copy; an input is copied once, into memory that ends against a guard page: that page is what
// turns a read past the end into bounds.device instead of a read of the neighbour's bytes, and
// why the host API has no newBufferWithBytesNoCopy.
#include <utility>

#include "metalsim/Metal.hpp"

namespace metalsim::python {

// Movable, not copyable: its buffer goes back to the pool (buffer_pool.h) when it dies.
struct PyBuffer {
  explicit PyBuffer(NS::SharedPtr<MTL::Buffer> b) : buffer(std::move(b)) {}
  PyBuffer(PyBuffer&&) = default;
  PyBuffer& operator=(PyBuffer&&) = default;
  ~PyBuffer();
  NS::SharedPtr<MTL::Buffer> buffer;
};

}  // namespace metalsim::python
