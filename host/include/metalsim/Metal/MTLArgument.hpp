#pragma once
// A pipeline's reflection, as metal-cpp spells it: MTL::Binding for each argument of the kernel
// that the host binds (buffers, threadgroup memory, textures, samplers; not the built-ins), with
// the Binding subclasses' details. Made by Device::newComputePipelineState with a reflection
// out-parameter. isUsed() is false for an argument the pipeline's function constants remove
// ([[function_constant(c)]] with c false) and for one the kernel's optimised code never reads
// (docs/front.md, "Inactive arguments"): neither needs a binding.
#include <string>

#include "metalsim/Foundation/NSArray.hpp"
#include "metalsim/Foundation/NSObject.hpp"
#include "metalsim/Metal/MTLTexture.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

enum BindingType : NS::Integer {
  BindingTypeBuffer = 0,
  BindingTypeThreadgroupMemory = 1,
  BindingTypeTexture = 2,
  BindingTypeSampler = 3,
};

enum BindingAccess : NS::UInteger {
  BindingAccessReadOnly = 0,
  BindingAccessReadWrite = 1,
  BindingAccessWriteOnly = 2,
};

// What every binding says. Cast to BufferBinding, ThreadgroupBinding or TextureBinding by
// type(), as with metal-cpp.
class Binding : public NS::Object {
 public:
  struct Description {
    std::string name;
    BindingType type = BindingTypeBuffer;
    BindingAccess access = BindingAccessReadOnly;
    NS::UInteger index = 0;
    bool used = true;
    std::string type_name;  // the parameter's type as written in the source
  };

  NS::String* name() const { return NS::String::string(d_.name.c_str()); }
  BindingType type() const { return d_.type; }
  BindingAccess access() const { return d_.access; }
  NS::UInteger index() const { return d_.index; }
  bool isUsed() const { return d_.used; }
  bool isArgument() const { return false; }  // argument buffers: not modelled
  // metalsim's own: the parameter's type as the kernel's source writes it ("device const
  // float*"), for messages that name it.
  NS::String* typeName() const { return NS::String::string(d_.type_name.c_str()); }

 protected:
  explicit Binding(Description d) : d_(std::move(d)) {}
  ~Binding() override = default;

 private:
  Description d_;
};

class BufferBinding : public Binding {
 public:
  BufferBinding(Description d, NS::UInteger data_size, NS::UInteger alignment, DataType data_type,
                bool single_element)
      : Binding(std::move(d)),
        data_size_(data_size),
        alignment_(alignment),
        data_type_(data_type),
        single_element_(single_element) {}
  // Bytes and alignment of one element the argument points to (of the referenced object for
  // `constant T&`).
  NS::UInteger bufferDataSize() const { return data_size_; }
  NS::UInteger bufferAlignment() const { return alignment_; }
  // The element's type where it is a scalar or vector Metal names, else DataTypeNone (a struct).
  DataType bufferDataType() const { return data_type_; }
  // metalsim's own: `constant T&` (one element must be bound), not a pointer.
  bool isReference() const { return single_element_; }

 private:
  ~BufferBinding() override = default;
  NS::UInteger data_size_, alignment_;
  DataType data_type_;
  bool single_element_;
};

class ThreadgroupBinding : public Binding {
 public:
  ThreadgroupBinding(Description d, NS::UInteger data_size, NS::UInteger alignment)
      : Binding(std::move(d)), data_size_(data_size), alignment_(alignment) {}
  NS::UInteger threadgroupMemoryDataSize() const { return data_size_; }
  NS::UInteger threadgroupMemoryAlignment() const { return alignment_; }

 private:
  ~ThreadgroupBinding() override = default;
  NS::UInteger data_size_, alignment_;
};

class TextureBinding : public Binding {
 public:
  TextureBinding(Description d, TextureType texture_type)
      : Binding(std::move(d)), texture_type_(texture_type) {}
  TextureType textureType() const { return texture_type_; }
  bool isDepthTexture() const { return false; }
  NS::UInteger arrayLength() const { return 1; }

 private:
  ~TextureBinding() override = default;
  TextureType texture_type_;
};

// A sampler binding says no more than Binding does.
class SamplerBinding : public Binding {
 public:
  explicit SamplerBinding(Description d) : Binding(std::move(d)) {}

 private:
  ~SamplerBinding() override = default;
};

class ComputePipelineReflection : public NS::Object {
 public:
  explicit ComputePipelineReflection(NS::Array* bindings) : bindings_(NS::RetainPtr(bindings)) {}
  // Every argument the host binds, in the kernel's parameter order.
  NS::Array* bindings() const { return bindings_.get(); }

 private:
  ~ComputePipelineReflection() override = default;
  NS::SharedPtr<NS::Array> bindings_;
};
using AutoreleasedComputePipelineReflection = ComputePipelineReflection*;

}  // namespace MTL
