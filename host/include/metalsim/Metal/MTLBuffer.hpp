#pragma once
// MTL::Buffer: shared CPU memory. Its last byte sits (16-byte aligned) against a PROT_NONE
// guard page, so a kernel reading or writing past the end faults and is reported as
// bounds.device instead of silently touching a neighbour.
#include <string>

#include "metalsim/Metal/MTLTypes.hpp"

namespace MTL {

struct Range {
  NS::UInteger location = 0, length = 0;
  static Range Make(NS::UInteger loc, NS::UInteger len) { return {loc, len}; }
};

class Buffer : public NS::Object {
 public:
  void*        contents() const { return contents_; }
  NS::UInteger length() const { return length_; }
  void         setLabel(NS::String* label) { label_ = label != nullptr ? label->str() : ""; }
  NS::String*  label() const;
  void         didModifyRange(Range) {}

  // metalsim's own: the guard page after the contents, for fault reports.
  const char* guardBegin() const;
  const char* guardEnd() const;
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
