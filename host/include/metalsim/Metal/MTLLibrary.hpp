#pragma once
// MTL::Library holds the kernels linked into the program (every .metal file compiled with
// metalsim_add_metal_library); MTL::Function is one of them, with its function constants.
#include <string>
#include <vector>

#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace metalsim::engine {
struct KernelInfo;  // simt/engine/kernel.h: the front's reflection of one kernel
}

namespace MTL {

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
  const metalsim::engine::KernelInfo& kernel() const { return *kernel_; }
  const FunctionConstantValues* constants() const { return constants_.get(); }

 private:
  friend class Library;
  Function(const metalsim::engine::KernelInfo* kernel, FunctionConstantValues* constants);
  ~Function() override = default;
  const metalsim::engine::KernelInfo* kernel_;
  NS::SharedPtr<FunctionConstantValues> constants_;
};

class Library : public NS::Object {
 public:
  // nullptr when no kernel has that name.
  Function* newFunction(NS::String* name);
  Function* newFunction(const char* name);
  // With function constants; `error` names a missing kernel or constant.
  Function* newFunction(NS::String* name, const FunctionConstantValues* constants,
                        NS::Error** error);
  // The names of every kernel in the library.
  std::vector<std::string> functionNames() const;

 private:
  friend class Device;
  Library() = default;
  ~Library() override = default;
};

}  // namespace MTL
