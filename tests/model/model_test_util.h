#pragma once
// What the model tests share: a small configuration (CI has 2 cores), prompts from a seed,
// and the comparison of logits with the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "host/model/model_config.h"
#include "kernels/spec/inputs.h"
#include "metalsim/Metal.hpp"

namespace metalsim::model::testing {

// ModelConfig::small() with a capacity of 128 tokens grown in chunks of 16, so that prompts of
// 64 tokens cross chunks.
inline ModelConfig small_config() {
  ModelConfig c = ModelConfig::small();
  c.max_context = 128;
  c.kv_chunk = 16;
  return c;
}

// A device for small models: `workers` OpenMP workers (1 by default: a small model's dispatches
// are a few threadgroups each, and forking workers for them costs more than the work, most of
// all when CI runs two test processes on two cores). Checks: the device's defaults (sync, mem).
inline NS::SharedPtr<MTL::Device> test_device(uint32_t workers = 1) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  metalsim::ExecutionOptions options = device->executionOptions();
  options.workers = workers;
  device->setExecutionOptions(options);
  return device;
}

inline std::vector<uint32_t> random_tokens(size_t n, uint32_t vocab, uint64_t seed) {
  spec::InputGenerator gen(seed);
  std::vector<uint32_t> t(n);
  for (uint32_t& id : t) id = uint32_t(gen.integer(0, vocab - 1));
  return t;
}

// The logits' tolerance, relative to max |ref| (docs/pipeline.md, "Tolerance"): the float
// bounds of the kernels a token goes through, added over the layers: a mat-vec's (in_dim + 32)
// * 2^-24 at the largest in_dim, RoPE's angle error of position * 2^-21, and the lm_head's
// mat-vec. Measured errors are about 100x smaller; a wrong position, token, slot or mask moves
// the logits by 30% or more of their scale.
inline double logit_tolerance(const ModelConfig& c, uint32_t positions) {
  const double matvec = double(std::max({c.hidden, c.q_dim(), c.intermediate}) + 32);
  const double rope = double(positions) * 8;  // position * 2^-21, in units of 2^-24
  return ((matvec + rope) * c.layers + c.hidden + 32) * 0x1p-24;
}

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
