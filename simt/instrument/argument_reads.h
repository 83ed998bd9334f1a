#pragma once
// Which bindings each kernel reads (docs/msl-coverage.md, "Inactive arguments"). Metal's compiler
// drops the arguments a kernel's optimised code never reads; its reflection calls them unused and
// the host need not bind them (MLX's gemv leaves `bias` unbound where its template parameter
// turns the bias off). This pass finds the same from the optimised IR: for each kernel entry the
// front marked (fast_variant.h's kEntryAnnotation), the bytes of its abi::BoundArgs from which
// it loads a value that something needs, and a global constructor registers them:
//   __metalsim_argument_reads_register(entry, ranges, count, constants, constant_count, guards,
//                                      nodes)
// (simt/abi/argument_reads.h reads them). A load whose value goes only to parameters of defined
// functions that use it for nothing is not a read. Each read carries the conditions on function
// constants under which something uses the value (simt/abi/constant_conditions.h), so that a
// build-time kernel's argument used only under `if (c)` is inactive in a pipeline where c is
// false, as Metal's specialisation makes it. An entry that uses its bindings in any other
// way (an offset not known at compile time, the whole struct passed on) registers nothing: every
// argument of it counts as read. Runs before the access-check pass instruments the entry.
#include <cstdint>

#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

namespace metalsim::instrument {

inline constexpr const char* kArgumentReadsRegister = "__metalsim_argument_reads_register";
// In the registered constants: an index the entry reads or tests only where a test found it
// defined (optional, as Metal's MTLFunctionConstant::required says), as index | this bit. The
// others are required. simt/abi/argument_reads.h's kOptionalConstant is the same bit.
inline constexpr uint32_t kOptionalConstant = 0x80000000U;

class ArgumentReadsPass : public llvm::PassInfoMixin<ArgumentReadsPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Module& m, llvm::ModuleAnalysisManager& mam);
  static bool isRequired() { return true; }
};

}  // namespace metalsim::instrument
