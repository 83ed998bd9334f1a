#pragma once
// A kernel library compiled at run time (runtime_library.cpp): its source, the host names of its
// kernels (from newLibrary's names compile, runtime_compiler.h), and the functions compiled so
// far. Each function is compiled when first asked for, into a shared object of its own, loaded
// once per process and never unloaded: Functions, pipelines, the lane-loop registry and reports
// point into it.
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime_compiler.h"
#include "simt/abi/kernel.h"

namespace metalsim::host {

// The function constants a source declares, as its names compile lists them.
class DeclaredConstants {
 public:
  void add(const abi::FunctionConstantInfo& c) {
    abi::FunctionConstantInfo copy = c;
    copy.name = text_.emplace_back(c.name).c_str();
    copy.type = text_.emplace_back(c.type).c_str();
    copy.source_file = text_.emplace_back(c.source_file).c_str();
    list_.push_back(copy);
  }
  const std::vector<abi::FunctionConstantInfo>& list() const { return list_; }

 private:
  std::deque<std::string> text_;  // what list_'s strings point into (stable as it grows)
  std::vector<abi::FunctionConstantInfo> list_;
};

class LoadedKernels {
 public:
  LoadedKernels(RuntimeSource source, std::vector<std::string> names,
                std::optional<DeclaredConstants> constants)
      : source_(std::move(source)), names_(std::move(names)), constants_(std::move(constants)) {}

  // Every kernel of the source, in the order of the source.
  const std::vector<std::string>& names() const { return names_; }
  // The function constants the source declares, known before any function is compiled; null
  // when the names compile did not list them.
  const std::vector<abi::FunctionConstantInfo>* declared_constants() const {
    return constants_ ? &constants_->list() : nullptr;
  }
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
  std::optional<DeclaredConstants> constants_;
  mutable std::mutex mutex_;  // guards functions_ (the map, not a compile)
  mutable std::map<std::pair<std::string, std::string>, std::unique_ptr<Compiled>>
      functions_;  // by name, constants
};

}  // namespace metalsim::host
