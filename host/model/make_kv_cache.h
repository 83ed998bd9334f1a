#pragma once
// The KV cache a model configuration names (KvCacheKind): its own unit, so that the cache's
// base class does not include the kinds derived from it.
#include <memory>

#include "host/model/kv_cache.h"

namespace metalsim::model {

std::unique_ptr<KvCache> make_kv_cache(MTL::Device* device, const ModelConfig& config);

}  // namespace metalsim::model
