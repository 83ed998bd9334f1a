#include "kernels/trellis/trellis_debug.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <type_traits>
#include <vector>

namespace metalsim::kernels::trellis {
namespace {

// ------------------------------ sink state (one per process)
DebugSink& sink() {
  static DebugSink current;
  return current;
}
std::optional<bool>& enabled_override() {
  static std::optional<bool> value;
  return value;
}

// ------------------------------ formatting
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  if (std::strspn(text, "-0123456789") == std::strlen(text))
    std::strcat(text, ".0");  // -1 -> -1.0, as Python prints
  return text;
}
std::string yes_no(bool b) {
  return b ? "True" : "False";
}

template <class T>
std::string list(const T& values, size_t limit) {
  std::string out = "[";
  size_t i = 0;
  for (const auto& v : values) {
    if (i == limit) {
      out += ", ...";
      break;
    }
    using V = std::decay_t<decltype(v)>;
    out += (i++ ? ", " : "") +
           (std::is_integral_v<V> ? std::to_string(int64_t(v)) : number(double(v)));
  }
  return out + "]";
}

std::string stats_line(const std::string& name, const ValueStats& s) {
  return name + ": min=" + number(s.min) + ", max=" + number(s.max) +
         ", has_nan=" + yes_no(s.nan > 0) + (s.inf ? ", has_inf=True" : "") + "\n";
}

// su or sv: range, distinct values (8 at most), and a warning when a value is not +-1.
std::string signs_lines(const std::string& name, std::span<const float> v) {
  const ValueStats s = value_stats(v);
  std::set<float> distinct;
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (distinct.size() < 9) distinct.insert(v[i]);
    if (v[i] != 1.0f && v[i] != -1.0f && bad++ == 0) first_bad = i;
  }
  std::string out = name + ": min=" + number(s.min) + ", max=" + number(s.max) +
                    ", unique=" + list(distinct, 8) + "\n";
  if (bad)
    out += "WARNING: " + name + " holds " + std::to_string(bad) +
           " values other than +-1 (first: " + name + "[" + std::to_string(first_bad) +
           "] = " + number(v[first_bad]) + "); sign vectors must be +-1 (section 5.1)\n";
  return out;
}

std::string scales_lines(const TrellisWeights& w) {
  const ValueStats s = value_stats(w.scales), g = value_stats(w.grid);
  std::string out = stats_line("scales", s);
  if (s.nan || s.inf)
    out += "WARNING: scales hold " + std::to_string(s.nan) + " NaN and " + std::to_string(s.inf) +
           " infinite values: their groups' outputs are NaN or inf (section 5.1)\n";
  const double largest = s.max_abs * g.max_abs;
  if (largest > 65504)
    out += "WARNING: max |scale| x max |grid| = " + number(largest) +
           " exceeds half's largest value, 65504: those weights dequantize to inf (section 5.1, "
           "scale explosion)\n";
  return out;
}

std::string packed_lines(const TrellisWeights& w) {
  const TrellisShape& s = w.shape;
  std::string shape = "[" + (s.experts > 1 ? std::to_string(s.experts) + ", " : "") +
                      std::to_string(w.packed_dims[0]) + ", " + std::to_string(w.packed_dims[1]) +
                      ", " + std::to_string(w.packed_dims[2]) + "]";
  const std::span<const uint8_t> first(w.packed.data(), std::min<size_t>(10, w.packed.size()));
  const size_t bad = out_of_range_indices(w);
  std::string out = "packed_indices: shape=" + shape + ", first_10_bytes=" + list(first, 10) +
                    ", out_of_range=" + std::to_string(bad) + "\n";
  if (bad)
    out += "WARNING: " + std::to_string(bad) +
           " indices are >= n_levels = " + std::to_string(s.n_levels) +
           "; the kernel clamps them to index 0, grid[0] = " +
           number(w.grid.empty() ? 0.0 : double(w.grid[0])) +
           " (section 5.1, codebook index overflow)\n";
  return out;
}

}  // namespace

// ------------------------------ sink

DebugSink set_debug_sink(DebugSink next) {
  DebugSink previous = std::move(sink());
  sink() = std::move(next);
  return previous;
}

