#include "simt/lanes/engine_calls.h"

#include <vector>

#include <llvm/ADT/SCCIterator.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Local.h>

namespace metalsim::lanes {

using namespace llvm;

namespace {

struct Known {
  const char* mangled;
  EngineCall call;
};
// The declarations in simt/engine/sync.h and threadgroup_memory.h, as the Itanium ABI spells them.
constexpr Known kEngineFunctions[] = {
    {"_ZN8metalsim6engine19threadgroup_barrierESt15source_location",
     EngineCall::ThreadgroupBarrier},
    {"_ZN8metalsim6engine17simdgroup_barrierESt15source_location", EngineCall::SimdgroupBarrier},
    {"_ZN8metalsim6engine15simd_collectiveEPFvRKNS0_14CollectiveCallEEPKvPvmNS0_"
     "8SyncKindESt15source_location",
     EngineCall::SimdCollective},
    {"_ZN8metalsim6engine17current_simd_laneEv", EngineCall::CurrentSimdLane},
    {"_ZN8metalsim6engine18current_lane_indexEv", EngineCall::CurrentLaneIndex},
    {"_ZN8metalsim6engine17function_constantEj", EngineCall::FunctionConstant},
    {"_ZN8metalsim6engine20threadgroup_variableERNS0_23ThreadgroupVariableSiteE",
     EngineCall::ThreadgroupVariable},
};

// Prefixes of external functions that never call back into kernel code: the C++ runtime and
// standard library, the sanitizers' runtimes, and metalsim's engine (its only ways into a sync
// point are the engine calls above).
constexpr const char* kEngineFreePrefixes[] = {
    "_ZNSt",
    "_ZSt",
    "_ZNKSt",
    "__cxa_",
    "__gxx_",
    "_Unwind_",
    "__sanitizer_",
    "__asan_",
    "__tsan_",
    "__ubsan_",
    "__msan_",
    "_ZN8metalsim6engine",
    "_ZNK8metalsim6engine",
    "_ZN8metalsim3abi",
    "_ZNK8metalsim3abi",
    "_ZN8metalsim6checks",
    "_ZNK8metalsim6checks",
    "_ZN8metalsim5fault",
    "_ZNK8metalsim5fault",
    "_ZN8metalsim6report",
    "_ZNK8metalsim6report",
};

const Function* direct_callee(const CallBase& call) {
  return dyn_cast<Function>(call.getCalledOperand()->stripPointerCasts());
}

}  // namespace

EngineCall classify(const Function* f) {
  if (f == nullptr || !f->hasName()) return EngineCall::None;
  const StringRef name = f->getName();
  for (const Known& k : kEngineFunctions)
    if (name == k.mangled) return k.call;
  if (name == kYieldFunction) return EngineCall::Yield;
  return EngineCall::None;
}

EngineCall engine_call_of(const CallBase& call) { return classify(direct_callee(call)); }

bool is_sync_point(EngineCall c) {
  return c == EngineCall::ThreadgroupBarrier || c == EngineCall::SimdgroupBarrier ||
         c == EngineCall::SimdCollective || c == EngineCall::Yield;
}

const char* engine_call_name(EngineCall c) {
  switch (c) {
    case EngineCall::None: return "none";
    case EngineCall::ThreadgroupBarrier: return "threadgroup_barrier";
    case EngineCall::SimdgroupBarrier: return "simdgroup_barrier";
    case EngineCall::SimdCollective: return "simd_collective";
    case EngineCall::CurrentSimdLane: return "current_simd_lane";
    case EngineCall::CurrentLaneIndex: return "current_lane_index";
    case EngineCall::FunctionConstant: return "function_constant";
    case EngineCall::ThreadgroupVariable: return "threadgroup_variable";
    case EngineCall::Yield: return "yield";
  }
  return "?";
}

void engine_invokes_to_calls(Function& f) {
  std::vector<InvokeInst*> invokes;
  for (BasicBlock& bb : f)
    if (auto* invoke = dyn_cast<InvokeInst>(bb.getTerminator());
        invoke && engine_call_of(*invoke) != EngineCall::None)
      invokes.push_back(invoke);
  for (InvokeInst* invoke : invokes) changeToCall(invoke);
}

bool is_known_engine_free(const Function& f, const TargetLibraryInfo& tli) {
  if (f.isIntrinsic()) return true;
  if (classify(&f) != EngineCall::None) return false;
  LibFunc lib;
  if (tli.getLibFunc(f, lib)) return true;
  const StringRef name = f.getName();
  for (const char* prefix : kEngineFreePrefixes)
    if (name.starts_with(prefix)) return true;
  return false;
}

EngineReach::EngineReach(Module& m) {
  TargetLibraryInfoImpl tlii(Triple(m.getTargetTriple()));
  TargetLibraryInfo tli(tlii);
  // Seeds: the engine calls, external functions that may call anything, and functions with
  // an indirect call. Then callers of reaching functions, to a fixed point.
  for (Function& f : m) {
    if (f.isDeclaration()) {
      if (classify(&f) != EngineCall::None || !is_known_engine_free(f, tli)) reach_.insert(&f);
      continue;
    }
    for (Instruction& i : instructions(f))
      if (auto* call = dyn_cast<CallBase>(&i);
          call && !call->isInlineAsm() && !direct_callee(*call))
        reach_.insert(&f);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (Function& f : m) {
      if (f.isDeclaration() || reach_.contains(&f)) continue;
      for (Instruction& i : instructions(f)) {
        auto* call = dyn_cast<CallBase>(&i);
        if (call && reach_.contains(direct_callee(*call))) {
          reach_.insert(&f);
          changed = true;
          break;
        }
      }
    }
  }
  CallGraph graph(m);
  for (scc_iterator<CallGraph*> scc = scc_begin(&graph); !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle()) continue;
    for (CallGraphNode* node : *scc)
      if (const Function* f = node->getFunction(); f && reach_.contains(f)) recursive_.insert(f);
  }
}

}  // namespace metalsim::lanes
