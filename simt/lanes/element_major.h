#pragma once
// Element-major array slots (issue 23 item 3; docs/lanes.md, "Element-major arrays"). A lane's
// local array that lives across a sync point is a frame slot. Laid out lane-major, lane l's
// array is one block (`float acc[8][2]`: 64 bytes a lane), so element e of consecutive lanes is
// 64 bytes apart and a lane loop that updates acc[i][k] for every lane cannot vectorize: each
// lane's element is a scalar read-modify-write (flash attention's P V update spent 47% of its
// step there). Element-major, element e of lane l lives at
//     slot array + e * element_bytes * frame_lanes + l * element_bytes,
// so that element e of consecutive lanes is contiguous: the slot is one array across the lanes
// per element, as a scalar slot already is.
//
// The body computes an access's address as the slot's address plus a byte offset `off` (its
// GEPs). The lane's address of the slot becomes the lane's address of element 0 (slot array +
// l * element_bytes), and each access goes to that plus off * frame_lanes, which is the layout
// above whenever `off` is a multiple of element_bytes. So a slot is element-major only when every
// access through it reads or writes one whole element at a multiple of the element's size, and
// nothing else uses its address (no call, no pointer stored or compared).
#include <cstdint>

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Value.h>

namespace metalsim::lanes {

// The element size of `a` when its slot can be element-major (above): the one size of every load
// and store through it, a power of two, with every offset a multiple of it and the array holding
// more than one element. 0 when it cannot (or when it is one element: the layouts are the same),
// and when `per_lane` holds for one of its accesses.
//
// Why `per_lane`: element-major pays where a lane loop runs an access for consecutive lanes (the
// region's own code, a round of a loop across lanes). An access in a loop that stays inside one
// region (no sync point on it) runs that loop for one lane before the next: there, lane-major
// keeps the lane's array in one or two cache lines, and element-major spreads it over one line
// per element (flash attention's P V loop over `acc[8][4]`: 7% slower element-major).
uint64_t element_major_size(const llvm::AllocaInst& a, const llvm::DataLayout& dl,
                            llvm::function_ref<bool(const llvm::Instruction&)> per_lane);

// Rewrites every access through `a` at byte offset `off` (of its GEPs) to address
// a + off * frame_lanes, and lowers a memset of it to one store per element. `frame_lanes`: the
// frame's lane count, defined where it dominates the body.
void spread_elements(llvm::AllocaInst& a, uint64_t element_bytes, llvm::Value* frame_lanes);

}  // namespace metalsim::lanes
