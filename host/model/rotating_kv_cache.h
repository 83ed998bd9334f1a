#pragma once
// go-mlx's RotatingKVCache: `window` slots; token p is written in place at slot p % window,
// over token p - window, which no later query may see. Token p attends to the tokens
// p - window + 1 .. p: once its own K and V are stored, those are exactly the min(p + 1,
// window) slots in use, so the attention that goes with the ring is plain attention over them
// (the order of the slots does not matter to softmax; each key carries its RoPE position).
// The sliding-window mask (query i sees key j when i - window < j <= i) is what the reference
// applies over the whole sequence (tests/model/reference_model.cpp). No capacity limit.
#include "host/model/kv_cache.h"

namespace metalsim::model {

class RotatingKvCache : public KvCache {
 public:
  RotatingKvCache(MTL::Device* device, const ModelConfig& config);
  void reserve(uint32_t, uint32_t) override {}
  uint32_t slot(uint32_t position) const override { return position % window_; }
  uint32_t visible(uint32_t position) const override {
    return position + 1 < window_ ? position + 1 : window_;
  }
  bool holds(uint32_t position, uint32_t end) const override {
    return position < end && end - position <= window_;
  }
  // The slots tokens [position, position + count) write, which may hold earlier tokens.
  Saved save(uint32_t position, uint32_t count) const override;

 private:
  uint32_t window_;
};

}  // namespace metalsim::model
