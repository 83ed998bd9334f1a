#pragma once
// A device buffer as Python sees it: bytes behind the buffer protocol, so a NumPy array made over
// it (numpy.frombuffer) is the kernel's memory itself. Outputs come back to Python without a
// copy. An input is copied once, into memory that ends against a guard page (that page, and the
// access shadow around the copy's odd end, turn a read past the end into bounds.device instead
// of a read of the neighbour's bytes), or, when the caller asks for it (zero_copy), borrowed: a
// no-copy buffer (MTL::Device::newBuffer with a deallocator) over the array's own memory, which
// the buffer keeps exported (and so alive) for as long as it lives. Bounds past a borrowed
// array's last 16-byte granule are not checked: that memory is Python's heap (docs/python.md).
#include <pybind11/pybind11.h>

#include <memory>
#include <utility>

#include "metalsim/Metal.hpp"

namespace metalsim::python {

// Movable, not copyable: its buffer goes back to the pool (buffer_pool.h) when it dies, unless
// it is borrowed memory; then the export of that memory ends (with the GIL held: Python owns
// these objects).
struct PyBuffer {
  explicit PyBuffer(NS::SharedPtr<MTL::Buffer> b) : buffer(std::move(b)) {}
  PyBuffer(PyBuffer&&) = default;
  PyBuffer& operator=(PyBuffer&&) = default;
  ~PyBuffer();
  NS::SharedPtr<MTL::Buffer> buffer;
  std::unique_ptr<pybind11::buffer_info> borrowed;  // the exported memory of a no-copy buffer
};

}  // namespace metalsim::python
