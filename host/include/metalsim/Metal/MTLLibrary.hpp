#pragma once
// MTL::Library holds the kernels linked into the program (every .metal file compiled with
// metalsim_add_metal_library); MTL::Function is one of them, with its function constants.
#include <memory>
#include <string>
#include <vector>

#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSDictionary.hpp"
#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace metalsim::abi {
struct KernelInfo;            // simt/abi/kernel.h: the front's reflection of one kernel
struct FunctionConstantInfo;  // simt/abi/kernel.h: one [[function_constant(N)]] declaration
}  // namespace metalsim::abi
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

// MSL versions, with metal-cpp's values (major << 16 | minor): CompileOptions::languageVersion.
enum LanguageVersion : NS::UInteger {
  LanguageVersion1_0 = (1 << 16),
  LanguageVersion1_1 = (1 << 16) + 1,
  LanguageVersion1_2 = (1 << 16) + 2,
  LanguageVersion2_0 = (2 << 16),
  LanguageVersion2_1 = (2 << 16) + 1,
  LanguageVersion2_2 = (2 << 16) + 2,
  LanguageVersion2_3 = (2 << 16) + 3,
  LanguageVersion2_4 = (2 << 16) + 4,
  LanguageVersion3_0 = (3 << 16),
  LanguageVersion3_1 = (3 << 16) + 1,
  LanguageVersion3_2 = (3 << 16) + 2,
  LanguageVersion4_0 = (4 << 16),
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

  // ---- Accepted and kept, changing nothing in the compile (issue 26 item 2): metalsim's
  // front reads one MSL, everything it supports of every version (docs/msl-coverage.md), and
  // kernels log (os_log) whether or not logging is enabled (docs/logging.md). The language
  // version starts at 3.2, the newest of the default profile's macOS 15.
  LanguageVersion languageVersion() const { return language_version_; }
  void setLanguageVersion(LanguageVersion version) { language_version_ = version; }
  bool enableLogging() const { return enable_logging_; }
  void setEnableLogging(bool enable) { enable_logging_ = enable; }
  CompileOptions* autorelease() {
    NS::autorelease(this);
    return this;
  }

 private:
  LanguageVersion language_version_ = LanguageVersion3_2;
  bool enable_logging_ = false;
  // ---- end of issue 26's block
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

// NS::Referencing: alloc()->init()->autorelease() is still a FunctionConstantValues* (MLX).
class FunctionConstantValues : public NS::Referencing<FunctionConstantValues> {
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

// One function constant of an unspecialised function (Function::functionConstantsDictionary),
// as metal-cpp's MTL::FunctionConstant.
class FunctionConstant : public NS::Referencing<FunctionConstant> {
 public:
  NS::String* name() const { return name_.get(); }
  DataType type() const { return type_; }
  NS::UInteger index() const { return index_; }
  // Whether a specialisation must give it a value: the function reads it where no
  // is_function_constant_defined test found it defined (docs/front.md, "Required constants").
  bool required() const { return required_; }

 private:
  friend class Function;
  FunctionConstant(NS::String* name, DataType type, NS::UInteger index, bool required)
      : name_(NS::RetainPtr(name)), type_(type), index_(index), required_(required) {}
  ~FunctionConstant() override = default;
  NS::SharedPtr<NS::String> name_;
  DataType type_;
  NS::UInteger index_;
  bool required_;
};

class Function : public NS::Object {
 public:
  NS::String* name() const;
  const metalsim::abi::KernelInfo& kernel() const { return *kernel_; }
  const FunctionConstantValues* constants() const { return constants_.get(); }
  // Constant name (NS::String) -> FunctionConstant, of the constants the function uses, for a
  // function from newFunction(name); empty for a specialised one (newFunction(name, constants,
  // &error)) or one that uses none, as Metal's functionConstantsDictionary. Autoreleased.
  NS::Dictionary* functionConstantsDictionary() const;
  // metalsim's: whether it came from newFunction(name, constants, &error) with constants. Metal
  // makes no pipeline of an unspecialised function that uses function constants
  // (Device::newComputePipelineState fails naming them).
  bool specialised() const { return specialised_; }

