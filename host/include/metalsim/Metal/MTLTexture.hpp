#pragma once
// MTL::TextureDescriptor and MTL::Texture (docs/textures.md): 1D, 2D and texture-buffer textures
// in shared CPU memory. A texture made by Device::newTexture owns a guarded buffer of its own,
// its rows packed (level 0 first, then each mipmap level); one made by Buffer::newTexture reads
// and writes the buffer's bytes at an offset, rows bytesPerRow apart.
#include <memory>
#include <string>

#include "metalsim/Metal/MTLPixelFormat.hpp"
#include "metalsim/Metal/MTLResource.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace metalsim::abi {
struct TextureBinding;
}

namespace MTL {

class Buffer;
class Device;

enum TextureType : NS::UInteger {
  TextureType1D = 0,
  TextureType1DArray = 1,
  TextureType2D = 2,
  TextureType2DArray = 3,
  TextureType2DMultisample = 4,
  TextureTypeCube = 5,
  TextureTypeCubeArray = 6,
  TextureType3D = 7,
  TextureType2DMultisampleArray = 8,
  TextureTypeTextureBuffer = 9,
};

enum TextureUsage : NS::UInteger {
  TextureUsageUnknown = 0,
  TextureUsageShaderRead = 1 << 0,
  TextureUsageShaderWrite = 1 << 1,
  TextureUsageRenderTarget = 1 << 2,
  TextureUsagePixelFormatView = 1 << 4,
  TextureUsageShaderAtomic = 1 << 5,
};
inline TextureUsage operator|(TextureUsage a, TextureUsage b) {
  return TextureUsage(NS::UInteger(a) | NS::UInteger(b));
}

class TextureDescriptor : public NS::Object {
 public:
  static TextureDescriptor* alloc();
  TextureDescriptor* init() { return this; }
  // Not owned by the caller (autoreleased), as in metal-cpp. `mipmapped`: every level down to 1x1.
  static TextureDescriptor* texture2DDescriptor(PixelFormat pixelFormat, NS::UInteger width,
                                                NS::UInteger height, bool mipmapped);
  static TextureDescriptor* textureBufferDescriptor(PixelFormat pixelFormat, NS::UInteger width,
                                                    ResourceOptions resourceOptions,
                                                    TextureUsage usage);

  void setTextureType(TextureType t) { type_ = t; }
  void setPixelFormat(PixelFormat f) { format_ = f; }
  void setWidth(NS::UInteger w) { width_ = w; }
  void setHeight(NS::UInteger h) { height_ = h; }
  void setDepth(NS::UInteger d) { depth_ = d; }
  void setMipmapLevelCount(NS::UInteger n) { levels_ = n; }
  void setArrayLength(NS::UInteger n) { array_length_ = n; }
  void setSampleCount(NS::UInteger n) { sample_count_ = n; }
  void setUsage(TextureUsage u) { usage_ = u; }
  void setStorageMode(StorageMode m) { storage_ = m; }
  void setResourceOptions(ResourceOptions o) { options_ = o; }

  TextureType textureType() const { return type_; }
  PixelFormat pixelFormat() const { return format_; }
  NS::UInteger width() const { return width_; }
  NS::UInteger height() const { return height_; }
  NS::UInteger depth() const { return depth_; }
  NS::UInteger mipmapLevelCount() const { return levels_; }
  NS::UInteger arrayLength() const { return array_length_; }
  NS::UInteger sampleCount() const { return sample_count_; }
  TextureUsage usage() const { return usage_; }
  StorageMode storageMode() const { return storage_; }
  ResourceOptions resourceOptions() const { return options_; }

 private:
  TextureDescriptor() = default;
  ~TextureDescriptor() override = default;
  // Metal's defaults.
  TextureType type_ = TextureType2D;
  PixelFormat format_ = PixelFormatRGBA8Unorm;
  NS::UInteger width_ = 1, height_ = 1, depth_ = 1, levels_ = 1, array_length_ = 1;
  NS::UInteger sample_count_ = 1;
  TextureUsage usage_ = TextureUsageShaderRead;
  StorageMode storage_ = StorageModeShared;
  ResourceOptions options_ = ResourceStorageModeShared;
};

class Texture : public Resource {
 public:
  // Copies `bytes` (rows `bytesPerRow` apart) into `region` of mipmap `level`. A region outside
  // the level copies nothing and says so on stderr (Metal's validation would stop the program).
  void replaceRegion(Region region, NS::UInteger level, const void* bytes,
                     NS::UInteger bytesPerRow);
  // Copies `region` of mipmap `level` into `bytes`, rows `bytesPerRow` apart.
  void getBytes(void* bytes, NS::UInteger bytesPerRow, Region region, NS::UInteger level) const;

  TextureType textureType() const { return type_; }
  PixelFormat pixelFormat() const { return format_; }
  NS::UInteger width() const;
  NS::UInteger height() const;
  NS::UInteger depth() const { return 1; }
  NS::UInteger mipmapLevelCount() const;
  NS::UInteger arrayLength() const { return 1; }
  TextureUsage usage() const { return usage_; }
  StorageMode storageMode() const { return StorageModeShared; }
  // The buffer a texture buffer (Buffer::newTexture) reads: nullptr for Device::newTexture's.
  Buffer* buffer() const { return from_buffer_ ? storage_ : nullptr; }
  NS::UInteger bufferOffset() const { return offset_; }
  NS::UInteger bufferBytesPerRow() const;
  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String* label() const;
  NS::UInteger allocatedSize() const override;  // MTLAllocation.hpp

  // metalsim's own: what a kernel's [[texture(N)]] reads (simt/abi/texture_binding.h).
  const metalsim::abi::TextureBinding& binding() const { return *binding_; }
  const std::string& labelText() const { return label_; }
  // The buffer holding the pixels (its own, or the one given to Buffer::newTexture) and the
  // bytes of it the texture spans from binding().data: initcheck restores them between its runs
  // and fault reports name them (validation puts them in the dispatch's memory ranges).
  const Buffer* storageBuffer() const { return storage_; }
  NS::UInteger storageLength() const;

 private:
  friend class Device;
  friend class Buffer;
  // `storage`: the bytes (retained); `from_buffer`: a caller's buffer (Buffer::newTexture).
  Texture(const TextureDescriptor& d, Buffer* storage, bool from_buffer, NS::UInteger offset,
          NS::UInteger bytes_per_row);
  ~Texture() override;
  char* level_data(NS::UInteger level, NS::UInteger& bytes_per_row) const;
  bool holds(const Region& region, NS::UInteger level, const char* what) const;

  TextureType type_;
  PixelFormat format_;
  TextureUsage usage_;
  Buffer* storage_;
  bool from_buffer_;
  NS::UInteger offset_;
  std::unique_ptr<metalsim::abi::TextureBinding> binding_;
  std::string label_;
};

}  // namespace MTL
