#pragma once
// Debug statistics of the trellis dispatches: what the Trellis document's section 5.1 logs
// before a dispatch when METAL_DEBUG=1, here with METALSIM_DEBUG=1. Every line goes through one
// sink (stderr unless replaced), so tests can capture it; kernels never print.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "kernels/trellis/trellis_format.h"

namespace metalsim::kernels::trellis {

using half_t = _Float16;

// ------------------------------ the sink
using DebugSink = std::function<void(const std::string& text)>;

// Replaces the sink (an empty one restores stderr); returns the previous one.
DebugSink set_debug_sink(DebugSink sink);
void debug_log(const std::string& text);

// METALSIM_DEBUG=1 in the environment, unless overridden (std::nullopt: back to the environment).
bool debug_enabled();
void set_debug_enabled(std::optional<bool> enabled);

// For tests: while alive, debugging is on and everything logged is kept here.
class DebugCapture {
 public:
  DebugCapture();
  ~DebugCapture();
  DebugCapture(const DebugCapture&) = delete;
  DebugCapture& operator=(const DebugCapture&) = delete;
  const std::string& text() const { return *text_; }

 private:
  std::shared_ptr<std::string> text_;
  DebugSink previous_;
};

// ------------------------------ the statistics
struct ValueStats {
  double min = 0, max = 0, max_abs = 0;
  size_t nan = 0, inf = 0;
};
ValueStats value_stats(std::span<const float> values);
ValueStats value_stats(std::span<const half_t> values);

// Indices >= n_levels in every tile position inside K x N (section 5.1: clamped to grid[0]).
size_t out_of_range_indices(const TrellisWeights& w);

// What one dispatch is about to run.
struct DispatchInfo {
  std::string kernel;
  uint32_t M = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t threadgroup[3] = {1, 1, 1};
  size_t threadgroup_memory = 0;
  bool prefill_kernel = false;  // the 64x64 prefill tiles (section 5.4: wrong for M <= 16)
};

// The PRE-DISPATCH block of section 5.1 for one weight matrix (or one stack of experts) and
// its activations (empty: written by an earlier dispatch of the command buffer, not known yet),
// with a WARNING line per failure mode of section 5 it sees.
std::string pre_dispatch_report(const DispatchInfo& dispatch, std::span<const half_t> a,
                                const TrellisWeights& w, const std::string& weights_name = "");

// The MoE routing: tokens per expert, the probabilities' range, ids past num_experts.
std::string routing_report(std::span<const uint32_t> expert_ids,
                           std::span<const float> expert_probs, uint32_t num_experts);

}  // namespace metalsim::kernels::trellis
