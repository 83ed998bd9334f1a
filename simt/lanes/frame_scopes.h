#pragma once
// Alias scopes for the lanes' frame. Values live across a sync point live in the frame (one
// array per slot across the lanes), where a fiber kept them in registers or on its stack. The
// frame's base is a pointer the step loads from the state, so without help the optimizer must
// assume any store through a device or threadgroup pointer may change a slot, and reloads every
// accumulator after each such store, and stores it back after each operation (flash attention's
// per-lane rows: docs/performance.md, "Where lane loops spend it").
//
// The frame is memory no kernel pointer reaches except through a slot: the runner allocates it,
// the step alone addresses it, each slot from its own array. So each slot gets a scope, every
// access based on a slot is in that slot's scope and not in the others', and every access based
// on something provably not the frame (the bound arguments, the state's tables, the step's own
// allocas, globals) is in none of them. An access whose pointer may be either (a pointer loaded
// from memory a kernel writes: a frame slot or an alloca holding a `thread` pointer, device
// memory) gets no metadata and so still aliases everything.
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Value.h>

namespace metalsim::lanes {

// Marks the loads, stores and memory intrinsics of `step`. `frame`: the step's load of the
// frame's base (nullptr when the kernel has no slots); `slot_arrays`: each slot's array, based
// on it, in slot order.
void scope_frame_accesses(llvm::Function& step, const llvm::Value* frame,
                          const std::vector<llvm::Value*>& slot_arrays);

}  // namespace metalsim::lanes
