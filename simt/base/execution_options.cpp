#include "simt/base/execution_options.h"

#include <cstdlib>

namespace metalsim {
namespace {

uint32_t env_uint(const char* name, uint32_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long n = std::strtoul(v, &end, 10);
  return *end == '\0' ? uint32_t(n) : fallback;
}

}  // namespace

std::string_view kernel_variant_name(KernelVariant v) {
  return v == KernelVariant::fast ? "fast" : "checked";
}

std::string_view execution_mode_name(ExecutionMode m) {
  switch (m) {
    case ExecutionMode::automatic: return "auto";
    case ExecutionMode::fibers: return "fibers";
    case ExecutionMode::loops: return "loops";
  }
  return "?";
}

bool parse_execution_mode(std::string_view text, ExecutionMode& out) {
  if (text == "auto") out = ExecutionMode::automatic;
  else if (text == "fibers") out = ExecutionMode::fibers;
  else if (text == "loops") out = ExecutionMode::loops;
  else return false;
  return true;
}

ExecutionOptions ExecutionOptions::from_environment() {
  ExecutionOptions o;
  o.schedule = SchedulePolicy::from_environment();
  o.checks = metalsim::CheckSet::from_environment();
  o.workers = env_uint("METALSIM_THREADS", 0);
  if (const char* w = std::getenv("METALSIM_WATCHDOG"); w != nullptr)
    o.watchdog_seconds = std::atof(w);
  if (const char* m = std::getenv("METALSIM_MODE"); m != nullptr) parse_execution_mode(m, o.mode);
  o.strict = env_uint("METALSIM_STRICT", 0) != 0;
  return o;
}

}  // namespace metalsim
