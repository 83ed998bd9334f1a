#include "py_buffer.h"

#include <cstring>
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

// A copy of `source`'s bytes, which must be C-contiguous (the package makes arrays so first).
PyBuffer copy_of(const py::buffer& source) {
  py::buffer_info info = source.request();
  size_t bytes = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
  ssize_t expected = info.itemsize;
  for (ssize_t d = info.ndim - 1; d >= 0; --d) {
    if (info.shape[d] > 1 && info.strides[d] != expected)
      throw py::value_error("Buffer.copy_of: the array is not C-contiguous");
    expected *= info.shape[d];
  }
  PyBuffer b(take_buffer(bytes));
  if (bytes != 0) std::memcpy(b.buffer->contents(), info.ptr, bytes);
  return b;
}

}  // namespace

PyBuffer::~PyBuffer() { give_buffer(std::move(buffer)); }

void bind_buffer(py::module_& m) {
  py::class_<PyBuffer>(m, "Buffer", py::buffer_protocol(),
                       "A device buffer (MTL::Buffer): zeroed bytes ending against a guard page")
      .def(py::init(&zeroed_buffer), py::arg("length"))
      .def_static(
          "empty", [](size_t length) { return PyBuffer(take_buffer(length)); }, py::arg("length"),
          "A buffer of `length` bytes whose contents are unspecified (a reused one's old bytes)")
      .def_static("copy_of", &copy_of, py::arg("source"),
                  "A new buffer holding a copy of a C-contiguous buffer's bytes")
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
