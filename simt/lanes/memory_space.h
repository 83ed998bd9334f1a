#pragma once
// Which memory a pointer of a lane body points into, told from where the pointer comes from: the
// lane's own variables (allocas), the threadgroup's memory (a threadgroup argument or variable),
// device memory (a buffer argument), memory nothing writes (the bound arguments, the lane-loop
// state, constant globals, a buffer argument in the constant address space), or unknown (a pointer
// loaded from memory, an argument buffer's field, a call's result). The front maps every MSL
// address space to plain C++ pointers, so the IR's address spaces cannot say it; the bound
// arguments' layout can (simt/abi/kernel.h). Loops across lanes use it to tell whether code that
// the rounds reorder may touch memory another lane touches (region_order.h).
#include <cstdint>

#include <llvm/IR/Function.h>
#include <llvm/IR/Value.h>

namespace metalsim::lanes {

// A set of spaces, one bit each.
using MemorySpaces = uint8_t;
inline constexpr MemorySpaces kLanePrivate = 1;  // an alloca: the lane's own variable
inline constexpr MemorySpaces kReadOnly = 2;     // written by no lane during a step
inline constexpr MemorySpaces kThreadgroup = 4;  // a threadgroup argument or variable
inline constexpr MemorySpaces kDevice = 8;       // a buffer argument in device memory
inline constexpr MemorySpaces kUnknown = 16;     // may be any of the above

// The spaces `pointer` may point into. `body` is a lane body, void(const BoundArgs&, const
// LaneLoopState&, uint32_t lane), with its queries lowered (lower_queries.h).
MemorySpaces spaces_of(const llvm::Value* pointer, const llvm::Function& body);

// Whether buffer binding `binding` of `body` is in MSL's constant address space, which no lane
// writes during a dispatch (find_bodies.h): a pointer into it is kReadOnly.
bool is_constant_buffer(const llvm::Function& body, int64_t binding);

// Which threadgroup allocation `pointer` points into, when it is one known allocation: a
// threadgroup argument (by its binding) or a threadgroup variable (by its site). Two different
// allocations never overlap. -1 when not known.
int64_t threadgroup_allocation(const llvm::Value* pointer, const llvm::Function& body);

// Which buffer binding (the `[[buffer(N)]]` index) `pointer` points into, when it is one known
// binding; -1 when not known. Two bindings may be the same memory (a buffer bound twice): only the
// runtime can tell (region_order.h).
int64_t buffer_binding(const llvm::Value* pointer, const llvm::Function& body);

// Whether an access to spaces `a` by one lane and an access to spaces `b` by another may touch
// the same bytes (threadgroup and device memory never do; a lane's variables are its own).
bool may_share(MemorySpaces a, MemorySpaces b);

}  // namespace metalsim::lanes
