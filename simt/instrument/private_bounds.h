#pragma once
// bounds.private (docs/checks.md): every load and store through a kernel's private (thread) array
// -- an alloca of array type, and pointers made from it by indexing -- whose offset is not known
// to lie inside the array gets a test, and a call into the engine when it does not:
//   metalsim::checks::private_out_of_bounds(variable, elements, index, flags)
// Runs at the start of clang's pipeline, before the optimizer: at -O2 a store the optimizer can
// prove out of bounds is undefined behaviour and deleted (MLX's layer_norm), so only the code
// as written shows it. A test the optimizer proves false (a constant index inside, a loop bounded
// by the array's length) is folded away. The fast variants (fast_variant.h) drop the calls.
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

namespace metalsim::instrument {

// The engine's entry (simt/checks/access_check.h), as the Itanium ABI spells it: the lane-loop
// pass, which runs after this one, takes metalsim::engine's functions as calls that never reach a
// sync point.
inline constexpr const char* kPrivateOutOfBounds =
    "_ZN8metalsim6checks21private_out_of_boundsEPKcmlj";

class PrivateBoundsPass : public llvm::PassInfoMixin<PrivateBoundsPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& mam);
  static bool isRequired() { return true; }
};

// Removes the calls PrivateBoundsPass made from `f` (a fast variant), with the branches to them.
void drop_private_checks(llvm::Function& f);

}  // namespace metalsim::instrument
