#pragma once
// What the step reads and writes of engine::LaneLoopState (simt/engine/lane_loops.h): the
// offsets of its fields, taken from the engine's own header so that the two cannot drift.
#include <cstddef>
#include <cstdint>

#include <llvm/IR/IRBuilder.h>

#include "simt/abi/kernel.h"
#include "simt/engine/lane_loops.h"

namespace metalsim::lanes::abi {

using State = engine::LaneLoopState;

inline constexpr uint32_t kAbiVersion = engine::kLaneLoopAbiVersion;
inline constexpr uint32_t kLaneDone = engine::kLaneDone;
inline constexpr uint64_t kFrameAlign = engine::kLaneFrameAlign;

// Fields the step reads (unchanged during a step: the step's state parameter is noalias and
// readonly, so these loads leave the lane loops).
inline constexpr uint64_t kFrame = offsetof(State, frame);
inline constexpr uint64_t kFrameLanes = offsetof(State, frame_lanes);
inline constexpr uint64_t kThreadgroupVariables = offsetof(State, threadgroup_variables);
inline constexpr uint64_t kFunctionConstants = offsetof(State, function_constants);
inline constexpr uint64_t kFunctionConstantCount = offsetof(State, function_constant_count);
// The threadgroup's lanes (the loops across lanes test their strided stores apart with it).
inline constexpr uint64_t kThreadCount = offsetof(State, thread_count);
inline constexpr uint64_t kUnsetConstant = offsetof(State, unset_constant);
// The threadgroup's actual size (three uint32_t) and the tables of thread_position_in_threadgroup
// by lane: the step reads them to run a one-dimensional threadgroup's lanes without the tables.
inline constexpr uint64_t kSizeY = offsetof(State, size) + offsetof(metalsim::Size3, y);
inline constexpr uint64_t kSizeZ = offsetof(State, size) + offsetof(metalsim::Size3, z);
inline constexpr uint64_t kLocalX = offsetof(State, local_x);
inline constexpr uint64_t kLocalY = offsetof(State, local_y);
inline constexpr uint64_t kLocalZ = offsetof(State, local_z);
// Per-lane tables the step writes at each stop.
inline constexpr uint64_t kStop = offsetof(State, stop);
inline constexpr uint64_t kKind = offsetof(State, kind);
inline constexpr uint64_t kSite = offsetof(State, site);
inline constexpr uint64_t kCombine = offsetof(State, combine);
inline constexpr uint64_t kIn = offsetof(State, in);
inline constexpr uint64_t kOut = offsetof(State, out);
inline constexpr uint64_t kArg = offsetof(State, arg);

// The bound arguments (the body's first parameter, read-only during a step): which of its fields
// hold buffer pointers and which threadgroup pointers (memory_space.h tells them apart).
using Args = ::metalsim::abi::BoundArgs;
inline constexpr uint64_t kArgsBuffers = offsetof(Args, buffers);
inline constexpr uint64_t kArgsBuffersEnd = kArgsBuffers + sizeof(Args::buffers);
inline constexpr uint64_t kArgsThreadgroup = offsetof(Args, threadgroup);
inline constexpr uint64_t kArgsThreadgroupEnd = kArgsThreadgroup + sizeof(Args::threadgroup);

// SyncKind values recorded for the barriers (collectives record their own argument).
inline constexpr uint8_t kThreadgroupBarrier = uint8_t(engine::SyncKind::ThreadgroupBarrier);
inline constexpr uint8_t kSimdgroupBarrier = uint8_t(engine::SyncKind::SimdgroupBarrier);
// Registration flags (__metalsim_lanes_register).
inline constexpr uint32_t kAssumesDistinctBuffers = engine::kLaneStepAssumesDistinctBuffers;
inline constexpr uint32_t kHasNoSyncPoints = engine::kLaneStepHasNoSyncPoints;
// ...and for the pass's yields (across_lanes.h): the runtime resumes the lane at once.
inline constexpr uint8_t kYield = engine::kLaneYield;

// The address of the field at `offset` of the state `state` points to.
llvm::Value* field_address(llvm::IRBuilder<>& b, llvm::Value* state, uint64_t offset,
                           const llvm::Twine& name = "");
// Loads that field.
llvm::LoadInst* load_field(llvm::IRBuilder<>& b, llvm::Value* state, uint64_t offset,
                           llvm::Type* type, const llvm::Twine& name = "");

}  // namespace metalsim::lanes::abi
