#include "simt/lanes/half_compares.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

namespace metalsim::lanes {

using namespace llvm;

namespace {

// Whether `f`'s target compares halves element by element (x86 without AVX512-FP16).
bool compares_halves_element_by_element(const Function& f) {
  if (!Triple(f.getParent()->getTargetTriple()).isX86()) return false;
  const Attribute features = f.getFnAttribute("target-features");
  return !features.isValid() || !features.getValueAsString().contains("+avx512fp16");
}

bool compares_halves(const Instruction& i) {
  const auto* compare = dyn_cast<FCmpInst>(&i);
  return compare != nullptr && compare->getOperand(0)->getType()->getScalarType()->isHalfTy();
}

// `compare` on its operands extended to float (constants fold), same predicate and flags.
void compare_in_float(FCmpInst& compare) {
  IRBuilder<> b(&compare);
  Type* wide = compare.getOperand(0)->getType()->getWithNewType(b.getFloatTy());
  Value* lhs = b.CreateFPExt(compare.getOperand(0), wide);
  Value* rhs = b.CreateFPExt(compare.getOperand(1), wide);
  auto* in_float = cast<FCmpInst>(b.CreateFCmp(compare.getPredicate(), lhs, rhs));
  in_float->copyFastMathFlags(&compare);
  in_float->setDebugLoc(compare.getDebugLoc());
  in_float->takeName(&compare);
  compare.replaceAllUsesWith(in_float);
  compare.eraseFromParent();
}

}  // namespace

PreservedAnalyses HalfComparesInFloat::run(Function& f, FunctionAnalysisManager&) {
  if (f.isDeclaration() || !compares_halves_element_by_element(f)) return PreservedAnalyses::all();
  SmallVector<FCmpInst*, 16> compares;
  for (Instruction& i : instructions(f))
    if (compares_halves(i)) compares.push_back(cast<FCmpInst>(&i));
  for (FCmpInst* compare : compares) compare_in_float(*compare);
  if (compares.empty()) return PreservedAnalyses::all();
  PreservedAnalyses kept;
  kept.preserveSet<CFGAnalyses>();
  return kept;
}

}  // namespace metalsim::lanes
