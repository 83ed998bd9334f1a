#pragma once
// MTL::Library holds the kernels linked into the program (every .metal file compiled with
// metalsim_add_metal_library); MTL::Function is one of them, with its function constants.
#include <memory>
#include <string>
#include <vector>

#include "metalsim/Foundation/NSDictionary.hpp"
#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace metalsim::abi {
struct KernelInfo;  // simt/abi/kernel.h: the front's reflection of one kernel
}
namespace metalsim::host {
class LoadedKernels;  // host/src/loaded_kernels.h: a library compiled at run time
}

namespace MTL {

// Metal's math modes (MTLCompileOptions.mathMode). metalsim keeps infinities and NaNs in every
// mode (the poison and NaN checks rely on them): relaxed and fast both allow reassociation,
// reciprocals, contraction and no signed zeros (docs/lanes.md, "Math mode").
enum MathMode : NS::Integer {
  MathModeSafe = 0,     // every operation rounds as written: what the project's kernels use
  MathModeRelaxed = 1,  // Apple silicon's default
  MathModeFast = 2,     // Metal's default (fastMathEnabled)
};
enum MathFloatingPointFunctions : NS::Integer {
  MathFloatingPointFunctionsFast = 0,
  MathFloatingPointFunctionsPrecise = 1,
};

// How a library's kernels are compiled, as metal-cpp spells it. Build-time libraries choose
// their math mode in CMake (metalsim_add_metal_library(... MATH_MODE safe|relaxed|fast)); a
// runtime compiler (newLibrary with source, issue 13) reads it from here.
class CompileOptions : public NS::Object {
 public:
  static CompileOptions* alloc() { return new CompileOptions; }
  CompileOptions* init() { return this; }
  // true: mathMode fast and fast math functions; false: safe and precise (Metal's rule).
  bool fastMathEnabled() const { return math_mode_ == MathModeFast; }
  void setFastMathEnabled(bool enabled) {
    math_mode_ = enabled ? MathModeFast : MathModeSafe;
    functions_ = enabled ? MathFloatingPointFunctionsFast : MathFloatingPointFunctionsPrecise;
  }
  MathMode mathMode() const { return math_mode_; }
  void setMathMode(MathMode mode) { math_mode_ = mode; }
  MathFloatingPointFunctions mathFloatingPointFunctions() const { return functions_; }
  void setMathFloatingPointFunctions(MathFloatingPointFunctions f) { functions_ = f; }
  // Macro name (NS::String) -> value (NS::String or NS::Number), as -D NAME=VALUE; nullptr: none.
  NS::Dictionary* preprocessorMacros() const { return macros_.get(); }
  void setPreprocessorMacros(const NS::Dictionary* macros) {
    macros_ = NS::RetainPtr(const_cast<NS::Dictionary*>(macros));
  }
  // metalsim's extension, not Metal's (whose run-time compiler reads no files; Apple's `metal`
  // command takes -I): directories searched for the source's #includes, after its own folder.
  const std::vector<std::string>& includeDirectories() const { return include_dirs_; }
  void setIncludeDirectories(std::vector<std::string> dirs) { include_dirs_ = std::move(dirs); }

 private:
  ~CompileOptions() override = default;
  MathMode math_mode_ = MathModeFast;  // Metal's default: fastMathEnabled is true
  MathFloatingPointFunctions functions_ = MathFloatingPointFunctionsFast;
  NS::SharedPtr<NS::Dictionary> macros_;
  std::vector<std::string> include_dirs_;
};

// NS::Error codes of newLibrary, as metal-cpp numbers them.
enum LibraryError : NS::UInteger {
  LibraryErrorUnsupported = 1,
  LibraryErrorInternal = 2,
  LibraryErrorCompileFailure = 3,
  LibraryErrorCompileWarning = 4,
  LibraryErrorFunctionNotFound = 5,
  LibraryErrorFileNotFound = 6,
};

class FunctionConstantValues : public NS::Object {
 public:
  static FunctionConstantValues* alloc() { return new FunctionConstantValues; }
  FunctionConstantValues* init() { return this; }
  void setConstantValue(const void* value, DataType type, NS::UInteger index);
  void setConstantValues(const void* values, DataType type, Range range);

  // index -> bytes (empty: not set)
  const std::vector<std::vector<unsigned char>>& values() const { return values_; }

 private:
  ~FunctionConstantValues() override = default;
  std::vector<std::vector<unsigned char>> values_;
};

class Function : public NS::Object {
 public:
  NS::String* name() const;
  const metalsim::abi::KernelInfo& kernel() const { return *kernel_; }
  const FunctionConstantValues* constants() const { return constants_.get(); }

 private:
  friend class Library;
  Function(const metalsim::abi::KernelInfo* kernel, FunctionConstantValues* constants);
  ~Function() override = default;
  const metalsim::abi::KernelInfo* kernel_;
  NS::SharedPtr<FunctionConstantValues> constants_;
};

// The default library (newDefaultLibrary) holds every kernel linked into the program; a library
// compiled at run time (Device::newLibrary with source) holds the kernels of its source only.
class Library : public NS::Object {
 public:
  // nullptr when no kernel has that name. A library compiled at run time compiles the function
  // when first asked for (docs/host_api.md): nullptr too when that compile fails.
  Function* newFunction(NS::String* name);
  Function* newFunction(const char* name);
  // With function constants; `error` names a missing kernel or constant, or gives the compile's
  // errors (LibraryErrorCompileFailure). As Metal specialises it: a function constant the kernel
  // reads with no value given and no default is an error naming it; a library compiled at run
  // time compiles the function with the values compiled in (docs/front.md). With null
  // `constants`, the function unspecialised, as newFunction(name).
  Function* newFunction(NS::String* name, const FunctionConstantValues* constants,
                        NS::Error** error);
  // The names of every kernel in the library.
  std::vector<std::string> functionNames() const;

 private:
  friend class Device;
  Library() = default;
  explicit Library(std::shared_ptr<const metalsim::host::LoadedKernels> loaded)
      : loaded_(std::move(loaded)) {}
  ~Library() override = default;
  // nullptr when there is no such kernel, or (`problem` set) when its compile failed. A library
  // compiled at run time specialises the function with `constants` when not null.
  const metalsim::abi::KernelInfo* find(const char* name, std::string* problem,
                                        const FunctionConstantValues* constants = nullptr) const;
  std::shared_ptr<const metalsim::host::LoadedKernels> loaded_;  // null: the program's kernels
};

}  // namespace MTL
