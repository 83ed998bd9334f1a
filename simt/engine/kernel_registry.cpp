#include <cstdio>
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

// Two kernels under one name would make newFunction ambiguous: the first stays, the second is
// named on stderr (static initialisation has no better channel).
void KernelRegistry::add(const KernelInfo& kernel) {
  if (const KernelInfo* earlier = find(kernel.name); earlier != nullptr) {
    std::fprintf(stderr, "metalsim: kernel '%s' from %s:%u is registered twice (first from %s:%u); "
                         "newFunction returns the first\n",
                 kernel.name, kernel.source_file, kernel.source_line, earlier->source_file,
                 earlier->source_line);
    return;
  }
  kernels().push_back(&kernel);
}

const KernelInfo* KernelRegistry::find(std::string_view name) {
  for (const KernelInfo* k : kernels())
    if (name == k->name) return k;
  return nullptr;
}

std::span<const KernelInfo* const> KernelRegistry::all() { return kernels(); }

}  // namespace metalsim::engine
