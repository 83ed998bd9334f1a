#include "simt/lanes/lane_loop_pass.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "simt/lanes/cleanup.h"
#include "simt/lanes/engine_calls.h"
#include "simt/lanes/find_bodies.h"
#include "simt/lanes/inline_engine_calls.h"
#include "simt/lanes/loop_emitter.h"
#include "simt/lanes/lower_queries.h"
#include "simt/lanes/registration.h"
#include "simt/lanes/summary.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

struct Context {
  Module& module;
  FunctionAnalysisManager& fam;
  const EngineReach& reach;
  const TargetLibraryInfo& tli;
};

bool has_body_signature(const Function& f) {
  return f.arg_size() == 3 && f.getReturnType()->isVoidTy() &&
         f.getArg(0)->getType()->isPointerTy() && f.getArg(1)->getType()->isPointerTy() &&
         f.getArg(2)->getType()->isIntegerTy(32);
}

// The body's clone on which the pass works; the body itself stays as the front emitted it.
Function* clone_body(Function& body) {
  ValueToValueMapTy map;
  Function* work = CloneFunction(&body, map);
  work->setName(body.getName() + ".lanes.work");
  work->setLinkage(GlobalValue::InternalLinkage);
  work->removeFnAttr(Attribute::OptimizeNone);
  work->removeFnAttr(Attribute::NoInline);
  return work;
}

// A body whose step would be too large is left to the fibers: the step clones each region into
// three or four loops (contiguous, one-dimensional, listed), each with a header that computes the
// lane, its frame addresses and its per-lane values, the vectorizer doubles the small loops, the
// access-check pass's checked and fast variants double the step again, and the code generator's
// time grows faster than the function. The estimate: the regions' instructions, plus
// kRegionCost for each region's loops. MLX's steel GEMM (a 64x64 tile on four simdgroups, every
// simdgroup_multiply_accumulate a sync point) with its function constants read at run time has
// 128 regions of 21022 instructions (estimate 33822; its step was 404826 instructions checked,
// and took 320 s to compile), specialised as its host code dispatches it 86 regions of 7080
// (15680; a step of 51118 instructions checked, 26050 fast: 16 s); the largest of this
// repository's kernels, gemm_trellis_tiles<64>, 20 regions of 4938 (6938). docs/lanes.md, "Steps
// too large to compile".
constexpr unsigned kRegionCost = 100;
constexpr unsigned kMaxStepEstimate = 10000;

std::optional<Failure> too_large(const PreparedBody& p, const std::string& at) {
  unsigned instructions = 0;
  for (const Region& r : p.regions) instructions += r.instructions;
  const unsigned estimate = instructions + kRegionCost * unsigned(p.regions.size());
  if (estimate <= kMaxStepEstimate) return std::nullopt;
  return Failure{at, "its lane loops would be too large to compile in reasonable time (" +
                         std::to_string(p.regions.size()) + " regions between sync points, " +
                         std::to_string(instructions) +
                         " instructions: " + std::to_string(estimate) + " estimated, over " +
                         std::to_string(kMaxStepEstimate) + ")"};
}

