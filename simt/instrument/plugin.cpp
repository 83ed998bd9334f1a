// The plugin's entry: clang++-19 -fpass-plugin=MetalsimChecks.so runs the private-bounds pass at
// the start of the pipeline, and the argument-reads pass then the access-check pass at the end of
// the optimizer pipeline; `opt -load-pass-plugin=MetalsimChecks.so
// -passes=metalsim-access-checks` runs the access-check pass alone.
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/CommandLine.h>

#include "simt/instrument/access_pass.h"
#include "simt/instrument/argument_reads.h"
#include "simt/instrument/private_bounds.h"

namespace {

llvm::cl::opt<bool> race_switch(
    "metalsim-checks-race", llvm::cl::init(true),
    llvm::cl::desc("Test the racecheck switch before each access (off: measure its cost)"));

llvm::cl::opt<bool> fast_variant(
    "metalsim-checks-fast-variant", llvm::cl::init(true),
    llvm::cl::desc("Also emit an uninstrumented fast variant of every kernel (off: measure its "
                   "compile time)"));

llvm::cl::opt<bool> hoist_ranges(
    "metalsim-checks-hoist", llvm::cl::init(true),
    llvm::cl::desc("Test the accesses of a loop once before it where their range is known (off: "
                   "a test per access, to measure what hoisting saves)"));

llvm::cl::opt<bool> copy_loops(
    "metalsim-checks-copy-loops", llvm::cl::init(true),
    llvm::cl::desc("Give a loop whose every test was hoisted a copy without tests, run where the "
                   "hoisted test passed (off: measure what the copies save)"));

metalsim::instrument::AccessCheckOptions options() {
  return {race_switch, fast_variant, hoist_ranges, copy_loops};
}

void register_callbacks(llvm::PassBuilder& pb) {
  // Before the optimizer, which deletes a store it proves out of bounds (private_bounds.h).
  pb.registerPipelineStartEPCallback([](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
    mpm.addPass(metalsim::instrument::PrivateBoundsPass());
  });
  // What each kernel reads is read off the optimised code before the checks instrument it.
  pb.registerOptimizerLastEPCallback([](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
    mpm.addPass(metalsim::instrument::ArgumentReadsPass());
    mpm.addPass(metalsim::instrument::AccessCheckPass(options()));
  });
  pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::ModulePassManager& mpm,
                                        llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
    if (name != "metalsim-access-checks") return false;
    mpm.addPass(metalsim::instrument::AccessCheckPass(options()));
    return true;
  });
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "MetalsimChecks", "0.1", register_callbacks};
}
