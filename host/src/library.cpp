#include "metalsim/Metal/MTLLibrary.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "autoreleased_error.h"
#include "host/src/pipeline_reflection.h"
#include "loaded_kernels.h"
#include "runtime_compiler.h"
#include "simt/abi/argument_reads.h"
#include "simt/abi/kernel.h"

namespace MTL {
using metalsim::host::autoreleased_error;

void FunctionConstantValues::setConstantValue(const void* value, DataType type,
                                              NS::UInteger index) {
  if (values_.size() <= index) values_.resize(index + 1);
  const NS::UInteger size = dataTypeSize(type);
  auto* bytes = static_cast<const unsigned char*>(value);
  values_[index].assign(bytes, bytes + size);
}

void FunctionConstantValues::setConstantValues(const void* values, DataType type, Range range) {
  auto* bytes = static_cast<const unsigned char*>(values);
  for (NS::UInteger i = 0; i < range.length; ++i)
    setConstantValue(bytes + i * dataTypeSize(type), type, range.location + i);
}

Function::Function(const metalsim::abi::KernelInfo* kernel, FunctionConstantValues* constants,
                   bool specialised)
    : kernel_(kernel), constants_(NS::RetainPtr(constants)), specialised_(specialised) {}

NS::String* Function::name() const { return NS::String::string(kernel_->name); }

NS::Dictionary* Function::functionConstantsDictionary() const {
  std::vector<const NS::Object*> keys, values;
  if (specialised_) return NS::Dictionary::dictionary();
  for (const metalsim::host::UsedConstant& c : metalsim::host::used_function_constants(*kernel_)) {
    auto* constant =
        new FunctionConstant(NS::String::string(c.info->name),
                             metalsim::host::data_type_of(c.info->type), c.info->index, c.required);
    NS::autorelease(constant);
    keys.push_back(constant->name());
    values.push_back(constant);
  }
  return NS::Dictionary::dictionary(values.data(), keys.data(), keys.size());
}

namespace {

// Why the values given do not fit the kernel's function constants ("" when they do): a value
// whose size is that of no constant declared at its index. Sources linked into one library
// (MLX's mlx.metallib: rope.metal's bool `forward` and conv.metal's int `ker_w` are both index
// 1) put every source's constants in the kernel's translation unit, where Metal keeps them per
// source: among declarations sharing an index, one of the size given is taken for the kernel's.
std::string constant_size_mismatch(const metalsim::abi::KernelInfo& k,
                                   const FunctionConstantValues* constants) {
  if (constants == nullptr) return "";
  const auto& values = constants->values();
  for (const auto& fc : k.function_constants) {
    if (fc.index >= values.size() || values[fc.index].empty()) continue;
    const size_t given = values[fc.index].size();
    const bool one_fits = std::any_of(
        k.function_constants.begin(), k.function_constants.end(),
        [&](const auto& other) { return other.index == fc.index && other.size == given; });
    if (!one_fits)
      return "function constant '" + std::string(fc.name) + "' (index " + std::to_string(fc.index) +
             ") is " + fc.type + " of " + std::to_string(fc.size) + " bytes; the value given has " +
             std::to_string(given);
  }
  return "";
}

}  // namespace

Function* Library::newFunction(NS::String* name) {
  return name == nullptr ? nullptr : newFunction(name->utf8String());
}

// A library compiled at run time compiles the function here, when first asked for: specialised
// with the constants given (runtime_compiler.h), as Metal specialises it.
const metalsim::abi::KernelInfo* Library::find(const char* name, std::string* problem,
                                               const FunctionConstantValues* constants) const {
  if (loaded_ == nullptr) return metalsim::abi::KernelRegistry::find(name);
  return loaded_->function(
      name, problem,
      constants != nullptr ? metalsim::host::function_constant_values(constants->values()) : "");
}

Function* Library::newFunction(const char* name) {
  std::string problem;
  const metalsim::abi::KernelInfo* k = find(name, &problem);
  return k == nullptr ? nullptr : new Function(k, nullptr, false);
}

Function* Library::newFunction(NS::String* name, const FunctionConstantValues* constants,
                               NS::Error** error) {
  const char* text = name != nullptr ? name->utf8String() : "";
  std::string problem;
  const metalsim::abi::KernelInfo* k = find(text, &problem, constants);
  if (k == nullptr) {
    if (error != nullptr)
      *error = problem.empty() ? autoreleased_error(
                                     LibraryErrorFunctionNotFound,
                                     std::string("no kernel named '") + text + "' in the library")
                               : autoreleased_error(LibraryErrorCompileFailure, problem);
    return nullptr;
  }
  if (const std::string mismatch = constant_size_mismatch(*k, constants); !mismatch.empty()) {
    if (error != nullptr) *error = autoreleased_error(2, mismatch);
    return nullptr;
  }
  // Metal specialises the function here: a function constant the function reads with no value
  // given and no default (is_function_constant_defined) fails its compile. Without values (null)
  // the function stays unspecialised, as newFunction(name) leaves it.
  if (constants == nullptr) return new Function(k, nullptr, false);
  for (const uint32_t index : metalsim::abi::required_function_constants(*k)) {
    const bool set = index < constants->values().size() && !constants->values()[index].empty();
    if (set) continue;
    std::string which = "at index " + std::to_string(index), declared;
    for (const auto& fc : k->function_constants) {
      if (fc.index != index) continue;
      which =
          "'" + std::string(fc.name) + "' (" + fc.type + " at index " + std::to_string(index) + ")";
      if (fc.source_file[0] != '\0')
        declared = std::string(" (declared at ") + fc.source_file + ":" +
                   std::to_string(fc.source_line) + ")";
    }
    if (error != nullptr)
      *error =
          autoreleased_error(LibraryErrorCompileFailure,
                             std::string(k->source_file) + ":" + std::to_string(k->source_line) +
                                 ": error: function constant " + which + " has no value" +
                                 declared + ": kernel '" + k->name +
                                 "' reads it, and it has no default (set it with "
                                 "FunctionConstantValues::setConstantValue)");
    return nullptr;
  }
  return new Function(k, const_cast<FunctionConstantValues*>(constants), true);
}

const std::vector<metalsim::abi::FunctionConstantInfo>* Library::declaredFunctionConstants() const {
  return loaded_ != nullptr ? loaded_->declared_constants() : nullptr;
}

Function* Library::newFunction(const FunctionDescriptor* descriptor, NS::Error** error) {
  if (descriptor == nullptr) {
    if (error != nullptr)
      *error =
          autoreleased_error(LibraryErrorFunctionNotFound, "newFunction: the descriptor is null");
    return nullptr;
  }
  return newFunction(descriptor->name(), descriptor->constantValues(), error);
}

std::vector<std::string> Library::functionNames() const {
  std::vector<std::string> names;
  if (loaded_ != nullptr) {
    names = loaded_->names();
  } else {
    for (const auto* k : metalsim::abi::KernelRegistry::all()) names.emplace_back(k->name);
  }
  return names;
}

}  // namespace MTL
