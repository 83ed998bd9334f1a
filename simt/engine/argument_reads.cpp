// The registry of the bindings each kernel entry reads (simt/abi/argument_reads.h).
#include "simt/abi/argument_reads.h"

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace metalsim::abi {
namespace {

struct Range {
  uint32_t offset;
  uint32_t size;
};

// What the pass found in one entry.
struct Reads {
  std::vector<Range> bindings;
  std::vector<uint32_t> required_constants;
  std::vector<uint32_t> used_constants;  // required or optional, in index order
};

struct Registry {
  std::mutex mutex;  // dlopen'ed kernel libraries register from any thread
  std::unordered_map<const void*, Reads> reads_by_entry;
};

// Function-local so registration from other translation units' static initialisers is safe.
Registry& registry() {
  static Registry r;
  return r;
}

// The bytes of BoundArgs that hold `arg`'s binding; size 0 for a built-in.
Range slot_of(const ArgInfo& arg) {
  constexpr uint32_t kPointer = sizeof(void*);
  switch (arg.kind) {
    case ArgKind::DeviceBuffer:
    case ArgKind::ConstantBuffer:
      return {uint32_t(offsetof(BoundArgs, buffers)) + arg.index * kPointer, kPointer};
    case ArgKind::Threadgroup:
      return {uint32_t(offsetof(BoundArgs, threadgroup)) + arg.index * kPointer, kPointer};
    case ArgKind::Texture:
      return {uint32_t(offsetof(BoundArgs, textures)) + arg.index * kPointer, kPointer};
    case ArgKind::Sampler:
      return {uint32_t(offsetof(BoundArgs, samplers)) + arg.index * kPointer, kPointer};
    case ArgKind::Builtin: return {0, 0};
  }
  return {0, 0};
}

}  // namespace

bool argument_reads_known(const KernelInfo& kernel) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  return r.reads_by_entry.count(reinterpret_cast<const void*>(kernel.entry)) != 0;
}

bool argument_read(const KernelInfo& kernel, const ArgInfo& arg) {
  const Range slot = slot_of(arg);
  if (slot.size == 0) return true;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.reads_by_entry.find(reinterpret_cast<const void*>(kernel.entry));
  if (it == r.reads_by_entry.end()) return true;
  for (const Range& read : it->second.bindings)
    if (read.offset < slot.offset + slot.size && slot.offset < read.offset + read.size) return true;
  return false;
}

bool argument_active(const KernelInfo& kernel, const ArgInfo& arg,
                     std::span<const void* const> constants) {
  return argument_exists(arg, constants) && argument_read(kernel, arg);
}

std::vector<uint32_t> required_function_constants(const KernelInfo& kernel) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.reads_by_entry.find(reinterpret_cast<const void*>(kernel.entry));
  return it != r.reads_by_entry.end() ? it->second.required_constants : std::vector<uint32_t>{};
}

std::vector<uint32_t> used_function_constants(const KernelInfo& kernel) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.reads_by_entry.find(reinterpret_cast<const void*>(kernel.entry));
  return it != r.reads_by_entry.end() ? it->second.used_constants : std::vector<uint32_t>{};
}

}  // namespace metalsim::abi

extern "C" void __metalsim_argument_reads_register(const void* entry, const uint32_t* ranges,
                                                   uint32_t count, const uint32_t* required,
                                                   uint32_t required_count) {
  using namespace metalsim::abi;
  Reads reads;
  for (uint32_t i = 0; i < count; ++i) reads.bindings.push_back({ranges[2 * i], ranges[2 * i + 1]});
  for (uint32_t i = 0; i < required_count; ++i) {
    if ((required[i] & kOptionalConstant) == 0) reads.required_constants.push_back(required[i]);
    reads.used_constants.push_back(required[i] & ~kOptionalConstant);
  }
  std::sort(reads.used_constants.begin(), reads.used_constants.end());
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  // A template's entry compiled into two objects: the linker keeps one, both read the same.
  r.reads_by_entry.emplace(entry, std::move(reads));
}
