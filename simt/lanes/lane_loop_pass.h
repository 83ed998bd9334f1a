#pragma once
// The lane-loop pass (docs/lanes.md): a module pass that turns each lane body of the module into
// a step function of loops over lanes between sync points, and registers it with the runtime.
// Runs at the start of the optimizer pipeline (after inlining, before the loop vectorizer).
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

namespace metalsim::lanes {

class LaneLoopPass : public llvm::PassInfoMixin<LaneLoopPass> {
 public:
  // `summary_path`: when not empty, the summary (summary.h) is appended to this file.
  explicit LaneLoopPass(std::string summary_path) : summary_path_(std::move(summary_path)) {}
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& mam);
  static bool isRequired() { return true; }  // also at -O0: the runtime needs the registration

 private:
  std::string summary_path_;
};

}  // namespace metalsim::lanes
