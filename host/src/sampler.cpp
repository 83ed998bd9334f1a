#include "metalsim/Metal/MTLSampler.hpp"

#include "metalsim/Metal/MTLDevice.hpp"
#include "simt/abi/texture_binding.h"

namespace MTL {

namespace engine = metalsim::engine;

static_assert(NS::UInteger(SamplerAddressModeClampToEdge) ==
              NS::UInteger(engine::SamplerAddress::clamp_to_edge));
static_assert(NS::UInteger(SamplerAddressModeMirrorRepeat) ==
              NS::UInteger(engine::SamplerAddress::mirrored_repeat));
static_assert(NS::UInteger(SamplerAddressModeClampToBorderColor) ==
              NS::UInteger(engine::SamplerAddress::clamp_to_border));
static_assert(NS::UInteger(SamplerMinMagFilterLinear) ==
              NS::UInteger(engine::SamplerFilter::linear));
static_assert(NS::UInteger(SamplerBorderColorOpaqueWhite) ==
              NS::UInteger(engine::SamplerBorder::opaque_white));

SamplerDescriptor* SamplerDescriptor::alloc() { return new SamplerDescriptor(); }

SamplerState::SamplerState(Device* device, const SamplerDescriptor& d)
    : device_(device), binding_(std::make_unique<engine::SamplerBinding>()), label_(d.labelText()) {
  engine::SamplerBinding& b = *binding_;
  b.normalized = d.normalizedCoordinates();
  b.s_address = engine::SamplerAddress(d.sAddressMode());
  b.t_address = engine::SamplerAddress(d.tAddressMode());
  b.r_address = engine::SamplerAddress(d.rAddressMode());
  b.mag_filter = engine::SamplerFilter(d.magFilter());
  b.min_filter = engine::SamplerFilter(d.minFilter());
  b.border = engine::SamplerBorder(d.borderColor());
}

SamplerState::~SamplerState() = default;

NS::String* SamplerState::label() const { return NS::String::string(label_.c_str()); }

SamplerState* Device::newSamplerState(const SamplerDescriptor* descriptor) {
  if (descriptor == nullptr) return nullptr;
  return new SamplerState(this, *descriptor);
}

}  // namespace MTL
