#pragma once
// Half compares done in float. x86-64 without AVX512-FP16 has no half compare instruction, and
// LLVM 19's backend compares a vector of halves one element at a time (extract, convert,
// compare, insert: about 50 instructions for 8 lanes, against one conversion and one compare in
// float). The optimizer makes such compares itself: InstCombine turns a float compare of an
// extended half into a half compare (`fcmp olt (fpext half %x), -104.0` into
// `fcmp olt half %x, -104.0`), and every kernel that reads halves and calls exp, tanh or a
// clamp (silu, gelu, swiglu, the half norms) got a lane loop whose vector body was mostly this
// scalar code. The pass, run last in the optimizer, compares the extended operands in float
// instead: the extension is exact, so every predicate (the unordered ones and NaN included) gives
// the same answer.
#include <llvm/IR/PassManager.h>

namespace metalsim::lanes {

class HalfComparesInFloat : public llvm::PassInfoMixin<HalfComparesInFloat> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& am);
  static bool isRequired() { return true; }
};

}  // namespace metalsim::lanes
