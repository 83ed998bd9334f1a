#pragma once
// go-mlx's KVCache: token p lives in slot p; the buffers grow in chunks of kv_chunk tokens (a
// new buffer, the stored tokens copied over, as go-mlx concatenates a new chunk) up to
// max_context, the document's capacity (2048 by default). A call that would pass it is an
// error.
#include "host/model/kv_cache.h"

namespace metalsim::model {

class ChunkedKvCache : public KvCache {
 public:
  ChunkedKvCache(MTL::Device* device, const ModelConfig& config);
  void reserve(uint32_t position, uint32_t count) override;
  uint32_t slot(uint32_t position) const override { return position; }
  uint32_t visible(uint32_t position) const override { return position + 1; }
  bool holds(uint32_t position, uint32_t end) const override { return position < end; }
  // Slots past the stored tokens are read by no one: nothing to save.
  Saved save(uint32_t, uint32_t) const override { return {}; }

 private:
  uint32_t max_context_, chunk_;
};

}  // namespace metalsim::model
