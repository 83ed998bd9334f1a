#pragma once
// MTL::Buffer: shared CPU memory. Its contents end (16-byte aligned) against a PROT_NONE guard
// page, so a kernel reading or writing past the end faults and is reported as bounds.device
// instead of silently touching a neighbour; kernels compiled with the access-check pass see the
// bytes between the length and the guard page, and those before the contents, as out of bounds
// too (docs/checks.md).
//
// A no-copy buffer (Device::newBuffer with a deallocator, metal-cpp's newBufferWithBytesNoCopy)
// is the caller's memory instead: no guard pages, and what lies around it is not metalsim's to
// mark. The access checks see the bytes of its first and last 16-byte granules that are not its
// own as out of bounds (a read one element past an odd-sized buffer); past its last granule they
// see whatever memory is there (docs/host_api.md#no-copy-buffers).
#include <cstdint>
#include <functional>
#include <string>

#include "metalsim/Metal/MTLResource.hpp"
#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

class Texture;
class TextureDescriptor;

struct Range {
  NS::UInteger location = 0, length = 0;
  static Range Make(NS::UInteger loc, NS::UInteger len) { return {loc, len}; }
};

// Called with the contents and the length when a no-copy buffer is released (Metal's block;
// any callable here). May be empty.
using BufferDeallocator = std::function<void(void* pointer, NS::UInteger length)>;

class Buffer : public Resource {
 public:
  // Null and 0 on a null buffer, as messages to nil (NS::is_nil); out of line, as metal-cpp's
  // messages are, so that the compiler does not see a null it would warn of at every use.
  void* contents() const;
  NS::UInteger length() const;
  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String* label() const;
  void didModifyRange(Range) {}
  NS::UInteger allocatedSize() const override;  // MTLAllocation.hpp
  // A texture over this buffer's bytes from `offset`, rows `bytesPerRow` apart (texture.cpp);
  // owned by the caller, it keeps the buffer alive. nullptr (and why, on stderr) when the
  // descriptor or the layout does not fit.
  Texture* newTexture(const TextureDescriptor* descriptor, NS::UInteger offset,
                      NS::UInteger bytesPerRow);

  // metalsim's own: the guard page after the contents, for fault reports, and the first byte of
  // the mapping (its guard page before the contents): [extentBegin, guardEnd) is this buffer's.
  // A no-copy buffer has no guard page (guardBegin() == guardEnd()): its extent is the 16-byte
  // granules its contents touch.
  const char* guardBegin() const;
  const char* guardEnd() const;
  const char* extentBegin() const;
  const std::string& labelText() const { return label_; }
  // metalsim's own: contents() is the caller's memory (a no-copy buffer).
  bool isNoCopy() const { return mapping_ == nullptr; }
  // metalsim's own: a number no other buffer of the process has (memory is reused, this is not).
  uint64_t identity() const { return identity_; }

 private:
  friend class Device;
  friend class Heap;
  explicit Buffer(NS::UInteger length);
  Buffer(void* pointer, NS::UInteger length, BufferDeallocator deallocator);
  ~Buffer() override;
  BufferDeallocator deallocator_;  // a no-copy buffer's
  NS::UInteger heap_bytes_ = 0;    // what it takes of its heap (heap_, retained)
  uint64_t identity_;
  void* mapping_ = nullptr;  // null: a no-copy buffer
  NS::UInteger mapping_size_ = 0;
  void* contents_ = nullptr;
  NS::UInteger length_ = 0;
  std::string label_;
};

}  // namespace MTL
