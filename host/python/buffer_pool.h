#pragma once
// Device buffers kept for reuse, by exact length. A new MTL::Buffer is a fresh mapping with two
// guard pages: making one, and the first dispatch that touches its pages, cost about 50 us on
// small arrays, more than the rest of a call (measured: examples/python/overhead.py). Python
// calls a kernel again and again with arrays of the same sizes, so a buffer whose Python object
// died serves the next call that needs that length. The length stays exact, so bounds checks
// are the same as with a new buffer; the contents are not cleared (every user overwrites them).
// Used with the GIL held (it is Python's objects that take and give), so it needs no lock.
#include <cstddef>

#include "metalsim/Metal.hpp"

namespace metalsim::python {

// A buffer of `length` bytes, reused or new; its contents are unspecified.
NS::SharedPtr<MTL::Buffer> take_buffer(size_t length);
// Keeps `buffer` for a later take_buffer of its length, or releases it when the pool is full or
// it is a no-copy buffer (borrowed memory: py_buffer.h).
void give_buffer(NS::SharedPtr<MTL::Buffer> buffer);

}  // namespace metalsim::python
