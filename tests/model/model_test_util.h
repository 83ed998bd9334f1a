#pragma once
// What the model tests share: a small configuration (CI has 2 cores), prompts from a seed,
// and the comparison of logits with the reference.
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "host/model/model_config.h"
#include "kernels/spec/inputs.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model::testing {

// Two layers of everything SmolLM has, small: GQA 4:2, head_dim 16, a vocabulary of 256.
inline ModelConfig small_config() {
  ModelConfig c;
  c.hidden = 64;
  c.heads = 4;
  c.kv_heads = 2;
  c.head_dim = 16;
  c.intermediate = 96;
  c.vocab = 256;
  c.layers = 2;
  c.max_context = 128;
  c.kv_chunk = 16;
  return c;
}

// A device for small models: `workers` OpenMP workers (1 by default: a small model's dispatches
// are a few threadgroups each, and forking workers for them costs more than the work, most of
// all when CI runs two test processes on two cores). Checks: the device's defaults (sync, mem).
inline NS::SharedPtr<MTL::Device> test_device(uint32_t workers = 1) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  device->executionOptions().workers = workers;
  return device;
}

inline std::vector<uint32_t> random_tokens(size_t n, uint32_t vocab, uint64_t seed) {
  spec::InputGenerator gen(seed);
  std::vector<uint32_t> t(n);
  for (uint32_t& id : t) id = uint32_t(gen.integer(0, vocab - 1));
  return t;
}

// The logits' tolerance: |got - ref| <= kLogitTolerance * max |ref| (docs/pipeline.md,
// "Tolerance"): the float pipeline's rounding is ~1e-6 of that scale; a wrong position, token,
// slot or mask moves logits by a large fraction of it.
inline constexpr double kLogitTolerance = 0x1p-11;

// max |got - ref| / max |ref|; infinity when a value is NaN or the sizes differ.
inline double relative_error(std::span<const float> got, std::span<const double> ref) {
  if (got.size() != ref.size() || ref.empty()) return INFINITY;
  double err = 0, scale = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(got[i])) return INFINITY;
    err = std::fmax(err, std::fabs(double(got[i]) - ref[i]));
    scale = std::fmax(scale, std::fabs(ref[i]));
  }
  return err / scale;
}

}  // namespace metalsim::model::testing
