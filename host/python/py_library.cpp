// compile(source) -> Library -> Pipeline: MTL::Device::newLibrary with source (the runtime
// compiler and its on-disk cache, host/src/runtime_*.cpp) and newComputePipelineState, with the
// front's reflection of each kernel for the package to check arguments against.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "metalsim/Metal.hpp"
#include "py_library.h"
#include "simt/abi/kernel.h"

namespace py = pybind11;

namespace metalsim::python {
namespace {

const char* kind_name(abi::ArgKind kind) {
  switch (kind) {
    case abi::ArgKind::DeviceBuffer: return "device";
    case abi::ArgKind::ConstantBuffer: return "constant";
    case abi::ArgKind::Threadgroup: return "threadgroup";
    case abi::ArgKind::Builtin: return "builtin";
    case abi::ArgKind::Texture: return "texture";
    case abi::ArgKind::Sampler: return "sampler";
  }
  return "?";
}

// One kernel argument as a dict: what the package needs to bind a Python value to it.
py::dict argument(const abi::ArgInfo& a) {
  py::dict d;
  d["name"] = a.name;
  d["kind"] = kind_name(a.kind);
  d["index"] = a.index;
  d["type"] = a.type;
  d["is_const"] = a.is_const;
  d["is_reference"] = a.is_reference;
  d["element_size"] = a.element_size;
  return d;
}

// (Library, "") or (None, the compiler's `file:line: error: ...` text). Not an exception: the
// package raises its own CompileError with the text, after naming the user's lines.
py::tuple compile(const std::string& source) {
  auto text = NS::TransferPtr(NS::String::alloc()->init(source.c_str(), NS::UTF8StringEncoding));
  NS::Error* error = nullptr;
  MTL::Library* library = nullptr;
  {
    py::gil_scoped_release unlocked;  // a compile takes seconds; other Python threads may run
    library = device()->newLibrary(text.get(), nullptr, &error);
  }
  if (library == nullptr) {
    std::string why = error != nullptr ? error->localizedDescription()->str() : "unknown error";
    return py::make_tuple(py::none(), why);
  }
  return py::make_tuple(PyLibrary{NS::TransferPtr(library)}, std::string());
}

PyPipeline pipeline(const PyLibrary& library, const std::string& name) {
  NS::Error* compile_error = nullptr;
  auto function = NS::TransferPtr(
      library.library->newFunction(NS::String::string(name.c_str()), nullptr, &compile_error));
  if (!function && compile_error != nullptr &&
      compile_error->code() == MTL::LibraryErrorCompileFailure)
    throw std::runtime_error("kernel '" + name + "' does not compile:\n" +
                             compile_error->localizedDescription()->str());
  if (!function) {
    std::string known;
    for (const std::string& n : library.library->functionNames())
      known += (known.empty() ? "" : ", ") + n;
    throw py::key_error("no kernel named '" + name + "' in the library (it has: " + known + ")");
  }
  NS::Error* error = nullptr;
  auto state = NS::TransferPtr(device()->newComputePipelineState(function.get(), &error));
  if (!state) {
    throw std::runtime_error("newComputePipelineState('" + name + "') failed: " +
                             (error != nullptr ? error->localizedDescription()->str() : ""));
  }
  return PyPipeline{state};
}

py::list arguments(const PyPipeline& p) {
  py::list out;
  for (const abi::ArgInfo& a : p.state->kernel().args) out.append(argument(a));
  return out;
}

}  // namespace

void bind_library(py::module_& m) {
  m.def("compile", &compile, py::arg("source"),
        "Compiles MSL (newLibrary): (Library, '') or (None, the error text)");
  py::class_<PyLibrary>(m, "Library")
      .def("function_names", [](const PyLibrary& l) { return l.library->functionNames(); })
      .def("pipeline", &pipeline, py::arg("name"));
  py::class_<PyPipeline>(m, "Pipeline")
      .def_property_readonly("name", [](const PyPipeline& p) { return p.state->kernel().name; })
      .def_property_readonly("arguments", &arguments)
      .def_property_readonly(
          "max_total_threads_per_threadgroup",
          [](const PyPipeline& p) { return p.state->maxTotalThreadsPerThreadgroup(); })
      .def_property_readonly("thread_execution_width",
                             [](const PyPipeline& p) { return p.state->threadExecutionWidth(); })
      .def_property_readonly("static_threadgroup_memory_length", [](const PyPipeline& p) {
        return p.state->staticThreadgroupMemoryLength();
      });
}

}  // namespace metalsim::python
