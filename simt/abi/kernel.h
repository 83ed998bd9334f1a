#pragma once
// The kernel ABI: what the front generates for each kernel of a .metal file and what the host
// runtime reads. Hand-written C++ kernels (tests, before a .metal exists) use the same structs,
// so the front only automates this layer; it never bypasses it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "simt/abi/builtin.h"
#include "simt/abi/geometry.h"
#include "simt/abi/texture_binding.h"

namespace metalsim::engine {
struct LaneLoopState;  // simt/engine/lane_loops.h
}

namespace metalsim::abi {

inline constexpr uint32_t kMaxBufferBindings = 31;       // Metal: buffer(0) .. buffer(30)
inline constexpr uint32_t kMaxThreadgroupBindings = 31;  // threadgroup(0) .. threadgroup(30)

enum class ArgKind : uint8_t {
  DeviceBuffer,    // device T* / device T&           [[buffer(N)]]
  ConstantBuffer,  // constant T* / constant T&       [[buffer(N)]]
  Threadgroup,     // threadgroup T*                  [[threadgroup(N)]]
  Builtin,         // uint3 tid [[thread_position_in_grid]] ...
  Texture,         // texture2d<T, access> t          [[texture(N)]]
  Sampler,         // sampler s                       [[sampler(N)]]
};

// One kernel parameter, as the front reads it from the signature.
struct ArgInfo {
  const char* name = "";
  ArgKind kind = ArgKind::DeviceBuffer;
  uint32_t index = 0;          // N of [[buffer(N)]] / [[threadgroup(N)]]
  const char* type = "";       // the parameter's type as written
  bool is_const = false;       // pointee is const (always true for constant buffers)
  bool is_reference = false;   // `constant P& p`: one element must be bound
  uint32_t element_size = 0;   // sizeof the pointee (sizeof the built-in's declared type)
  uint32_t element_align = 1;  // alignof the pointee: bound offsets must be multiples
  Builtin builtin = Builtin::thread_position_in_grid;  // kind == Builtin
  TextureArgInfo texture{};                            // kind == Texture
  // `[[buffer(N), function_constant(c)]]`: the argument exists only while c is true (Metal
  // drops it otherwise, and the host binds nothing there). Reads c through function_constant(),
  // so call it through argument_exists(); null for an argument that always exists.
  bool (*active)() = nullptr;
};

// Whether `arg` exists in a pipeline whose function constants are `constants` (by index, null
// where unset): false only for an argument under [[function_constant(c)]] whose c is false.
bool argument_exists(const ArgInfo& arg, std::span<const void* const> constants);

// [[function_constant(N)]] globals: the host sets values per pipeline; kernel code reads them
// through the current dispatch (engine::function_constant).
struct FunctionConstantInfo {
  const char* name = "";
  uint32_t index = 0;
  const char* type = "";
  uint32_t size = 0;
  const char* source_file = "";  // where the .metal file declares it ("": not known)
  uint32_t source_line = 0;
};

// Argument storage of one dispatch (buffers) and one threadgroup (threadgroup memory).
struct BoundArgs {
  void* buffers[kMaxBufferBindings] = {};           // base + offset, as setBuffer bound it
  void* threadgroup[kMaxThreadgroupBindings] = {};  // this threadgroup's regions
  uint32_t threadgroup_lengths[kMaxThreadgroupBindings] = {};
  const TextureBinding* textures[kMaxTextureBindings] = {};  // [[texture(N)]]
  const SamplerBinding* samplers[kMaxSamplerBindings] = {};  // [[sampler(N)]]
};

// Walks the lanes of one threadgroup that run as plain calls, in schedule order. The generated
// entry loops `while (cursor.next())` and calls the kernel once per lane; the engine shortens
// the walk when a lane reaches a sync point and the lanes not yet started move onto fibers.
class LaneCursor {
 public:
  LaneCursor(const ThreadgroupGeometry& tg, const uint16_t* order, uint32_t count)
      : tg_(&tg), order_(order), end_(count) {}

  bool next() {
    if (pos_ >= end_) return false;
    lane_ = order_[pos_++];
    published_lane_ = lane_;
    return true;
  }
  uint32_t lane() const { return lane_; }
  // The lane as a signal handler sees it (a fault report names the faulting lane even when
  // the compiler keeps lane_ in a register across the kernel body).
  uint32_t published_lane() const { return published_lane_; }
  BuiltinValue value(Builtin b) const { return tg_->value(b, lane_); }

  // Engine side: stops the walk after the current lane; returns the first lane not started.
  uint32_t take_rest() {
    uint32_t first = pos_;
    end_ = pos_;
    return first;
  }
  const uint16_t* order() const { return order_; }

 private:
  const ThreadgroupGeometry* tg_;
  const uint16_t* order_;
  uint32_t pos_ = 0;
  uint32_t end_;
  uint32_t lane_ = 0;
  volatile uint32_t published_lane_ = 0;
};

using KernelEntry = void (*)(const BoundArgs& args, LaneCursor& lanes);

// Lane loops (lane_loops.h, docs/lanes.md): the front also emits, per kernel, a lane body that
// runs the kernel for one lane reading its built-ins from the state. It is never called: the
// lane-loop pass builds a step from it, and the runtime finds the step by the body's address.
using LaneBody = void (*)(const BoundArgs& args, const engine::LaneLoopState& state, uint32_t lane);

struct KernelInfo {
  const char* name = "";         // the host name: newFunction looks it up
  const char* source_file = "";  // the .metal file, for reports
  uint32_t source_line = 0;
  std::span<const ArgInfo> args;
  KernelEntry entry = nullptr;
  uint32_t static_threadgroup_bytes = 0;  // kernel-scope threadgroup variables
  uint32_t max_total_threads_per_threadgroup =
      0;  // [[max_total_threads_per_threadgroup]]; 0: profile
  std::span<const FunctionConstantInfo> function_constants;
  LaneBody lane_body = nullptr;  // nullptr: no lane loops (hand-written kernels may leave it)
};

// All kernels linked into the program, by name. Generated code registers each kernel from a
// static initialiser; the libraries are object libraries so the linker keeps them.
class KernelRegistry {
 public:
  static void add(const KernelInfo& kernel);
  static const KernelInfo* find(std::string_view name);
  static std::span<const KernelInfo* const> all();
};

struct KernelRegistrar {
  explicit KernelRegistrar(const KernelInfo& kernel) { KernelRegistry::add(kernel); }
};

}  // namespace metalsim::abi
