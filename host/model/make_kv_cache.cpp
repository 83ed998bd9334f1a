#include "host/model/make_kv_cache.h"

#include "host/model/chunked_kv_cache.h"
#include "host/model/rotating_kv_cache.h"

namespace metalsim::model {

std::unique_ptr<KvCache> make_kv_cache(MTL::Device* device, const ModelConfig& config) {
  if (config.kv_cache == KvCacheKind::rotating)
    return std::make_unique<RotatingKvCache>(device, config);
  return std::make_unique<ChunkedKvCache>(device, config);
}

}  // namespace metalsim::model
