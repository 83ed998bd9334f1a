#pragma once
// A compiled library and a kernel's pipeline, as the Python objects hold them.
#include "metalsim/Metal.hpp"

namespace metalsim::python {

struct PyLibrary {
  NS::SharedPtr<MTL::Library> library;
};

struct PyPipeline {
  NS::SharedPtr<MTL::ComputePipelineState> state;
};

}  // namespace metalsim::python
