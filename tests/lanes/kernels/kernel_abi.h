#pragma once
// What a test kernel's translation unit uses (compiled by clang++-19 with the lane-loop pass):
// the built-ins of one lane, the entry/body pair the front would emit for a kernel, and simd
// functions built on engine::simd_collective the way simt/include/metal_simdgroup builds them.
#include <cstdint>
#include <source_location>

#include "lanes/test_kernel.h"
#include "simt/engine/sync.h"
#include "support/hand_kernel.h"

namespace metalsim::lanes_test {

using abi::BoundArgs;
using abi::Builtin;

// The built-ins a test kernel reads, as a kernel's [[attribute]] parameters would bind them.
struct Lane {
  uint32_t tid;         // thread_index_in_threadgroup
  uint32_t threads;     // threads in this threadgroup (fewer at a dispatchThreads grid's edge)
  uint32_t group;       // the threadgroup's linear index in the grid
  uint32_t gid;         // group * (dispatched threads per threadgroup) + tid: one slot per lane
  uint32_t simd_lane;   // thread_index_in_simdgroup
  uint32_t simd_group;  // simdgroup_index_in_threadgroup
};

template <class Source>
Lane lane_of(const Source& value) {
  const abi::BuiltinValue size = value(Builtin::threads_per_threadgroup);
  const abi::BuiltinValue stride = value(Builtin::dispatch_threads_per_threadgroup);
  const abi::BuiltinValue pos = value(Builtin::threadgroup_position_in_grid);
  const abi::BuiltinValue groups = value(Builtin::threadgroups_per_grid);
  const uint32_t group = pos.x + groups.x * (pos.y + groups.y * pos.z);
  const uint32_t tid = value(Builtin::thread_index_in_threadgroup).x;
  return {tid,
          size.x * size.y * size.z,
          group,
          group * stride.x * stride.y * stride.z + tid,
          value(Builtin::thread_index_in_simdgroup).x,
          value(Builtin::simdgroup_index_in_threadgroup).x};
}

using KernelFn = void (*)(const BoundArgs& args, const Lane& lane);

// The two forms metalsim-front emits per kernel: the fibers' entry (a loop over the cursor's
// lanes) and the lane body (one lane, its built-ins from the lane-loop state).
template <KernelFn K>
struct Generated {
  static void entry(const BoundArgs& args, abi::LaneCursor& cursor) {
    while (cursor.next()) K(args, lane_of([&](Builtin b) { return cursor.value(b); }));
  }
  [[clang::annotate("metalsim.lanes.body")]] static void body(const BoundArgs& args,
                                                              const engine::LaneLoopState& state,
                                                              uint32_t lane) {
    K(args, lane_of([&](Builtin b) { return state.value(b, lane); }));
  }
};

// The same, with buffer binding `Constant` in MSL's constant address space: the front marks
// such a binding on the lane body (kernel_entry.cpp), and the pass may read what it holds again
// after a sync point instead of storing it per lane (simt/lanes/remat.h).
template <KernelFn K, int Constant>
struct GeneratedWithConstant {
  static void entry(const BoundArgs& args, abi::LaneCursor& cursor) {
    Generated<K>::entry(args, cursor);
  }
  [[clang::annotate("metalsim.lanes.body")]] [[clang::annotate("metalsim.lanes.constant_buffer",
                                                               Constant)]] static void
  body(const BoundArgs& args, const engine::LaneLoopState& state, uint32_t lane) {
    K(args, lane_of([&](Builtin b) { return state.value(b, lane); }));
  }
};

struct Registrar {
  explicit Registrar(const TestKernel& k) { add_test_kernel(k); }
};

#define LANES_TEST_KERNEL(fn)                              \
  const ::metalsim::lanes_test::Registrar fn##_registrar { \
    {                                                      \
      #fn, &Generated<fn>::entry, &Generated<fn>::body     \
    }                                                      \
  }

#define LANES_TEST_KERNEL_WITH_CONSTANT(fn, binding)                                             \
  const ::metalsim::lanes_test::Registrar fn##_registrar {                                       \
    {                                                                                            \
      #fn, &GeneratedWithConstant<fn, binding>::entry, &GeneratedWithConstant<fn, binding>::body \
    }                                                                                            \
  }

// buffer<T>(args, i), threadgroup<T>(args, i): the hand kernels' accessors.
using testing::buffer;
using testing::threadgroup;

inline void barrier(std::source_location site = std::source_location::current()) {
  engine::threadgroup_barrier(site);
}

// ------------------------------ simd functions (as metal_simdgroup: members in lane order)
namespace simd {

using engine::CollectiveCall;
using engine::CollectiveMember;

// Folds the active lanes in ascending lane order, rounding each step to T.
template <class T>
void sum_combine(const CollectiveCall& c) {
  T acc = c.members[0].input<T>();
  for (uint32_t i = 1; i < c.count; ++i) acc = static_cast<T>(acc + c.members[i].input<T>());
  for (uint32_t i = 0; i < c.count; ++i) c.members[i].output<T>() = acc;
}
template <class T>
void prefix_exclusive_sum_combine(const CollectiveCall& c) {
  T acc = T(0);
  for (uint32_t i = 0; i < c.count; ++i) {
    c.members[i].output<T>() = acc;
    acc = static_cast<T>(acc + c.members[i].input<T>());
  }
}
// A source lane that is inactive or out of range leaves the caller its own value.
template <class T>
void shuffle_combine(const CollectiveCall& c) {
  for (uint32_t i = 0; i < c.count; ++i) {
    const CollectiveMember* src =
        c.members[i].arg < 32 ? c.find(uint32_t(c.members[i].arg)) : nullptr;
    c.members[i].output<T>() = (src != nullptr ? *src : c.members[i]).input<T>();
  }
}
inline void ballot_combine(const CollectiveCall& c) {
  uint64_t mask = 0;
  for (uint32_t i = 0; i < c.count; ++i)
    if (c.members[i].input<bool>()) mask |= uint64_t(1) << c.members[i].simd_lane;
  for (uint32_t i = 0; i < c.count; ++i) c.members[i].output<uint64_t>() = mask;
}

template <class T>
T sum(T x, std::source_location site = std::source_location::current()) {
  T r = x;
  engine::simd_collective(&sum_combine<T>, &x, &r, 0, engine::SyncKind::SimdCollective, site);
  return r;
}
template <class T>
T prefix_exclusive_sum(T x, std::source_location site = std::source_location::current()) {
  T r = x;
  engine::simd_collective(&prefix_exclusive_sum_combine<T>, &x, &r, 0,
                          engine::SyncKind::SimdCollective, site);
  return r;
}
template <class T>
T shuffle(T x, uint32_t lane, std::source_location site = std::source_location::current()) {
  T r = x;
  engine::simd_collective(&shuffle_combine<T>, &x, &r, lane, engine::SyncKind::SimdCollective,
                          site);
  return r;
}
inline uint64_t ballot(bool x, std::source_location site = std::source_location::current()) {
  uint64_t r = 0;
  engine::simd_collective(&ballot_combine, &x, &r, 0, engine::SyncKind::SimdCollective, site);
  return r;
}
inline void barrier(std::source_location site = std::source_location::current()) {
  engine::simdgroup_barrier(site);
}

}  // namespace simd
}  // namespace metalsim::lanes_test
