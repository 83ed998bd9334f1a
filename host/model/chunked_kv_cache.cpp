#include "host/model/chunked_kv_cache.h"

#include <algorithm>

#include "host/model/model_error.h"

namespace metalsim::model {

ChunkedKvCache::ChunkedKvCache(MTL::Device* device, const ModelConfig& config)
    : KvCache(device, config), max_context_(config.max_context), chunk_(config.kv_chunk) {}

void ChunkedKvCache::reserve(uint32_t position, uint32_t count) {
  const uint64_t end = uint64_t(position) + count;
  if (end > max_context_)
    throw ModelError(ModelErrorKind::kv_capacity,
                     "KV cache overflow: " + std::to_string(count) + " token(s) from position " +
                         std::to_string(position) + " would end at " + std::to_string(end) +
                         ", past the capacity of " + std::to_string(max_context_) + " tokens");
  if (end <= capacity()) return;
  const uint64_t chunks = (end + chunk_ - 1) / chunk_;
  resize(uint32_t(std::min<uint64_t>(chunks * chunk_, max_context_)));
}

}  // namespace metalsim::model
