// The registry of fast variants (kernel_variants.h).
#include "simt/engine/kernel_variants.h"

#include <mutex>
#include <unordered_map>

#include "simt/checks/access_check.h"

namespace metalsim::engine {
namespace {

struct Registry {
  std::mutex mutex;  // dlopen'ed kernel libraries register from any thread
  // A hash map: every dispatch looks its code up here, and a library may hold thousands.
  std::unordered_map<const void*, const void*> fast_by_checked;
};

// Function-local so registration from other translation units' static initialisers is safe.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const void* find_fast_variant(const void* checked) {
  if (checked == nullptr) return nullptr;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.fast_by_checked.find(checked);
  return it != r.fast_by_checked.end() ? it->second : nullptr;
}

bool fast_variants_built() { return checks::kernels_built_with_access_checks(); }

bool has_fast_variant(const abi::KernelInfo& kernel) {
  return fast_variant_of(kernel.entry) != nullptr;
}

bool needs_checked_variant(const metalsim::CheckSet& checks) {
  return checks.mem || checks.race || checks.init;
}

}  // namespace metalsim::engine

extern "C" void __metalsim_fast_variant_register(const void* checked, const void* fast) {
  using namespace metalsim::engine;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  // A template's entry compiled into two objects: the linker keeps one checked copy, and
  // either object's fast copy computes the same.
  r.fast_by_checked.emplace(checked, fast);
}
