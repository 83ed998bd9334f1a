#include "metalsim/Metal/MTLTexture.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "metalsim/Metal/MTLBuffer.hpp"
#include "metalsim/Metal/MTLDevice.hpp"
#include "simt/abi/texture_binding.h"

namespace MTL {

// The host's enums are Metal's numbers, and so are the engine's.
#define METALSIM_SAME_PIXEL_FORMAT(name, value, component, channels, bgra) \
  static_assert(NS::UInteger(PixelFormat##name) == NS::UInteger(metalsim::abi::PixelFormat::name));
METALSIM_PIXEL_FORMATS(METALSIM_SAME_PIXEL_FORMAT)
#undef METALSIM_SAME_PIXEL_FORMAT
static_assert(NS::UInteger(TextureType1D) == NS::UInteger(metalsim::abi::TextureKind::texture1d));
static_assert(NS::UInteger(TextureType2D) == NS::UInteger(metalsim::abi::TextureKind::texture2d));
static_assert(NS::UInteger(TextureTypeTextureBuffer) ==
              NS::UInteger(metalsim::abi::TextureKind::texture_buffer));

// ------------------------------ TextureDescriptor

TextureDescriptor* TextureDescriptor::alloc() { return new TextureDescriptor(); }

TextureDescriptor* TextureDescriptor::texture2DDescriptor(PixelFormat pixelFormat,
                                                          NS::UInteger width, NS::UInteger height,
                                                          bool mipmapped) {
  TextureDescriptor* d = alloc()->init();
  d->setPixelFormat(pixelFormat);
  d->setWidth(width);
  d->setHeight(height);
  NS::UInteger levels = 1;
  for (NS::UInteger n = std::max(width, height); mipmapped && n > 1; n /= 2) ++levels;
  d->setMipmapLevelCount(levels);
  NS::autorelease(d);
  return d;
}

TextureDescriptor* TextureDescriptor::textureBufferDescriptor(PixelFormat pixelFormat,
                                                              NS::UInteger width,
                                                              ResourceOptions resourceOptions,
                                                              TextureUsage usage) {
  TextureDescriptor* d = alloc()->init();
  d->setTextureType(TextureTypeTextureBuffer);
  d->setPixelFormat(pixelFormat);
  d->setWidth(width);
  d->setResourceOptions(resourceOptions);
  d->setUsage(usage);
  NS::autorelease(d);
  return d;
}

// ------------------------------ Texture

namespace {

NS::UInteger level_size(NS::UInteger n, NS::UInteger level) {
  return std::max<NS::UInteger>(1, level < 64 ? n >> level : 0);
}

}  // namespace

Texture::Texture(const TextureDescriptor& d, Buffer* storage, bool from_buffer, NS::UInteger offset,
                 NS::UInteger bytes_per_row)
    : type_(d.textureType()),
      format_(d.pixelFormat()),
      usage_(d.usage()),
      storage_(storage),
      from_buffer_(from_buffer),
      offset_(offset),
      binding_(std::make_unique<metalsim::abi::TextureBinding>()) {
  storage_->retain();
  metalsim::abi::TextureBinding& b = *binding_;
  b.data = static_cast<char*>(storage_->contents()) + offset;
  b.width = uint32_t(d.width());
  b.height = type_ == TextureType2D ? uint32_t(d.height()) : 1;
  b.bytes_per_row = bytes_per_row;
  b.format = metalsim::abi::PixelFormat(format_);
  b.kind = metalsim::abi::TextureKind(type_);
  b.mipmap_levels = uint32_t(d.mipmapLevelCount());
  const uint64_t pixel = metalsim::abi::bytes_per_pixel(b.format);
  uint64_t at = bytes_per_row * b.height;
  for (uint32_t level = 1; level < b.mipmap_levels; ++level) {
    b.level_offsets[level] = at;
    at += pixel * level_size(b.width, level) * level_size(b.height, level);
  }
}

Texture::~Texture() { storage_->release(); }

NS::UInteger Texture::width() const { return binding_->width; }
NS::UInteger Texture::height() const { return binding_->height; }
NS::UInteger Texture::mipmapLevelCount() const { return binding_->mipmap_levels; }
NS::UInteger Texture::bufferBytesPerRow() const {
  return from_buffer_ ? binding_->bytes_per_row : 0;
}
NS::UInteger Texture::storageLength() const {
  const metalsim::abi::TextureBinding& b = *binding_;
  if (!from_buffer_) return storage_->length();
  return b.bytes_per_row * (b.height - 1) +
         NS::UInteger(b.width) * metalsim::abi::bytes_per_pixel(b.format);
}

NS::UInteger Texture::allocatedSize() const { return from_buffer_ ? 0 : storage_->allocatedSize(); }

NS::String* Texture::label() const { return NS::String::string(label_.c_str()); }

char* Texture::level_data(NS::UInteger level, NS::UInteger& bytes_per_row) const {
  const metalsim::abi::TextureBinding& b = *binding_;
  bytes_per_row = level == 0
                      ? b.bytes_per_row
                      : level_size(b.width, level) * metalsim::abi::bytes_per_pixel(b.format);
  return b.data + b.level_offset(uint32_t(level));
}

bool Texture::holds(const Region& r, NS::UInteger level, const char* what) const {
  const metalsim::abi::TextureBinding& b = *binding_;
  const bool inside = level < b.mipmap_levels && r.size.depth == 1 && r.origin.z == 0 &&
                      r.origin.x + r.size.width <= level_size(b.width, level) &&
                      r.origin.y + r.size.height <= level_size(b.height, level) &&
                      r.origin.x + r.size.width >= r.origin.x &&
                      r.origin.y + r.size.height >= r.origin.y;
  if (!inside)
    std::fprintf(stderr,
                 "metalsim: %s: region (%zu,%zu) size %zux%zu of level %zu is outside the "
                 "%ux%u texture; nothing copied\n",
                 what, size_t(r.origin.x), size_t(r.origin.y), size_t(r.size.width),
                 size_t(r.size.height), size_t(level), b.width, b.height);
  return inside;
}

void Texture::replaceRegion(Region region, NS::UInteger level, const void* bytes,
                            NS::UInteger bytesPerRow) {
  if (!holds(region, level, "replaceRegion")) return;
  NS::UInteger row_bytes = 0;
  char* base = level_data(level, row_bytes);
  const NS::UInteger pixel = metalsim::abi::bytes_per_pixel(binding_->format);
  const auto* src = static_cast<const char*>(bytes);
  for (NS::UInteger y = 0; y < region.size.height; ++y)
    std::memcpy(base + (region.origin.y + y) * row_bytes + region.origin.x * pixel,
                src + y * bytesPerRow, region.size.width * pixel);
}

void Texture::getBytes(void* bytes, NS::UInteger bytesPerRow, Region region,
                       NS::UInteger level) const {
  if (!holds(region, level, "getBytes")) return;
  NS::UInteger row_bytes = 0;
  const char* base = level_data(level, row_bytes);
  const NS::UInteger pixel = metalsim::abi::bytes_per_pixel(binding_->format);
  auto* dst = static_cast<char*>(bytes);
  for (NS::UInteger y = 0; y < region.size.height; ++y)
    std::memcpy(dst + y * bytesPerRow,
                base + (region.origin.y + y) * row_bytes + region.origin.x * pixel,
                region.size.width * pixel);
}

// ------------------------------ making textures

namespace {

// Why metalsim cannot make a texture of `d` ("" when it can). Metal's validation would stop the
// program; metal-cpp's newTexture has no error argument, so it is said on stderr with nullptr.
std::string unsupported(const TextureDescriptor& d) {
  if (metalsim::abi::bytes_per_pixel(metalsim::abi::PixelFormat(d.pixelFormat())) == 0)
    return "pixel format " + std::to_string(d.pixelFormat()) + " is not supported";
  const TextureType t = d.textureType();
  if (t != TextureType1D && t != TextureType2D && t != TextureTypeTextureBuffer)
    return "texture type " + std::to_string(t) + " is not supported (1D, 2D, texture buffer)";
  if (d.width() == 0 || d.height() == 0 || d.depth() != 1 || d.arrayLength() != 1 ||
      d.sampleCount() != 1)
    return "the size must be at least 1x1, depth, array length and sample count 1";
  NS::UInteger most = 1;
  for (NS::UInteger n = std::max(d.width(), d.height()); n > 1; n /= 2) ++most;
  if (d.mipmapLevelCount() == 0 || d.mipmapLevelCount() > most ||
      d.mipmapLevelCount() > metalsim::abi::kMaxMipmapLevels)
    return "mipmapLevelCount " + std::to_string(d.mipmapLevelCount()) + " is not 1.." +
           std::to_string(most);
  if (t != TextureType2D && d.height() != 1) return "a 1D texture or texture buffer has height 1";
  return "";
}

Texture* refuse(const char* what, const std::string& why) {
  std::fprintf(stderr, "metalsim: %s: %s; returning nullptr\n", what, why.c_str());
  return nullptr;
}

}  // namespace

Texture* Device::newTexture(const TextureDescriptor* descriptor) {
  if (descriptor == nullptr) return refuse("newTexture", "the descriptor is null");
  if (std::string why = unsupported(*descriptor); !why.empty()) return refuse("newTexture", why);
  const NS::UInteger pixel =
      metalsim::abi::bytes_per_pixel(metalsim::abi::PixelFormat(descriptor->pixelFormat()));
  NS::UInteger bytes = 0;
  for (NS::UInteger level = 0; level < descriptor->mipmapLevelCount(); ++level)
    bytes +=
        pixel * level_size(descriptor->width(), level) * level_size(descriptor->height(), level);
  Buffer* storage = newBuffer(bytes, ResourceStorageModeShared);
  Texture* t = new Texture(*descriptor, storage, false, 0, pixel * descriptor->width());
  storage->release();  // the texture holds it
  return t;
}

Texture* Buffer::newTexture(const TextureDescriptor* descriptor, NS::UInteger offset,
                            NS::UInteger bytesPerRow) {
  if (descriptor == nullptr) return refuse("Buffer::newTexture", "the descriptor is null");
  if (std::string why = unsupported(*descriptor); !why.empty())
    return refuse("Buffer::newTexture", why);
  if (descriptor->mipmapLevelCount() != 1)
    return refuse("Buffer::newTexture", "a texture over a buffer has one mipmap level");
  const NS::UInteger pixel =
      metalsim::abi::bytes_per_pixel(metalsim::abi::PixelFormat(descriptor->pixelFormat()));
  const NS::UInteger row = pixel * descriptor->width();
  if (bytesPerRow < row)
    return refuse("Buffer::newTexture", "bytesPerRow " + std::to_string(bytesPerRow) +
                                            " is under one row's " + std::to_string(row));
  const NS::UInteger end = offset + bytesPerRow * (descriptor->height() - 1) + row;
  if (end > length() || offset > length())
    return refuse("Buffer::newTexture", "the texture's " + std::to_string(end - offset) +
                                            " bytes at offset " + std::to_string(offset) +
                                            " pass the buffer's " + std::to_string(length()));
  if (offset % pixel != 0)
    return refuse("Buffer::newTexture",
                  "offset " + std::to_string(offset) + " is not a multiple of the pixel size");
  return new Texture(*descriptor, this, true, offset, bytesPerRow);
}

}  // namespace MTL
