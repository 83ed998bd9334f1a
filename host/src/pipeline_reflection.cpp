#include "host/src/pipeline_reflection.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "simt/abi/argument_reads.h"

namespace metalsim::host {
namespace {

using abi::ArgInfo;
using abi::ArgKind;

}  // namespace

MTL::DataType data_type_of(std::string_view type) {
  struct Named {
    std::string_view name;
    MTL::DataType type;
  };
  static constexpr Named kNamed[] = {
      {"float4", MTL::DataTypeFloat4},
      {"float3", MTL::DataTypeFloat3},
      {"float2", MTL::DataTypeFloat2},
      {"float", MTL::DataTypeFloat},
      {"half4", MTL::DataTypeHalf4},
      {"half3", MTL::DataTypeHalf3},
      {"half2", MTL::DataTypeHalf2},
      {"half", MTL::DataTypeHalf},
      {"uint4", MTL::DataTypeUInt4},
      {"uint3", MTL::DataTypeUInt3},
      {"uint2", MTL::DataTypeUInt2},
      {"uint", MTL::DataTypeUInt},
      {"int4", MTL::DataTypeInt4},
      {"int3", MTL::DataTypeInt3},
      {"int2", MTL::DataTypeInt2},
      {"int", MTL::DataTypeInt},
      {"ushort", MTL::DataTypeUShort},
      {"short", MTL::DataTypeShort},
      {"uchar", MTL::DataTypeUChar},
      {"char", MTL::DataTypeChar},
      {"bool", MTL::DataTypeBool},
      {"ulong", MTL::DataTypeULong},
      {"long", MTL::DataTypeLong},
      // The <metal_stdlib> spellings of the same types.
      {"int32_t", MTL::DataTypeInt},
      {"uint32_t", MTL::DataTypeUInt},
      {"int16_t", MTL::DataTypeShort},
      {"uint16_t", MTL::DataTypeUShort},
      {"int8_t", MTL::DataTypeChar},
      {"uint8_t", MTL::DataTypeUChar},
      {"int64_t", MTL::DataTypeLong},
      {"uint64_t", MTL::DataTypeULong},
  };
  // The last word before the '*' or '&': the pointee's type name.
  size_t end = type.find_last_not_of(" *&");
  if (end == std::string_view::npos) return MTL::DataTypeNone;
  size_t begin = type.find_last_of(" :", end);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  const std::string_view word = type.substr(begin, end + 1 - begin);
  for (const Named& n : kNamed)
    if (n.name == word) return n.type;
  return MTL::DataTypeNone;
}

std::vector<UsedConstant> used_function_constants(const abi::KernelInfo& kernel) {
  std::vector<UsedConstant> out;
  if (!abi::argument_reads_known(kernel)) {
    for (const abi::FunctionConstantInfo& fc : kernel.function_constants)
      out.push_back({&fc, false});
    return out;
  }
  const std::vector<uint32_t> required = abi::required_function_constants(kernel);
  for (const uint32_t index : abi::used_function_constants(kernel))
    for (const abi::FunctionConstantInfo& fc : kernel.function_constants)
      if (fc.index == index) {
        out.push_back({&fc, std::find(required.begin(), required.end(), index) != required.end()});
        break;
      }
  return out;
}

std::string unspecialised_function_message(const abi::KernelInfo& kernel,
                                           const std::vector<UsedConstant>& used) {
  std::string out = std::string(kernel.source_file) + ":" + std::to_string(kernel.source_line) +
                    ": error: function '" + kernel.name +
                    "' uses function constants and is not specialised; Metal makes no pipeline of "
                    "it (newFunction(name) gives a function that only reports its constants). "
                    "Make it with Library::newFunction(name, constants, &error), as "
                    "newFunctionWithName:constantValues:error: (empty values leave every constant "
                    "undefined, for constants with a default or tested with "
                    "is_function_constant_defined). Its constants:";
  for (const UsedConstant& c : used) {
    out += "\n  ";
    if (c.info->source_file[0] != '\0')
      out += std::string(c.info->source_file) + ":" + std::to_string(c.info->source_line) + ": ";
    out += "'" + std::string(c.info->name) + "' (" + c.info->type + " at index " +
           std::to_string(c.info->index) + ")" +
           (c.required ? ", required: it has no default" : ", optional");
  }
  return out;
}

namespace {

MTL::BindingAccess texture_access(abi::TextureAccess access) {
  switch (access) {
    case abi::TextureAccess::sample:
    case abi::TextureAccess::read: return MTL::BindingAccessReadOnly;
    case abi::TextureAccess::write: return MTL::BindingAccessWriteOnly;
    case abi::TextureAccess::read_write: return MTL::BindingAccessReadWrite;
  }
  return MTL::BindingAccessReadOnly;
}

MTL::Binding::Description describe(const ArgInfo& a, MTL::BindingType type,
                                   MTL::BindingAccess access, bool used) {
  return {a.name, type, access, a.index, used, a.type};
}

// The binding of one argument the host binds; nullptr for a built-in.
MTL::Binding* binding_of(const ArgInfo& a, bool used) {
  const MTL::BindingAccess data_access =
      a.is_const ? MTL::BindingAccessReadOnly : MTL::BindingAccessReadWrite;
  switch (a.kind) {
    case ArgKind::DeviceBuffer:
    case ArgKind::ConstantBuffer:
      return new MTL::BufferBinding(describe(a, MTL::BindingTypeBuffer, data_access, used),
                                    a.element_size, a.element_align, data_type_of(a.type),
                                    a.is_reference);
    case ArgKind::Threadgroup:
      return new MTL::ThreadgroupBinding(
          describe(a, MTL::BindingTypeThreadgroupMemory, data_access, used), a.element_size,
          a.element_align);
    case ArgKind::Texture:
      return new MTL::TextureBinding(
          describe(a, MTL::BindingTypeTexture, texture_access(a.texture.access), used),
          MTL::TextureType(a.texture.kind));
    case ArgKind::Sampler:
      return new MTL::SamplerBinding(
          describe(a, MTL::BindingTypeSampler, MTL::BindingAccessReadOnly, used));
    case ArgKind::Builtin: return nullptr;
  }
  return nullptr;
}

}  // namespace

MTL::ComputePipelineReflection* reflect_pipeline(const abi::KernelInfo& kernel,
                                                 std::span<const void* const> constants) {
  std::vector<NS::SharedPtr<MTL::Binding>> owned;
  std::vector<const NS::Object*> objects;
  for (const ArgInfo& a : kernel.args) {
    MTL::Binding* b = binding_of(a, abi::argument_active(kernel, a, constants));
    if (b == nullptr) continue;
    owned.push_back(NS::TransferPtr(b));
    objects.push_back(b);
  }
  auto* reflection =
      new MTL::ComputePipelineReflection(NS::Array::array(objects.data(), objects.size()));
  NS::autorelease(reflection);
  return reflection;
}

}  // namespace metalsim::host
