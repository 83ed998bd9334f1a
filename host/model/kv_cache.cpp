#include "host/model/kv_cache.h"

#include <algorithm>
#include <cstring>

namespace metalsim::model {
namespace {

float* row(MTL::Buffer* b, uint32_t slot, uint32_t floats) {
  return static_cast<float*>(b->contents()) + size_t(slot) * floats;
}

}  // namespace

KvCache::KvCache(MTL::Device* device, const ModelConfig& config)
    : device_(device),
      layers_(config.layers),
      row_floats_(config.kv_dim()),
      keys_(config.layers),
      values_(config.layers) {}

const float* KvCache::key_row(uint32_t layer, uint32_t position) const {
  return row(keys(layer), slot(position), row_floats_);
}

const float* KvCache::value_row(uint32_t layer, uint32_t position) const {
  return row(values(layer), slot(position), row_floats_);
}

void KvCache::resize(uint32_t slots) {
  const size_t keep = size_t(std::min(slots, capacity_)) * row_floats_ * sizeof(float);
  for (auto* list : {&keys_, &values_})
    for (auto& buffer : *list) {
      auto grown = NS::TransferPtr(device_->newBuffer(size_t(slots) * row_floats_ * sizeof(float),
                                                      MTL::ResourceStorageModeShared));
      if (buffer && keep > 0) std::memcpy(grown->contents(), buffer->contents(), keep);
      buffer = grown;
    }
  capacity_ = slots;
}

KvCache::Saved KvCache::save_slots(std::vector<uint32_t> slots) const {
  Saved saved;
  saved.rows.reserve(size_t(layers_) * slots.size() * 2 * row_floats_);
  for (uint32_t l = 0; l < layers_; ++l)
    for (uint32_t s : slots)
      for (MTL::Buffer* b : {keys(l), values(l)}) {
        const float* r = row(b, s, row_floats_);
        saved.rows.insert(saved.rows.end(), r, r + row_floats_);
      }
  saved.slots = std::move(slots);
  return saved;
}

void KvCache::restore(const Saved& saved) {
  const float* from = saved.rows.data();
  for (uint32_t l = 0; l < layers_; ++l)
    for (uint32_t s : saved.slots)
      for (MTL::Buffer* b : {keys(l), values(l)}) {
        std::memcpy(row(b, s, row_floats_), from, row_floats_ * sizeof(float));
        from += row_floats_;
      }
}

}  // namespace metalsim::model