// Inline, clean up, lower the queries, split, demote, lay out: everything before the step.
std::optional<Failure> prepare(Context& cx, const LaneBody& body, PreparedBody& p,
                               Registration& reg, BodySummary& summary) {
  const std::string& at = body.declared_at;
  if (!has_body_signature(*p.work))
    return Failure{at,
                   "a lane body must be void(const BoundArgs&, const LaneLoopState&, uint32_t)"};
  engine_invokes_to_calls(*p.work);
  if (auto f = inline_engine_calls(*p.work, cx.reach, cx.tli, at)) return f;
  inline_kernel_calls(*p.work);
  engine_invokes_to_calls(*p.work);
  clean_up_inlined_body(*p.work, cx.fam);
  if (auto f = lower_queries(*p.work, reg.threadgroup_variables, at)) return f;
  p.across = prepare_loops_across_lanes(*p.work, p.per_lane_loops);
  p.syncs = split_sync_points(*p.work);
  std::vector<Instruction*> live =
      values_live_across(*p.work, p.syncs, SmallPtrSet<Instruction*, 1>());
  p.remat = plan_rematerialization(*p.work, live);
  summary.demoted = unsigned(live.size());
  SmallPtrSet<Instruction*, 32> moved(p.remat.uniform.begin(), p.remat.uniform.end());
  moved.insert(p.remat.per_lane.begin(), p.remat.per_lane.end());
  if (auto f = demote(live, *p.work, p.syncs, moved, at)) return f;
  if (auto f = layout_frame(*p.work, p.syncs, p.frame, at)) return f;
  p.regions = compute_regions(*p.work, p.syncs);
  return too_large(p, at);
}

void erase_function(Function* f, FunctionAnalysisManager& fam) {
  fam.clear(*f, f->getName());
  f->dropAllReferences();
  f->eraseFromParent();
}

Registration transform(Context& cx, const LaneBody& body, BodySummary& summary) {
  Registration reg{body.function, nullptr, 0, "", {}, false, false};
  PreparedBody p{body.function, clone_body(*body.function), {}, {}, {}, {}, {}, {}};
  std::optional<Failure> failure = prepare(cx, body, p, reg, summary);
  if (!failure) {
    describe_prepared(p, summary);
    reg.step = emit_step(p, failure);
    reg.frame_bytes_per_lane = p.frame.bytes_per_lane;
    for (const AcrossLoop& a : p.across) reg.assumes_distinct_buffers |= a.assumes_distinct_buffers;
    reg.has_no_sync_points = p.syncs.empty();
  }
  erase_function(p.work, cx.fam);
  if (reg.step != nullptr && verifyFunction(*reg.step, &errs())) {
    erase_function(reg.step, cx.fam);
    reg.step = nullptr;
    failure =
        Failure{body.declared_at, "internal error of the lane-loop pass: the step does not verify"};
  }
  if (failure) {
    reg.step = nullptr;
    reg.why = failure->text();
    reg.threadgroup_variables.clear();
    summary.why = reg.why;
    return reg;
  }
  clean_up_step(*reg.step, cx.fam);
  summary.step = reg.step->getName().str();
  summary.frame_bytes = reg.frame_bytes_per_lane;
  return reg;
}

void append_summary(const std::string& path, const std::vector<BodySummary>& bodies) {
  std::error_code error;
  raw_fd_ostream out(path, error, sys::fs::OF_Append | sys::fs::OF_Text);
  if (error) {
    errs() << "metalsim-lanes: cannot write the summary to " << path << ": " << error.message()
           << "\n";
    return;
  }
  out << format_summary(bodies);
}

}  // namespace

PreservedAnalyses LaneLoopPass::run(Module& m, ModuleAnalysisManager& mam) {
  const std::vector<LaneBody> bodies = find_lane_bodies(m);
  if (bodies.empty()) return PreservedAnalyses::all();
  FunctionAnalysisManager& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
  const EngineReach reach(m);
  TargetLibraryInfoImpl tlii(Triple(m.getTargetTriple()));
  const TargetLibraryInfo tli(tlii);
  Context cx{m, fam, reach, tli};
  std::vector<Registration> registrations;
  std::vector<BodySummary> summaries;
  for (const LaneBody& body : bodies) {
    BodySummary summary;
    summary.body = demangle(body.function->getName());
    summary.declared_at = body.declared_at;
    registrations.push_back(transform(cx, body, summary));
    summaries.push_back(std::move(summary));
  }
  emit_registrations(m, registrations);
  if (!summary_path_.empty()) append_summary(summary_path_, summaries);
  return PreservedAnalyses::none();
}

}  // namespace metalsim::lanes
