#include <cstdio>
#include <string>
#include <vector>

#include "simt/abi/kernel.h"
#include "simt/engine/kernel_capture.h"

namespace metalsim {
namespace {

// Function-local so registration from other translation units' static initialisers is safe.
std::vector<const abi::KernelInfo*>& kernels() {
  static std::vector<const abi::KernelInfo*> list;
  return list;
}

// The capture kernels registering on this thread go to (kernel_capture.h); nullptr: the registry.
thread_local engine::KernelCapture* current_capture = nullptr;

const abi::KernelInfo* find_in(const std::vector<const abi::KernelInfo*>& list,
                               std::string_view name) {
  for (const abi::KernelInfo* k : list)
    if (name == k->name) return k;
  return nullptr;
}

}  // namespace

namespace abi {

// Two kernels under one name would make newFunction ambiguous: the first stays, the second is
// named on stderr (static initialisation has no better channel).
void KernelRegistry::add(const KernelInfo& kernel) {
  if (current_capture != nullptr) {
    current_capture->add(kernel);
    return;
  }
  if (const KernelInfo* earlier = find(kernel.name); earlier != nullptr) {
    std::fprintf(stderr,
                 "metalsim: kernel '%s' from %s:%u is registered twice (first from %s:%u); "
                 "newFunction returns the first\n",
                 kernel.name, kernel.source_file, kernel.source_line, earlier->source_file,
                 earlier->source_line);
    return;
  }
  kernels().push_back(&kernel);
}

const KernelInfo* KernelRegistry::find(std::string_view name) { return find_in(kernels(), name); }

std::span<const KernelInfo* const> KernelRegistry::all() { return kernels(); }

}  // namespace abi

namespace engine {

KernelCapture::KernelCapture() : outer_(current_capture) { current_capture = this; }

KernelCapture::~KernelCapture() { current_capture = outer_; }

void KernelCapture::add(const abi::KernelInfo& kernel) {
  if (const abi::KernelInfo* earlier = find_in(kernels_, kernel.name); earlier != nullptr) {
    duplicates_.push_back(std::string(kernel.source_file) + ":" +
                          std::to_string(kernel.source_line) + ": kernel '" + kernel.name +
                          "' is defined twice (first at " + earlier->source_file + ":" +
                          std::to_string(earlier->source_line) + ")");
    return;
  }
  kernels_.push_back(&kernel);
}

}  // namespace engine
}  // namespace metalsim
