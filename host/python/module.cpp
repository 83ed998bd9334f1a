// The module the package imports as metalsim._metalsim (host/python/CMakeLists.txt builds it).
#include "bindings.h"
#include "metalsim/Metal.hpp"

namespace metalsim::python {

MTL::Device* device() {
  static MTL::Device* const kDevice = MTL::CreateSystemDefaultDevice();
  return kDevice;
}

}  // namespace metalsim::python

PYBIND11_MODULE(_metalsim, m) {
  m.doc() = "metalsim's host API for the metalsim Python package (docs/python.md)";
  metalsim::python::bind_buffer(m);
  metalsim::python::bind_library(m);
  metalsim::python::bind_reports(m);
  metalsim::python::bind_dispatch(m);
}
