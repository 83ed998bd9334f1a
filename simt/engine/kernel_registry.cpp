#include <string>
#include <vector>

#include "simt/engine/kernel.h"

namespace metalsim::engine {
namespace {

// Function-local so registration from other translation units' static initialisers is safe.
std::vector<const KernelInfo*>& kernels() {
  static std::vector<const KernelInfo*> list;
  return list;
}

}  // namespace

std::string_view arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::DeviceBuffer: return "device buffer";
    case ArgKind::ConstantBuffer: return "constant buffer";
    case ArgKind::Threadgroup: return "threadgroup memory";
    case ArgKind::Builtin: return "built-in";
  }
  return "?";
}

void KernelRegistry::add(const KernelInfo& kernel) { kernels().push_back(&kernel); }

const KernelInfo* KernelRegistry::find(std::string_view name) {
  for (const KernelInfo* k : kernels())
    if (name == k->name) return k;
  return nullptr;
}

std::span<const KernelInfo* const> KernelRegistry::all() { return kernels(); }

}  // namespace metalsim::engine