 private:
  friend class Library;
  Function(const metalsim::abi::KernelInfo* kernel, FunctionConstantValues* constants,
           bool specialised);
  ~Function() override = default;
  const metalsim::abi::KernelInfo* kernel_;
  NS::SharedPtr<FunctionConstantValues> constants_;
  bool specialised_;
};

// What Library::newFunction(descriptor, &error) makes, as metal-cpp's MTL::FunctionDescriptor:
// the function's name and its constant values (MLX's Device::get_function_). The specialised
// name is kept: Metal names the specialised function by it in binary archives, which metalsim
// has not; the function's name() stays the kernel's.
class FunctionDescriptor : public NS::Referencing<FunctionDescriptor> {
 public:
  static FunctionDescriptor* alloc() { return new FunctionDescriptor; }
  FunctionDescriptor* init() { return this; }
  static FunctionDescriptor* functionDescriptor() { return alloc()->init()->autorelease(); }
  NS::String* name() const { return name_.get(); }
  void setName(const NS::String* name) { name_ = NS::RetainPtr(const_cast<NS::String*>(name)); }
  NS::String* specializedName() const { return specialized_name_.get(); }
  void setSpecializedName(const NS::String* name) {
    specialized_name_ = NS::RetainPtr(const_cast<NS::String*>(name));
  }
  FunctionConstantValues* constantValues() const { return constants_.get(); }
  void setConstantValues(const FunctionConstantValues* values) {
    constants_ = NS::RetainPtr(const_cast<FunctionConstantValues*>(values));
  }

 private:
  ~FunctionDescriptor() override = default;
  NS::SharedPtr<NS::String> name_, specialized_name_;
  NS::SharedPtr<FunctionConstantValues> constants_;
};

// Metal's visible and private functions of a pipeline (ComputePipelineDescriptor::
// setLinkedFunctions), as metal-cpp's MTL::LinkedFunctions: kept and given back. metalsim compiles
// a kernel with every function it calls, so a pipeline has nothing to link; a function pointer
// or [[visible]] call is not supported (the front refuses them).
class LinkedFunctions : public NS::Referencing<LinkedFunctions> {
 public:
  static LinkedFunctions* alloc() { return new LinkedFunctions; }
  LinkedFunctions* init() { return this; }
  static LinkedFunctions* linkedFunctions() { return alloc()->init()->autorelease(); }
  NS::Array* functions() const { return functions_.get(); }
  void setFunctions(const NS::Array* functions) {
    functions_ = NS::RetainPtr(const_cast<NS::Array*>(functions));
  }
  NS::Array* privateFunctions() const { return private_functions_.get(); }
  void setPrivateFunctions(const NS::Array* functions) {
    private_functions_ = NS::RetainPtr(const_cast<NS::Array*>(functions));
  }

 private:
  ~LinkedFunctions() override = default;
  NS::SharedPtr<NS::Array> functions_, private_functions_;
};

// The default library (newDefaultLibrary) holds every kernel linked into the program; a library
// compiled at run time (Device::newLibrary with source) holds the kernels of its source only.
class Library : public NS::Object {
 public:
  // nullptr when no kernel has that name. A library compiled at run time compiles the function
  // when first asked for (docs/host_api.md): nullptr too when that compile fails. As Metal's
  // newFunctionWithName:, the function is unspecialised: where it uses function constants, it
  // only reports them (functionConstantsDictionary) and makes no pipeline.
  Function* newFunction(NS::String* name);
  Function* newFunction(const char* name);
  // With function constants; `error` names a missing kernel or constant, or gives the compile's
  // errors (LibraryErrorCompileFailure). As Metal specialises it: a function constant the kernel
  // reads with no value given and no default is an error naming it; a library compiled at run
  // time compiles the function with the values compiled in (docs/front.md). Empty values
  // specialise too (every constant undefined: a function whose constants all have defaults or
  // are tested makes a pipeline). With null `constants`, the function unspecialised, as
  // newFunction(name).
  Function* newFunction(NS::String* name, const FunctionConstantValues* constants,
                        NS::Error** error);
  // As metal-cpp's newFunction(descriptor, &error): newFunction(name, constantValues, error)
  // with the descriptor's name and constant values (null constants: unspecialised).
  Function* newFunction(const FunctionDescriptor* descriptor, NS::Error** error);
  // The names of every kernel in the library.
  std::vector<std::string> functionNames() const;
  // metalsim's: the function constants a library compiled at run time declares in its source,
  // known before any function is compiled (so that the first compile of a function can be the
  // specialised one); null for the program's kernels, or when not known.
  const std::vector<metalsim::abi::FunctionConstantInfo>* declaredFunctionConstants() const;

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
