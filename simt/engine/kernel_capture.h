#pragma once
// Kernels of a library loaded at run time (MTL::Device::newLibrary with source,
// host/src/runtime_library.cpp). dlopen runs a library's static registrars on the thread that
// calls it; while a KernelCapture is alive on that thread, the kernels that register go to the
// capture instead of the process's registry, so each loaded library keeps its own kernels and
// two libraries may use the same kernel names.
#include <string>
#include <vector>

#include "simt/abi/kernel.h"

namespace metalsim::engine {

class KernelCapture {
 public:
  KernelCapture();
  ~KernelCapture();
  KernelCapture(const KernelCapture&) = delete;
  KernelCapture& operator=(const KernelCapture&) = delete;

  const std::vector<const abi::KernelInfo*>& kernels() const { return kernels_; }
  // Kernels that registered twice under one name in this library, one line each.
  const std::vector<std::string>& duplicates() const { return duplicates_; }

 private:
  friend class abi::KernelRegistry;
  void add(const abi::KernelInfo& kernel);

  KernelCapture* outer_;
  std::vector<const abi::KernelInfo*> kernels_;
  std::vector<std::string> duplicates_;
};

}  // namespace metalsim::engine
