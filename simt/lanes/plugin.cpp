// The plugin's entry: clang++-19 -fpass-plugin=MetalsimLanes.so runs the lane-loop pass at the
// start of the optimizer pipeline, and half compares in float at its end (half_compares.h); `opt
// -load-pass-plugin=MetalsimLanes.so -passes=metalsim-lanes` runs it alone (for reading what it
// does to a module).
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/CommandLine.h>

#include "simt/lanes/half_compares.h"
#include "simt/lanes/lane_loop_pass.h"

namespace {

llvm::cl::opt<std::string> summary_path(
    "metalsim-lanes-summary", llvm::cl::init(""),
    llvm::cl::desc("Append what the lane-loop pass did to each lane body to this file"));

void register_callbacks(llvm::PassBuilder& pb) {
  pb.registerOptimizerEarlyEPCallback([](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
    mpm.addPass(metalsim::lanes::LaneLoopPass(summary_path));
  });
  pb.registerOptimizerLastEPCallback([](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(metalsim::lanes::HalfComparesInFloat()));
  });
  pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::ModulePassManager& mpm,
                                        llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
    if (name == "metalsim-lanes") {
      mpm.addPass(metalsim::lanes::LaneLoopPass(summary_path));
      return true;
    }
    if (name == "metalsim-half-compares") {
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(metalsim::lanes::HalfComparesInFloat()));
      return true;
    }
    return false;
  });
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "MetalsimLanes", "0.1", register_callbacks};
}
