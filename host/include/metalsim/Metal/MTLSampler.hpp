#pragma once
// MTL::SamplerDescriptor and MTL::SamplerState (docs/textures.md): the state a kernel's
// [[sampler(N)]] argument samples with.
#include <memory>
#include <string>

#include "metalsim/Metal/MTLTypes.hpp"

namespace metalsim::abi {
struct SamplerBinding;
}

namespace MTL {

class Device;

enum SamplerMinMagFilter : NS::UInteger {
  SamplerMinMagFilterNearest = 0,
  SamplerMinMagFilterLinear = 1,
};

enum SamplerMipFilter : NS::UInteger {
  SamplerMipFilterNotMipmapped = 0,
  SamplerMipFilterNearest = 1,
  SamplerMipFilterLinear = 2,
};

enum SamplerAddressMode : NS::UInteger {
  SamplerAddressModeClampToEdge = 0,
  SamplerAddressModeMirrorClampToEdge = 1,
  SamplerAddressModeRepeat = 2,
  SamplerAddressModeMirrorRepeat = 3,
  SamplerAddressModeClampToZero = 4,
  SamplerAddressModeClampToBorderColor = 5,
};

enum SamplerBorderColor : NS::UInteger {
  SamplerBorderColorTransparentBlack = 0,
  SamplerBorderColorOpaqueBlack = 1,
  SamplerBorderColorOpaqueWhite = 2,
};

class SamplerDescriptor : public NS::Object {
 public:
  static SamplerDescriptor* alloc();
  SamplerDescriptor* init() { return this; }

  void setMinFilter(SamplerMinMagFilter f) { min_filter_ = f; }
  void setMagFilter(SamplerMinMagFilter f) { mag_filter_ = f; }
  void setMipFilter(SamplerMipFilter f) { mip_filter_ = f; }
  void setSAddressMode(SamplerAddressMode m) { s_ = m; }
  void setTAddressMode(SamplerAddressMode m) { t_ = m; }
  void setRAddressMode(SamplerAddressMode m) { r_ = m; }
  void setBorderColor(SamplerBorderColor c) { border_ = c; }
  void setNormalizedCoordinates(bool n) { normalized_ = n; }
  void setMaxAnisotropy(NS::UInteger n) { max_anisotropy_ = n; }
  void setLodMinClamp(float v) { lod_min_ = v; }
  void setLodMaxClamp(float v) { lod_max_ = v; }
  void setSupportArgumentBuffers(bool b) { argument_buffers_ = b; }
  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }

  SamplerMinMagFilter minFilter() const { return min_filter_; }
  SamplerMinMagFilter magFilter() const { return mag_filter_; }
  SamplerMipFilter mipFilter() const { return mip_filter_; }
  SamplerAddressMode sAddressMode() const { return s_; }
  SamplerAddressMode tAddressMode() const { return t_; }
  SamplerAddressMode rAddressMode() const { return r_; }
  SamplerBorderColor borderColor() const { return border_; }
  bool normalizedCoordinates() const { return normalized_; }
  NS::UInteger maxAnisotropy() const { return max_anisotropy_; }
  float lodMinClamp() const { return lod_min_; }
  float lodMaxClamp() const { return lod_max_; }
  bool supportArgumentBuffers() const { return argument_buffers_; }
  const std::string& labelText() const { return label_; }

 private:
  SamplerDescriptor() = default;
  ~SamplerDescriptor() override = default;
  // Metal's defaults.
  SamplerMinMagFilter min_filter_ = SamplerMinMagFilterNearest;
  SamplerMinMagFilter mag_filter_ = SamplerMinMagFilterNearest;
  SamplerMipFilter mip_filter_ = SamplerMipFilterNotMipmapped;
  SamplerAddressMode s_ = SamplerAddressModeClampToEdge;
  SamplerAddressMode t_ = SamplerAddressModeClampToEdge;
  SamplerAddressMode r_ = SamplerAddressModeClampToEdge;
  SamplerBorderColor border_ = SamplerBorderColorTransparentBlack;
  bool normalized_ = true;
  NS::UInteger max_anisotropy_ = 1;
  float lod_min_ = 0.0f, lod_max_ = 3.402823466e38f;
  bool argument_buffers_ = false;
  std::string label_;
};

class SamplerState : public NS::Object {
 public:
  Device* device() const { return device_; }
  NS::String* label() const;

  // metalsim's own: what a kernel's [[sampler(N)]] samples with (simt/abi/texture_binding.h).
  const metalsim::abi::SamplerBinding& binding() const { return *binding_; }

 private:
  friend class Device;
  SamplerState(Device* device, const SamplerDescriptor& descriptor);
  ~SamplerState() override;
  Device* device_;
  std::unique_ptr<metalsim::abi::SamplerBinding> binding_;
  std::string label_;
};

}  // namespace MTL
