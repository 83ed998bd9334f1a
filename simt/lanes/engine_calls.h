#pragma once
// The engine functions kernel code calls (simt/engine/sync.h, threadgroup_memory.h): the three
// sync points and the four queries, recognised by their mangled names, and which functions of a
// module can reach one of them.
#include <llvm/ADT/DenseSet.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Module.h>

namespace metalsim::lanes {

enum class EngineCall {
  None,
  ThreadgroupBarrier,   // engine::threadgroup_barrier(site)
  SimdgroupBarrier,     // engine::simdgroup_barrier(site)
  SimdCollective,       // engine::simd_collective(combine, in, out, arg, kind, site)
  CurrentSimdLane,      // engine::current_simd_lane()
  CurrentLaneIndex,     // engine::current_lane_index()
  FunctionConstant,     // engine::function_constant(index)
  ThreadgroupVariable,  // engine::threadgroup_variable(site)
  // Not the engine's: the pass's own stop at the latch of a loop it runs across lanes
  // (across_lanes.h), a sync point the runtime resumes at once.
  Yield,  // metalsim.lanes.yield(null)
};

// The name of the pass's yield function.
inline constexpr const char* kYieldFunction = "metalsim.lanes.yield";

EngineCall classify(const llvm::Function* f);
// The engine function `call` calls directly, or None.
EngineCall engine_call_of(const llvm::CallBase& call);
bool is_sync_point(EngineCall c);
const char* engine_call_name(EngineCall c);  // "threadgroup_barrier", ...

// Engine calls never throw in lane loops (the sync points are resolved by the runtime, the
// queries become values): an `invoke` of one becomes a `call` and a branch.
void engine_invokes_to_calls(llvm::Function& f);

// An external function that cannot reach the engine: an intrinsic, a C or C++ library function,
// the C++ runtime, or metalsim's own (other than the engine calls above).
bool is_known_engine_free(const llvm::Function& f, const llvm::TargetLibraryInfo& tli);

// Which functions of a module may reach an engine call: those that call one, call an external
// function not known to be engine-free, make an indirect call, or call a function that may.
class EngineReach {
 public:
  explicit EngineReach(llvm::Module& m);
  bool reaches(const llvm::Function* f) const { return reach_.contains(f); }
  // Reaches the engine and lies on a cycle of calls: cannot be inlined away.
  bool recursive(const llvm::Function* f) const { return recursive_.contains(f); }

 private:
  llvm::DenseSet<const llvm::Function*> reach_, recursive_;
};

}  // namespace metalsim::lanes
