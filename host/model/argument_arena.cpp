#include "host/model/argument_arena.h"

#include <algorithm>
#include <cstring>

namespace metalsim::model {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
constexpr size_t kAlign = 16;  // enough for every argument struct's alignment

}  // namespace

void ArgumentArena::reset() {
  chunk_ = 0;
  offset_ = 0;
}

BufferSlice ArgumentArena::put_bytes(const void* data, size_t size) {
  offset_ = (offset_ + kAlign - 1) / kAlign * kAlign;
  if (chunk_ < chunks_.size() && offset_ + size > chunks_[chunk_]->length()) {
    ++chunk_;
    offset_ = 0;
  }
  if (chunk_ == chunks_.size()) {
    chunks_.push_back(NS::TransferPtr(
        device_->newBuffer(std::max(kChunkBytes, size), MTL::ResourceStorageModeShared)));
    chunks_.back()->setLabel(NS::String::string("arguments", NS::UTF8StringEncoding));
  }
  MTL::Buffer* b = chunks_[chunk_].get();
  std::memcpy(static_cast<char*>(b->contents()) + offset_, data, size);
  const BufferSlice slice{b, offset_};
  offset_ += size;
  return slice;
}

}  // namespace metalsim::model
