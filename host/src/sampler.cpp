#include "metalsim/Metal/MTLSampler.hpp"

#include "metalsim/Metal/MTLDevice.hpp"
#include "simt/abi/texture_binding.h"

namespace MTL {

static_assert(NS::UInteger(SamplerAddressModeClampToEdge) ==
              NS::UInteger(metalsim::abi::SamplerAddress::clamp_to_edge));
static_assert(NS::UInteger(SamplerAddressModeMirrorRepeat) ==
              NS::UInteger(metalsim::abi::SamplerAddress::mirrored_repeat));
static_assert(NS::UInteger(SamplerAddressModeClampToBorderColor) ==
              NS::UInteger(metalsim::abi::SamplerAddress::clamp_to_border));
static_assert(NS::UInteger(SamplerMinMagFilterLinear) ==
              NS::UInteger(metalsim::abi::SamplerFilter::linear));
static_assert(NS::UInteger(SamplerBorderColorOpaqueWhite) ==
              NS::UInteger(metalsim::abi::SamplerBorder::opaque_white));

SamplerDescriptor* SamplerDescriptor::alloc() { return new SamplerDescriptor(); }

SamplerState::SamplerState(Device* device, const SamplerDescriptor& d)
    : device_(device),
      binding_(std::make_unique<metalsim::abi::SamplerBinding>()),
      label_(d.labelText()) {
  metalsim::abi::SamplerBinding& b = *binding_;
  b.normalized = d.normalizedCoordinates();
  b.s_address = metalsim::abi::SamplerAddress(d.sAddressMode());
  b.t_address = metalsim::abi::SamplerAddress(d.tAddressMode());
  b.r_address = metalsim::abi::SamplerAddress(d.rAddressMode());
  b.mag_filter = metalsim::abi::SamplerFilter(d.magFilter());
  b.min_filter = metalsim::abi::SamplerFilter(d.minFilter());
  b.border = metalsim::abi::SamplerBorder(d.borderColor());
}

SamplerState::~SamplerState() = default;

NS::String* SamplerState::label() const { return NS::String::string(label_.c_str()); }

SamplerState* Device::newSamplerState(const SamplerDescriptor* descriptor) {
  if (descriptor == nullptr) return nullptr;
  return new SamplerState(this, *descriptor);
}

}  // namespace MTL
