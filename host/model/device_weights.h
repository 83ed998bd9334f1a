#pragma once
// A model's weights uploaded once into device buffers, one buffer per tensor (labelled, so a
// report names it: "layer 3 down").
#include <vector>

#include "host/model/model_weights.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model {

struct DeviceLayer {
  NS::SharedPtr<MTL::Buffer> q, k, v, o, gate, up, down, attn_norm, ffn_norm;
};

struct DeviceWeights {
  DeviceWeights(MTL::Device* device, const ModelWeights& weights);

  NS::SharedPtr<MTL::Buffer> embedding, final_norm;  // embedding: also the lm_head
  std::vector<DeviceLayer> layers;
};

}  // namespace metalsim::model