void debug_log(const std::string& text) {
  if (sink())
    sink()(text);
  else
    std::fputs(text.c_str(), stderr);
}

bool debug_enabled() {
  if (enabled_override()) return *enabled_override();
  const char* env = std::getenv("METALSIM_DEBUG");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

void set_debug_enabled(std::optional<bool> enabled) {
  enabled_override() = enabled;
}

DebugCapture::DebugCapture() : text_(std::make_shared<std::string>()) {
  auto text = text_;
  previous_ = set_debug_sink([text](const std::string& line) { *text += line; });
  set_debug_enabled(true);
}

DebugCapture::~DebugCapture() {
  set_debug_enabled(std::nullopt);
  set_debug_sink(std::move(previous_));
}

// ------------------------------ statistics

namespace {

template <class T>
ValueStats stats_of(std::span<const T> values) {
  ValueStats s;
  bool first = true;
  for (const T& x : values) {
    const double v = double(x);
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    if (std::isinf(v)) ++s.inf;
    s.min = first ? v : std::fmin(s.min, v);
    s.max = first ? v : std::fmax(s.max, v);
    s.max_abs = std::fmax(s.max_abs, std::fabs(v));
    first = false;
  }
  return s;
}

}  // namespace

ValueStats value_stats(std::span<const float> values) {
  return stats_of(values);
}
ValueStats value_stats(std::span<const half_t> values) {
  return stats_of(values);
}

size_t out_of_range_indices(const TrellisWeights& w) {
  size_t bad = 0;
  for (uint32_t e = 0; e < w.shape.experts; ++e)
    for (uint32_t k = 0; k < w.shape.K; ++k)
      for (uint32_t n = 0; n < w.shape.N; ++n) bad += w.index(e, k, n) >= w.shape.n_levels;
  return bad;
}

std::string pre_dispatch_report(const DispatchInfo& d, std::span<const half_t> a,
                                const TrellisWeights& w, const std::string& weights_name) {
  const TrellisShape& s = w.shape;
  auto dims = [](const uint32_t* v) {
    return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
           "]";
  };
  std::string out = "=== " + d.kernel + " PRE-DISPATCH" +
                    (weights_name.empty() ? "" : " (" + weights_name + ")") + " ===\n";
  out += "dispatch: M=" + std::to_string(d.M) + ", K=" + std::to_string(s.K) +
         ", N=" + std::to_string(s.N) +
         (s.experts > 1 ? ", experts=" + std::to_string(s.experts) : "") +
         ", bits=" + std::to_string(s.bits) + ", group_size=" + std::to_string(s.group_size) +
         ", n_levels=" + std::to_string(s.n_levels) + ", grid=" + dims(d.grid) +
         ", threadgroup=" + dims(d.threadgroup) +
         ", threadgroup_memory=" + std::to_string(d.threadgroup_memory) + " bytes\n";
  if (d.prefill_kernel && d.M <= 16)
    out += "WARNING: M = " + std::to_string(d.M) + " runs " + d.kernel +
           ", the prefill kernel (64x64 tiles); M <= 16 is the decode kernel's (section 5.4, wrong "
           "kernel selection)\n";
  if (a.empty()) {
    out += "A: written by an earlier dispatch of this command buffer\n";
  } else {
    const ValueStats as = value_stats(a);
    out += stats_line("A", as);
    if (as.nan || as.inf) out += "WARNING: A holds NaN or infinite values\n";
  }
  out += packed_lines(w);
  out += scales_lines(w);
  out += "grid: values=" + list(w.grid, 32) + "\n";
  out += signs_lines("su", w.su);
  out += signs_lines("sv", w.sv);
  return out;
}

std::string routing_report(std::span<const uint32_t> expert_ids,
                           std::span<const float> expert_probs, uint32_t num_experts) {
  std::vector<size_t> tokens(num_experts, 0);
  size_t bad = 0;
  for (uint32_t e : expert_ids) {
    if (e < num_experts)
      ++tokens[e];
    else
      ++bad;
  }
  std::string out = "expert_ids: tokens_per_expert=" + list(tokens, 64) +
                    ", out_of_range=" + std::to_string(bad) + "\n";
  out += stats_line("expert_probs", value_stats(expert_probs));
  return out;
}

}  // namespace metalsim::kernels::trellis
