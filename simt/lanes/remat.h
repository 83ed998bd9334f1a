#pragma once
// Rematerialization: a value live across a sync point need not be stored per lane when it can be
// computed again from what every lane loop has at hand:
//   uniform   - from the bound arguments and the state alone (a buffer's pointer, the
//               threadgroup's size): computed once, in the step's entry block (every such
//               instruction of the body, live across a sync point or not);
//   per lane  - from those and the lane (a built-in, its index arithmetic): computed again in
//               the header of each lane loop that needs it.
// Only instructions without side effects are moved: arithmetic that cannot trap, and loads of
// memory that nothing writes during a dispatch (the BoundArgs fields, what the body reads
// through the state: built-in tables, function constants, threadgroup variable addresses; and
// buffers in the constant address space, memory_space.h).
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>

namespace metalsim::lanes {

struct Rematerialized {
  std::vector<llvm::Instruction*> uniform;   // in dominance order, to move to the step's entry
  std::vector<llvm::Instruction*> per_lane;  // in dominance order, cloned into each loop header
};

// Splits `live` (values live across sync points, of `f`, a body: args, state, lane) into those
// rematerialized (returned, with the operands they need) and those left to demote (kept in `live`).
Rematerialized plan_rematerialization(llvm::Function& f, std::vector<llvm::Instruction*>& live);

}  // namespace metalsim::lanes
