#pragma once
// A kernel library compiled and loaded at run time (runtime_library.cpp): its shared object and
// the kernels it registered. Loaded once per process and never unloaded: Functions, pipelines,
// the lane-loop registry and reports point into it.
#include <string>
#include <vector>

#include "simt/abi/kernel.h"

namespace metalsim::host {

struct LoadedKernels {
  std::string path;  // the shared object in the kernel cache
  std::vector<const abi::KernelInfo*> kernels;
};

}  // namespace metalsim::host
