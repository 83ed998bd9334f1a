#pragma once
// MTL::Buffer: shared CPU memory. Its contents end (16-byte aligned) against a PROT_NONE guard
// page, so a kernel reading or writing past the end faults and is reported as bounds.device
// instead of silently touching a neighbour; kernels compiled with the access-check pass see the
// bytes between the length and the guard page, and those before the contents, as out of bounds
// too (docs/checks.md).
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

class Buffer : public Resource {
 public:
  void* contents() const { return contents_; }
  NS::UInteger length() const { return length_; }
  void setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String* label() const;
  void didModifyRange(Range) {}
  // A texture over this buffer's bytes from `offset`, rows `bytesPerRow` apart (texture.cpp);
  // owned by the caller, it keeps the buffer alive. nullptr (and why, on stderr) when the
  // descriptor or the layout does not fit.
  Texture* newTexture(const TextureDescriptor* descriptor, NS::UInteger offset,
                      NS::UInteger bytesPerRow);

  // metalsim's own: the guard page after the contents, for fault reports, and the first byte of
  // the mapping (its guard page before the contents): [extentBegin, guardEnd) is this buffer's.
  const char* guardBegin() const;
  const char* guardEnd() const;
  const char* extentBegin() const { return static_cast<const char*>(mapping_); }
  const std::string& labelText() const { return label_; }

 private:
  friend class Device;
  explicit Buffer(NS::UInteger length);
  ~Buffer() override;
  void* mapping_ = nullptr;
  NS::UInteger mapping_size_ = 0;
  void* contents_ = nullptr;
  NS::UInteger length_ = 0;
  std::string label_;
};

}  // namespace MTL
