#pragma once
// A KV cache on the device: per layer, one K and one V buffer of `capacity` slots, each slot one
// token's keys (kv_heads * head_dim floats, heads side by side: the layout the K and V
// projections write, [slot, kv_heads, head_dim]). decode_attention reads slots 0 .. visible - 1
// through strides. Two policies from the go-mlx document: ChunkedKvCache and RotatingKvCache.
#include <cstdint>
#include <memory>
#include <vector>

#include "host/model/model_config.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model {

class KvCache {
 public:
  virtual ~KvCache() = default;

  // Makes room for `count` tokens from `position` (the chunked cache grows; the contents of the
  // stored tokens are kept). Throws ModelError (kv_capacity), changing nothing, when they
  // cannot fit.
  virtual void reserve(uint32_t position, uint32_t count) = 0;
  // The slot that holds the token at `position`.
  virtual uint32_t slot(uint32_t position) const = 0;
  // How many slots, from slot 0, the query at `position` attends to once its own K and V are
  // stored: exactly the slots that hold the tokens it may see.
  virtual uint32_t visible(uint32_t position) const = 0;
  // Whether the token at `position` is still stored when the next position is `end`.
  virtual bool holds(uint32_t position, uint32_t end) const = 0;

  uint32_t capacity() const { return capacity_; }
  uint32_t row_floats() const { return row_floats_; }
  MTL::Buffer* keys(uint32_t layer) const { return keys_[layer].get(); }
  MTL::Buffer* values(uint32_t layer) const { return values_[layer].get(); }
  const float* key_row(uint32_t layer, uint32_t position) const;
  const float* value_row(uint32_t layer, uint32_t position) const;

  // The rows of earlier tokens that storing tokens [position, position + count) overwrites,
  // so that a call whose command buffer fails can put them back (restore).
  struct Saved {
    std::vector<uint32_t> slots;
    std::vector<float> rows;  // per layer, per slot: the K row then the V row
  };
  virtual Saved save(uint32_t position, uint32_t count) const = 0;
  void restore(const Saved& saved);

 protected:
  KvCache(MTL::Device* device, const ModelConfig& config);
  // Reallocates every buffer with `slots` slots, copying the first min(old, slots) slots.
  void resize(uint32_t slots);
  Saved save_slots(std::vector<uint32_t> slots) const;

 private:
  MTL::Device* device_;
  uint32_t layers_, row_floats_, capacity_ = 0;
  std::vector<NS::SharedPtr<MTL::Buffer>> keys_, values_;
};

}  // namespace metalsim::model
