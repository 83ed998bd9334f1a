#include "host/model/device_weights.h"

#include <string>

namespace metalsim::model {
namespace {

template <class T>
NS::SharedPtr<MTL::Buffer> upload(MTL::Device* device, const std::vector<T>& data,
                                  const std::string& label) {
  auto b = NS::TransferPtr(
      device->newBuffer(data.data(), data.size() * sizeof(T), MTL::ResourceStorageModeShared));
  b->setLabel(NS::String::string(label.c_str(), NS::UTF8StringEncoding));
  return b;
}

}  // namespace

DeviceWeights::DeviceWeights(MTL::Device* device, const ModelWeights& w) {
  embedding = upload(device, w.embedding, "embedding");
  final_norm = upload(device, w.final_norm, "final_norm");
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const LayerWeights& l = w.layers[i];
    const std::string p = "layer " + std::to_string(i) + " ";
    layers.push_back(
        {upload(device, l.q, p + "q"), upload(device, l.k, p + "k"), upload(device, l.v, p + "v"),
         upload(device, l.o, p + "o"), upload(device, l.gate, p + "gate"),
         upload(device, l.up, p + "up"), upload(device, l.down, p + "down"),
         upload(device, l.attn_norm, p + "attn_norm"), upload(device, l.ffn_norm, p + "ffn_norm")});
  }
}

}  // namespace metalsim::model
