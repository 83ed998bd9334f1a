#include "host/model/rotating_kv_cache.h"

#include <algorithm>

namespace metalsim::model {

RotatingKvCache::RotatingKvCache(MTL::Device* device, const ModelConfig& config)
    : KvCache(device, config), window_(config.window) {
  resize(window_);
}

KvCache::Saved RotatingKvCache::save(uint32_t position, uint32_t count) const {
  std::vector<uint32_t> slots;
  for (uint32_t i = 0; i < std::min(count, window_); ++i) slots.push_back(slot(position + i));
  return save_slots(std::move(slots));
}

}  // namespace metalsim::model
