#pragma once
// The access-check pass (docs/checks.md): every load, store, atomic and memory intrinsic of a
// kernel, except those of the function's own stack (allocas) and of globals, gets a test of the
// engine's access shadow, and a call into the engine when the shadow says to look closer or while
// a racecheck dispatch runs (simt/checks/access_check.h). Runs at the end of clang's optimizer
// pipeline, after the lane-loop pass and the vectorizer: it tests what the optimised code really
// accesses, a vector at a time in vectorized lane loops, and stays out of the vectorizer's way.
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

namespace metalsim::instrument {

struct AccessCheckOptions {
  bool race = true;  // test the racecheck switch too (off: a build for measuring its cost)
  // Copy every kernel entry and lane-loop step into an uninstrumented fast variant first
  // (fast_variant.h; off: one variant, as before, for measuring what the copies cost).
  bool fast_variant = true;
  // Test an access inside loops once before them where its range is known (loop_ranges.h; off:
  // a test per access, for measuring what the hoisting saves).
  bool hoist = true;
  // Give a loop whose every access's test was hoisted a copy without tests, run where the
  // hoisted test passed (loop_versions.h; off: for measuring what the copies save).
  bool copy_loops = true;
};

class AccessCheckPass : public llvm::PassInfoMixin<AccessCheckPass> {
 public:
  explicit AccessCheckPass(AccessCheckOptions options) : options_(options) {}
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& mam);
  static bool isRequired() { return true; }  // also at -O0 and in optnone functions

 private:
  AccessCheckOptions options_;
};

}  // namespace metalsim::instrument
