#include "kernels/spec/memory_budget.h"

#include <cstdio>
#include <fstream>
#include <thread>

namespace metalsim::spec {
namespace {

// Per worker: the lane stacks a threadgroup of 1024 lanes touches (a few pages each) and the
// threadgroup arena with its guard pages; plus the process's own baseline.
constexpr uint64_t kPerWorkerBytes = 24ull << 20;
constexpr uint64_t kBaselineBytes = 64ull << 20;
constexpr uint64_t kInitcheckCopies = 3;

}  // namespace

uint64_t case_memory_bytes(const KernelSpec& spec, const Params& params,
                           const metalsim::ExecutionOptions& options) {
  const Footprint f = spec.footprint(params);
  if (!f.known()) return 0;
  const uint64_t workers =
      options.workers != 0 ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  const uint64_t device = f.device * (options.checks.init ? 1 + kInitcheckCopies : 1);
  return device + f.host + kBaselineBytes + workers * kPerWorkerBytes;
}

std::string over_memory(const KernelSpec& spec, const Params& params,
                        const metalsim::ExecutionOptions& options) {
  const uint64_t need = case_memory_bytes(spec, params, options);
  const uint64_t have = available_memory_bytes();
  if (need == 0 || have == 0 || need <= have / 10 * 9) return {};
  return case_id(spec.name(), params) + " needs about " + format_bytes(need) + " of memory; " +
         format_bytes(have) + " is available";
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

bool parse_bytes(std::string_view text, uint64_t& out) {
  if (text.empty()) return false;
  uint64_t scale = 1;
  switch (text.back()) {
    case 'K':
    case 'k': scale = 1ull << 10; break;
    case 'M':
    case 'm': scale = 1ull << 20; break;
    case 'G':
    case 'g': scale = 1ull << 30; break;
    default: break;
  }
  if (scale != 1) text.remove_suffix(1);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  uint64_t value = 0;
  for (char c : text) value = value * 10 + uint64_t(c - '0');
  out = value * scale;
  return true;
}

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
  return text;
}

}  // namespace metalsim::spec
