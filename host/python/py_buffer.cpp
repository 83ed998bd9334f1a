#include "py_buffer.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "bindings.h"
#include "buffer_pool.h"

namespace py = pybind11;

namespace metalsim::python {
namespace {

// Zeroed, as MTL::Device::newBuffer(length) is.
PyBuffer zeroed_buffer(size_t length) {
  PyBuffer b(take_buffer(length));
  if (length != 0) std::memset(b.buffer->contents(), 0, length);
  return b;
}

// The size in bytes of a buffer's memory, which must be C-contiguous (the package makes arrays
// so first).
size_t contiguous_bytes(const py::buffer_info& info, const char* what) {
  ssize_t expected = info.itemsize;
  for (ssize_t d = info.ndim - 1; d >= 0; --d) {
    if (info.shape[d] > 1 && info.strides[d] != expected)
      throw py::value_error(std::string(what) + ": the array is not C-contiguous");
    expected *= info.shape[d];
  }
  return static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
}

// A copy of `source`'s bytes.
PyBuffer copy_of(const py::buffer& source) {
  py::buffer_info info = source.request();
  const size_t bytes = contiguous_bytes(info, "Buffer.copy_of");
  PyBuffer b(take_buffer(bytes));
  if (bytes != 0) std::memcpy(b.buffer->contents(), info.ptr, bytes);
  return b;
}

// A no-copy buffer over `source`'s own bytes, exported (writable when asked) while it lives.
PyBuffer borrow(const py::buffer& source, bool writable) {
  auto info = std::make_unique<py::buffer_info>(source.request(writable));
  const size_t bytes = contiguous_bytes(*info, "Buffer.borrow");
  if (info->ptr == nullptr) return PyBuffer(take_buffer(0));  // nothing to borrow
  PyBuffer b(NS::TransferPtr(
      device()->newBuffer(info->ptr, bytes, MTL::ResourceStorageModeShared, nullptr)));
  b.borrowed = std::move(info);
  return b;
}

}  // namespace

PyBuffer::~PyBuffer() {
  give_buffer(std::move(buffer));  // a borrowed buffer is released there, before its export ends
}

void bind_buffer(py::module_& m) {
  py::class_<PyBuffer>(
      m, "Buffer", py::buffer_protocol(),
      "A device buffer (MTL::Buffer): zeroed bytes ending against a guard page, or "
      "borrowed memory (Buffer.borrow)")
      .def(py::init(&zeroed_buffer), py::arg("length"))
      .def_static(
          "empty", [](size_t length) { return PyBuffer(take_buffer(length)); }, py::arg("length"),
          "A buffer of `length` bytes whose contents are unspecified (a reused one's old bytes)")
      .def_static("copy_of", &copy_of, py::arg("source"),
                  "A new buffer holding a copy of a C-contiguous buffer's bytes")
      .def_static("borrow", &borrow, py::arg("source"), py::arg("writable") = false,
                  "A no-copy buffer over a C-contiguous buffer's own bytes (kept exported, so "
                  "alive, while the buffer lives)")
      .def_property_readonly(
          "no_copy", [](const PyBuffer& b) { return b.buffer->isNoCopy(); },
          "Whether the buffer is borrowed memory (Buffer.borrow) rather than its own")
      .def_property_readonly(
          "address",
          [](const PyBuffer& b) { return reinterpret_cast<uintptr_t>(b.buffer->contents()); },
          "The address of the buffer's first byte (for tests: a borrowed buffer's is the "
          "array's)")
      .def("__len__", [](const PyBuffer& b) { return b.buffer->length(); })
      .def_property(
          "label", [](const PyBuffer& b) { return b.buffer->labelText(); },
          [](PyBuffer& b, const std::string& label) {
            auto text =
                NS::TransferPtr(NS::String::alloc()->init(label.c_str(), NS::UTF8StringEncoding));
            b.buffer->setLabel(text.get());
          })
      .def_buffer([](PyBuffer& b) {
        // A one-dimensional byte view; at least one element, as NumPy wants a valid pointer.
        return py::buffer_info(b.buffer->contents(), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<ssize_t>(b.buffer->length())}, {1});
      });
}

}  // namespace metalsim::python
