#pragma once
// A kernel library compiled at run time (runtime_library.cpp): its source, the host names of its
// kernels (from newLibrary's names compile, runtime_compiler.h), and the functions compiled so
// far. Each function is compiled when first asked for, into a shared object of its own, loaded
// once per process and never unloaded: Functions, pipelines, the lane-loop registry and reports
// point into it.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "runtime_compiler.h"
#include "simt/abi/kernel.h"

namespace metalsim::host {

class LoadedKernels {
 public:
  LoadedKernels(RuntimeSource source, std::vector<std::string> names)
      : source_(std::move(source)), names_(std::move(names)) {}

  // Every kernel of the source, in the order of the source.
  const std::vector<std::string>& names() const { return names_; }
  // The kernel named `name`, compiled and loaded when first asked for (later asks, from any
  // Library of the same source, get the same one). nullptr with `error` left empty when the
  // library has no kernel of that name, with `error` set when its compile or load failed. With
  // `constants` (function_constant_values), the function specialised with those values, one
  // compile per set of values.
  const abi::KernelInfo* function(const std::string& name, std::string* error,
                                  const std::string& constants = {}) const;

 private:
  // One function: compiled once (`once`), outside the library's lock, so that threads asking for
  // different functions compile at the same time and those asking for the same one wait for it.
  struct Compiled {
    std::once_flag once;
    const abi::KernelInfo* kernel = nullptr;
    std::string error;  // a failed compile, kept: asking again fails alike without compiling
  };
  void compile(const std::string& name, const std::string& constants, Compiled& compiled) const;

  RuntimeSource source_;
  std::vector<std::string> names_;
  mutable std::mutex mutex_;  // guards functions_ (the map, not a compile)
  mutable std::map<std::pair<std::string, std::string>, std::unique_ptr<Compiled>>
      functions_;  // by name, constants
};

}  // namespace metalsim::host
