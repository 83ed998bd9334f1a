#pragma once
// The pybind11 module `_metalsim`: the host API's face to the pure-Python package beside it
// (metalsim/*.py). One file per concept; module.cpp calls each bind_* once.
#include <pybind11/pybind11.h>

namespace MTL {
class Device;
}

namespace metalsim::python {

// The process's one device, made on first use and never released (Python may call into the
// module from atexit handlers, after static destructors would have run).
MTL::Device* device();

void bind_buffer(pybind11::module_& m);    // py_buffer.cpp: Buffer
void bind_library(pybind11::module_& m);   // py_library.cpp: compile, Library, Pipeline
void bind_reports(pybind11::module_& m);   // py_reports.cpp: Report
void bind_dispatch(pybind11::module_& m);  // py_dispatch.cpp: Options, dispatch

}  // namespace metalsim::python
