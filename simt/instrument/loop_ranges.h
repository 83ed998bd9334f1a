#pragma once
// Hoisted range tests of the access-check pass (docs/checks.md, "Range tests hoisted out of
// loops"). An access inside a loop whose address scalar evolution can follow -- the same in every
// iteration, or a start plus a step per iteration, in this loop and in the loops around it --
// is tested once for all its iterations, before the outermost of those loops that has a known
// iteration count: one call of the engine's __metalsim_access_range per access there, their
// results and-ed into one flag per loop. The accesses' own tests run only when the flag is false
// (some granule of a range is not plain, or a racecheck dispatch runs), so a report still names
// the exact access, lane and line, as without the hoisting.
#include <cstdint>
#include <memory>
#include <vector>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Value.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "simt/instrument/shadow_span.h"

namespace metalsim::instrument {

// One access of `bytes` bytes at `pointer`, checked just before `at`.
struct RangedAccess {
  llvm::Instruction* at;
  llvm::Value* pointer;
  uint64_t bytes;
};

// Emits the hoisted tests of `f`'s accesses into the preheaders of their loops, before any other
// instrumentation (it reads the loops and scalar evolution of the code as it is): for each access,
// the i1 that is true when its own test may be skipped, or nullptr when it was not hoisted.
// Before that, a loop whose accesses' walks cannot step through its iterations but can be bounded
// over them (a lane loop) gets one test of all of them and a copy without tests, run where it
// passes (docs/checks.md, "A lane loop's range test"); `untested` are the sites of accesses that
// have no range (such a loop holding one in a nested loop gets no copy).
// `globals`: the engine's shadow and switch, loaded at the function's entry (load_shadow_globals).
// `bounded`: each loop copied that way, with the accesses its test covers (those inside a
// nested loop of it); every other access in the copy (one that runs once per iteration, as a
// lane's store of its result) keeps a test of its own, which the caller adds to the copy.
struct BoundedCopy {
  std::unique_ptr<llvm::ValueToValueMapTy> copies;  // the loop's values to its copy's
  llvm::SmallPtrSet<const llvm::Instruction*, 16> covered;
};
std::vector<llvm::Value*> hoist_range_tests(llvm::Function& f,
                                            const std::vector<RangedAccess>& accesses,
                                            const std::vector<llvm::Instruction*>& untested,
                                            const ShadowGlobals& globals,
                                            std::vector<BoundedCopy>& bounded);

}  // namespace metalsim::instrument
