#pragma once
// Loops with an unchecked copy (docs/checks.md, "A copy without tests"). A loop whose accesses'
// range tests were all hoisted into its preheader (loop_ranges.h), into one flag, is copied
// before the accesses are instrumented: where the flag holds (every range plain, no racecheck
// dispatch) the preheader enters the copy, which has no test at all and is the fast variant's
// loop; elsewhere it enters the loop whose accesses are tested one by one, unconditionally, so a
// report names the exact access, lane and line as before. Without the copy each access kept a
// test of the flag in the loop, and the registers the slow paths need: the checked Q4_0 mat-vec's
// inner loop stayed rolled, with spills, at 1.6-1.9x the fast variant's time.
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Value.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace metalsim::instrument {

// `sites[i]` is access i's instruction and `flags[i]` its hoisted flag (or nullptr). Copies each
// loop whose every access has the flag of that loop's preheader, and returns, per access, whether
// its loop was copied (its test then needs no flag: the loop runs only where the flag is false).
std::vector<bool> copy_loops_without_tests(llvm::Function& f,
                                           const std::vector<llvm::Instruction*>& sites,
                                           const std::vector<llvm::Value*>& flags);

// Copies the loop that the block holding `flag` enters, as above, and enters the copy where the
// flag holds; false where it could not (no such loop, or blocks the copy does not handle).
// `copies` maps each value of the loop to its copy's.
bool copy_loop_where(llvm::Function& f, llvm::PHINode& flag, llvm::ValueToValueMapTy& copies);

}  // namespace metalsim::instrument
