#include "simt/instrument/loop_ranges.h"

#include <llvm/ADT/MapVector.h>
#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/BasicAliasAnalysis.h>
#include <llvm/Analysis/DomTreeUpdater.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ScopedNoAliasAA.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "simt/instrument/access_abi.h"
#include "simt/instrument/loop_versions.h"
#include "simt/instrument/scev_interval.h"
#include "simt/instrument/shadow_span.h"

namespace metalsim::instrument {

using namespace llvm;

namespace {

// As many strides as __metalsim_access_range takes; the most quantities one access's test follows.
constexpr size_t kMaxStrides = 3;
constexpr size_t kMaxWalks = 4;
// The fewest runs of an access that a call before the loop pays for, against a shadow test of a
// few instructions per run.
constexpr uint64_t kMinRunsPerTest = 32;

// One loop's part of a quantity: `step` per iteration, iterations 0 to `last`.
struct Stride {
  const SCEV* step;
  const SCEV* last;
};

// A quantity followed out of the loops around an access: `start` plus the sum of k * step over
// the strides (innermost loop first), k from 0 to last. The address itself, or the 64-bit model
// of a narrower index the address extends (`bits` > 0): a uint or int loop counter, which the
// model follows only while its values fit in `bits` bits, so the test before the loop also
// checks that they do.
struct Walk {
  const SCEV* start;
  std::vector<Stride> strides;
  unsigned bits = 0;
  bool is_signed = false;
};

// Where an access's range test goes, and what it covers: walks[0] is the address.
struct Hoist {
  Loop* loop = nullptr;  // the test runs in its preheader
  std::vector<Walk> walks;
  // The backedge-taken counts of the loops from the access's out to `loop` that are known before
  // it: how many times the access runs per test, at least.
  std::vector<const SCEV*> counts;
  // The walks as they were inside each loop the access's walk reached, innermost first: where a
  // test bounded over that loop's iterations starts (bounded_loops).
  std::vector<std::pair<Loop*, std::vector<Walk>>> inside;
  // The loop whose iterations the walks could not step through (a start or a count that differs
  // per iteration in a way scalar evolution cannot follow), or where they did but the test could
  // not go before it (a count that differs per iteration: a per-lane strided loop's in a lane
  // loop), or nullptr.
  Loop* stuck = nullptr;
};

// Takes `loop`'s stride off the walk: false when its value there is neither the same in every
// iteration nor a start plus a step per iteration with the iteration count known on entry.
bool step_out(Walk& w, Loop* loop, ScalarEvolution& se, std::vector<Walk>& models) {
  if (se.isLoopInvariant(w.start, loop)) return true;
  const SCEV* value = w.start;
  if (!isa<SCEVAddRecExpr>(value)) {
    // Each extended index's model becomes a walk of its own, whose range the test checks.
    std::vector<WidenedRecurrence> widened;
    value = widen_recurrences(value, loop, se, widened);
    for (const WidenedRecurrence& m : widened) models.push_back({m.model, {}, m.bits, m.is_signed});
  }
  const auto* rec = dyn_cast<SCEVAddRecExpr>(value);
  if (rec == nullptr || rec->getLoop() != loop || !rec->isAffine() ||
      w.strides.size() == kMaxStrides)
    return false;
  const SCEV* last = se.getBackedgeTakenCount(loop);
  if (isa<SCEVCouldNotCompute>(last)) return false;
  w.strides.push_back({rec->getStepRecurrence(se), last});
  w.start = rec->getStart();
  return true;
}

// The outermost loop around the access before which its range can be computed, walking out from
// the innermost.
Hoist hoist_of(const RangedAccess& a, LoopInfo& li, ScalarEvolution& se, const SCEVExpander& x) {
  Hoist best;
  if (!se.isSCEVable(a.pointer->getType())) return best;
  std::vector<Walk> walks{{se.getSCEV(a.pointer), {}}};
  std::vector<const SCEV*> counts;
  std::vector<std::pair<Loop*, std::vector<Walk>>> inside;
  Loop* stuck = nullptr;
  for (Loop* loop = li.getLoopFor(a.at->getParent()); loop != nullptr;
       loop = loop->getParentLoop()) {
    inside.emplace_back(loop, walks);
    counts.push_back(se.getBackedgeTakenCount(loop));
    // The models Widen adds are recurrences of this loop: each steps out of it too.
    std::vector<Walk> models;
    bool known = step_out(walks[0], loop, se, models);
    for (size_t i = 1; known && i < walks.size(); ++i) known = step_out(walks[i], loop, se, models);
    for (size_t i = 0; known && i < models.size(); ++i) {
      Walk w = models[i];  // step_out may add to `models`
      known = step_out(w, loop, se, models);
      models[i] = w;
    }
    if (!known) {
      stuck = loop;
      break;
    }
    walks.insert(walks.end(), models.begin(), models.end());
    if (loop->getLoopPreheader() == nullptr || walks.size() > kMaxWalks) continue;
    bool computable = true;
    for (const Walk& w : walks) {
      computable = computable && computable_before(w.start, loop, se, x);
      for (const Stride& s : w.strides)
        computable = computable && computable_before(s.step, loop, se, x) &&
                     computable_before(s.last, loop, se, x);
    }
    if (!computable) continue;
    best.loop = loop;
    best.walks = walks;
    best.counts.clear();
    for (const SCEV* count : counts)
      if (!isa<SCEVCouldNotCompute>(count) && computable_before(count, loop, se, x))
        best.counts.push_back(count);
  }
  // The loop around the test (the innermost loop where there is none): a test bounded over its
  // iterations may go before it where the walks reached it.
  if (stuck == nullptr) {
    Loop* around =
        best.loop != nullptr ? best.loop->getParentLoop() : li.getLoopFor(a.at->getParent());
    for (const auto& entry : inside)
      if (entry.first == around) stuck = around;
  }
  best.inside = std::move(inside);
  best.stuck = stuck;
  return best;
}

struct Callees {
  FunctionCallee range, fits;
};

Callees callees(Module& m) {
  LLVMContext& ctx = m.getContext();
  auto* i64 = Type::getInt64Ty(ctx);
  auto* i32 = Type::getInt32Ty(ctx);
  const std::vector<Type*> strides(2 * kMaxStrides, i64);
  std::vector<Type*> range{PointerType::get(ctx, 0), i64};
  range.insert(range.end(), strides.begin(), strides.end());
  std::vector<Type*> fits{i64};
  fits.insert(fits.end(), strides.begin(), strides.end());
  fits.insert(fits.end(), {i64, i64});
  return {m.getOrInsertFunction(abi::kAccessRange, FunctionType::get(i32, range, false)),
          m.getOrInsertFunction(abi::kIndexFits, FunctionType::get(i32, fits, false))};
}

// The arguments of the preheader's call for one walk.
std::vector<Value*> walk_args(IRBuilder<>& b, SCEVExpander& x, Instruction* at, const Walk& w,
                              uint64_t bytes) {
  std::vector<Value*> args;
  if (w.bits == 0) {
    args = {x.expandCodeFor(w.start, b.getPtrTy(), at), b.getInt64(bytes)};
  } else {
    args = {b.CreateSExtOrTrunc(x.expandCodeFor(w.start, nullptr, at), b.getInt64Ty())};
  }
  for (size_t i = 0; i < kMaxStrides; ++i) {
    if (i < w.strides.size()) {
      const Stride& s = w.strides[i];
      args.push_back(b.CreateSExtOrTrunc(x.expandCodeFor(s.step, nullptr, at), b.getInt64Ty()));
      args.push_back(b.CreateZExtOrTrunc(x.expandCodeFor(s.last, nullptr, at), b.getInt64Ty()));
    } else {
      args.push_back(b.getInt64(0));
      args.push_back(b.getInt64(0));
    }
  }
  if (w.bits > 0) {
    const APInt lowest = w.is_signed ? APInt::getSignedMinValue(w.bits) : APInt::getZero(w.bits);
    const APInt highest =
        w.is_signed ? APInt::getSignedMaxValue(w.bits) : APInt::getMaxValue(w.bits);
    args.push_back(b.getInt64(w.is_signed ? uint64_t(lowest.getSExtValue()) : 0));
    args.push_back(
        b.getInt64(w.is_signed ? uint64_t(highest.getSExtValue()) : highest.getZExtValue()));
  }
  return args;
}

// How many times, at least, the access runs per test (each count capped at 2^16, so that the
// product does not wrap).
Value* runs_per_test(IRBuilder<>& b, SCEVExpander& x, Instruction* at, const Hoist& h) {
  Value* runs = b.getInt64(1);
  for (const SCEV* count : h.counts) {
    Value* c = b.CreateZExtOrTrunc(x.expandCodeFor(count, nullptr, at), b.getInt64Ty());
    c = b.CreateBinaryIntrinsic(Intrinsic::umin, c, b.getInt64(uint64_t(1) << 16));
    runs = b.CreateMul(runs, b.CreateAdd(c, b.getInt64(1)));
  }
  return runs;
}

// The inline range tests: a walk over addresses whose accesses all lie within kMaxSpanBytes (a
// block's 32 quants, a head-dimension row of halves or floats) is tested by span_plain
// (shadow_span.h), a few 8-byte loads of its shadow instead of a call, in every preheader
// whatever the loop's count.

// The bytes a walk spans when its size, steps and counts are constants (most loops over a row).
std::optional<uint64_t> constant_span(const std::vector<Value*>& args) {
  const auto* bytes = dyn_cast<ConstantInt>(args[1]);
  if (bytes == nullptr) return std::nullopt;
  uint64_t span = bytes->getZExtValue();
  for (size_t i = 0; i < kMaxStrides; ++i) {
    const auto* step = dyn_cast<ConstantInt>(args[2 + 2 * i]);
    const auto* last = dyn_cast<ConstantInt>(args[3 + 2 * i]);
    if (step == nullptr || last == nullptr) return std::nullopt;
    const int64_t s = step->getSExtValue();
    const uint64_t l = last->getZExtValue();
    if (l > kMaxSpanBytes || s < -int64_t(kMaxSpanBytes) || s > int64_t(kMaxSpanBytes))
      return kMaxSpanBytes + 1;
    span += uint64_t(s < 0 ? -s : s) * l;
  }
  return span;
}

// How far start + sum of step_i * k_i, 0 <= k_i <= last_i, reaches below and above: `lowest`
// and `highest` move by each stride's span; `small` is false where a step or count is past
// `limit` (their product then could wrap). `strides` are the (step, last) pairs of a walk's
// arguments.
struct Reach {
  Value* lowest;
  Value* highest;
  Value* small;
};

Reach reach_of(IRBuilder<>& b, Value* lowest, Value* highest, Value* const* strides,
               uint64_t limit) {
  Reach r{lowest, highest, b.getTrue()};
  for (size_t i = 0; i < kMaxStrides; ++i) {
    Value* step = strides[2 * i];
    Value* last = strides[2 * i + 1];
    r.small = b.CreateAnd(r.small, b.CreateICmpULE(last, b.getInt64(limit)));
    r.small = b.CreateAnd(
        r.small, b.CreateICmpULE(b.CreateAdd(step, b.getInt64(limit)), b.getInt64(2 * limit)));
    Value* span = b.CreateMul(step, last);  // |span| <= limit^2 where `small`
    Value* down = b.CreateICmpSLT(span, b.getInt64(0));
    r.lowest = b.CreateAdd(r.lowest, b.CreateSelect(down, span, b.getInt64(0)));
    r.highest = b.CreateAdd(r.highest, b.CreateSelect(down, b.getInt64(0), span));
  }
  return r;
}

// i1: every granule that an address walk's accesses can touch has shadow 0, known inline: the
// walk's lowest and highest byte lie at most kMaxSpanBytes apart (each stride's step and count
// small, so that nothing wraps), and the shadow bytes of the granules between them are 0. False
// where the walk is wider: the caller then calls the engine.
Value* inline_plain(IRBuilder<>& b, const ShadowGlobals& g, const std::vector<Value*>& args) {
  const std::optional<uint64_t> known = constant_span(args);
  if (known && *known > kMaxSpanBytes) return b.getFalse();
  Value* start = b.CreatePtrToInt(args[0], b.getInt64Ty());
  // `highest` here is the end: past the last byte.
  const Reach r = reach_of(b, start, b.CreateAdd(start, args[1]), &args[2], kMaxSpanBytes);
  Value* lowest = r.lowest;
  Value* end = r.highest;
  Value* small =
      b.CreateAnd(r.small, b.CreateICmpULE(b.CreateSub(end, lowest), b.getInt64(kMaxSpanBytes)));
  // A constant span reads only the words it needs.
  return b.CreateAnd(small, span_plain(b, g, lowest, end, known.value_or(kMaxSpanBytes)));
}

// i1: a narrower index's 64-bit model stays in [lowest, highest] (the arguments of the engine's
// __metalsim_index_fits: start, (step, last) x 3, lowest, highest), computed inline where the
// steps, counts and start are small enough that nothing wraps in 64 bits; false elsewhere.
Value* inline_fits(IRBuilder<>& b, const std::vector<Value*>& args) {
  constexpr uint64_t kStepLimit = uint64_t(1) << 24, kStartLimit = uint64_t(1) << 40;
  Value* start = args[0];
  const Reach r = reach_of(b, start, start, &args[1], kStepLimit);
  Value* ok = b.CreateAnd(r.small, b.CreateICmpULE(b.CreateAdd(start, b.getInt64(kStartLimit)),
                                                   b.getInt64(2 * kStartLimit)));
  ok = b.CreateAnd(ok, b.CreateICmpSGE(r.lowest, args[1 + 2 * kMaxStrides]));
  return b.CreateAnd(ok, b.CreateICmpSLE(r.highest, args[2 + 2 * kMaxStrides]));
}

// One walk's test in a preheader: an address walk (__metalsim_access_range's arguments) or the
// model of a narrower index (__metalsim_index_fits's).
struct WalkTest {
  bool is_address;
  std::vector<Value*> args;
};

// i1, where the builder stands: the walk is plain, by its inline test `inline_ok` where that
// passed (and no racecheck dispatch runs), else by the engine's call, made only then.
Value* call_unless(IRBuilder<>& b, const Callees& c, const WalkTest& t, Value* inline_ok,
                   Value* every, DomTreeUpdater& dtu, LoopInfo& li) {
  auto call = [&]() {
    return b.CreateICmpNE(b.CreateCall(t.is_address ? c.range : c.fits, t.args), b.getInt32(0));
  };
  if (const auto* known = dyn_cast<ConstantInt>(inline_ok); known != nullptr && known->isZero())
    return call();
  Value* spared = b.CreateAnd(inline_ok, b.CreateNot(every));
  Instruction* after = &*b.GetInsertPoint();
  BasicBlock* from = after->getParent();
  Instruction* then =
      SplitBlockAndInsertIfThen(b.CreateNot(inline_ok), after, false, nullptr, &dtu, &li);
  b.SetInsertPoint(then);
  Value* called = call();
  b.SetInsertPoint(after);  // now the first instruction of the block after both
  PHINode* result = b.CreatePHI(b.getInt1Ty(), 2);
  result->addIncoming(called, then->getParent());
  result->addIncoming(spared, from);
  return result;
}

// The flag of one loop's tests, made where the builder stands (before `at`, the preheader's
// terminator, which ends up in the block that enters the loop): true where every walk is plain
// and `exact` holds. Walks of addresses within a few granules, and the models of narrower indices,
// are tested inline (no call, so in every preheader); where every walk passes that way the flag
// needs no call. The calls are made only where an inline test did not pass and `worth` holds (the
// loops run the accesses often enough to pay for them): else the flag is false and each access is
// tested as without hoisting.
PHINode* loop_flag(IRBuilder<>& b, Instruction* at, const ShadowGlobals& g, const Callees& c,
                   const std::vector<WalkTest>& tests, Value* worth, Value* exact,
                   DomTreeUpdater& dtu, LoopInfo& li) {
  BasicBlock* preheader = at->getParent();
  Value* inline_all = exact;
  std::vector<Value*> inline_ok;  // per test
  for (const WalkTest& t : tests) {
    inline_ok.push_back(t.is_address ? inline_plain(b, g, t.args) : inline_fits(b, t.args));
    inline_all = b.CreateAnd(inline_all, inline_ok.back());
  }
  Value* inline_flag = b.CreateAnd(inline_all, b.CreateNot(g.every));
  // No call where the walks' arguments are not exact (they may be anything then).
  worth = b.CreateAnd(worth, exact);
  Instruction* then = SplitBlockAndInsertIfThen(b.CreateAnd(b.CreateNot(inline_all), worth),
                                                at->getIterator(), false, nullptr, &dtu, &li);
  b.SetInsertPoint(then);
  Value* all = exact;
  for (size_t k = 0; k < tests.size(); ++k)
    all = b.CreateAnd(all, call_unless(b, c, tests[k], inline_ok[k], g.every, dtu, li),
                      "metalsim.plain");
  then = &*b.GetInsertPoint();
  b.SetInsertPoint(at);  // the preheader's terminator, now in the block after both
  PHINode* plain = b.CreatePHI(b.getInt1Ty(), 2, "metalsim.plain");
  plain->addIncoming(all, then->getParent());
  plain->addIncoming(inline_flag, preheader);
  return plain;
}

// What the tests read of a function: loops, dominators and scalar evolution, made afresh after a
// change of its blocks.
struct Analyses {
  explicit Analyses(Function& f)
      : dt(f),
        li(dt),
        tlii(Triple(f.getParent()->getTargetTriple())),
        tli(tlii, &f),
        ac(f),
        se(f, tli, ac, dt, li),
        expander(se, f.getParent()->getDataLayout(), "metalsim.range"),
        basic_aa(f.getParent()->getDataLayout(), f, tli, ac, &dt),
        aa(tli) {
    // The lane-loop pass's alias scopes tell a frame slot from every other memory
    // (simt/lanes/frame_scopes.h).
    aa.addAAResult(basic_aa);
    aa.addAAResult(scoped_aa);
  }
  DominatorTree dt;
  LoopInfo li;
  TargetLibraryInfoImpl tlii;
  TargetLibraryInfo tli;
  AssumptionCache ac;
  ScalarEvolution se;
  SCEVExpander expander;
  BasicAAResult basic_aa;
  ScopedNoAliasAAResult scoped_aa;
  AAResults aa;
};

// ------------------------------ tests bounded over a loop
// A loop whose accesses' walks cannot step through its iterations (a lane loop: `lane / 2`, the
// count of a per-lane strided loop) gets one test before it of every access inside it, each walk
// bounded by the interval its start and strides take over the loop's iterations
// (scev_interval.h), and a copy without tests where that test passes (loop_versions.h). Where it
// fails the loop runs as before: each access's own hoisted test, or its test.

// The widest range a bounded test scans at each entry of its loop: 1 MiB, 8192 words of shadow,
// a few microseconds (a lane loop over 1024 lanes of 1 KiB rows; the LM head's hull of row 0 and
// the threadgroup's rows is 16 MiB).
constexpr uint64_t kMaxBoundedSpan = uint64_t(1) << 20;

// Walks of one kind whose starts differ by a constant and whose strides are the same, tested as
// one: the walk at `base` reaching from `low` to `high` bytes past it.
struct WalkGroup {
  const Walk* base;
  int64_t low;
  int64_t high;  // past the last byte of an address walk; the largest offset of a model's
};

void add_to_groups(std::vector<WalkGroup>& groups, const Walk& w, uint64_t bytes,
                   ScalarEvolution& se) {
  for (WalkGroup& g : groups) {
    const Walk& base = *g.base;
    if (base.bits != w.bits || base.is_signed != w.is_signed ||
        base.strides.size() != w.strides.size() || base.start->getType() != w.start->getType())
      continue;
    bool same = true;
    for (size_t k = 0; same && k < w.strides.size(); ++k)
      same = base.strides[k].step == w.strides[k].step && base.strides[k].last == w.strides[k].last;
    const auto* offset =
        same ? dyn_cast<SCEVConstant>(se.getMinusSCEV(w.start, base.start)) : nullptr;
    if (offset == nullptr || offset->getAPInt().getSignificantBits() > 32) continue;
    const int64_t o = offset->getAPInt().getSExtValue();
    g.low = std::min(g.low, o);
    g.high = std::max(g.high, o + int64_t(bytes));
    return;
  }
  groups.push_back({&w, 0, int64_t(bytes)});
}

// The i64 interval a group's walks reach over the loop's iterations.
std::optional<Interval> group_reach(IntervalBuilder& ib, const WalkGroup& g) {
  std::optional<Interval> reach = ib.of(g.base->start);
  if (!reach) return std::nullopt;
  for (const Stride& s : g.base->strides) {
    std::optional<Interval> step = ib.of(s.step);
    std::optional<Interval> last = ib.count(s.last);
    if (!step || !last) return std::nullopt;
    reach = ib.add(*reach, ib.multiply(*step, ib.from_zero(*last)));
  }
  return reach;
}

// Whether every walk of the groups can be bounded over `loop`.
bool boundable(const std::vector<WalkGroup>& groups, const Loop& loop, Analyses& a, bool slots) {
  IntervalBuilder test(a.se, a.expander, loop, nullptr, slots ? &a.aa : nullptr);
  for (const WalkGroup& g : groups)
    if (!group_reach(test, g)) return false;
  return true;
}

// The test of each group, emitted in `loop`'s preheader; `exact` gathers its conditions.
std::vector<WalkTest> bounded_tests(IRBuilder<>& b, IntervalBuilder& ib,
                                    const std::vector<WalkGroup>& groups) {
  std::vector<WalkTest> tests;
  for (const WalkGroup& g : groups) {
    const Interval reach =
        ib.add(*group_reach(ib, g), {b.getInt64(uint64_t(g.low)), b.getInt64(uint64_t(g.high))});
    Value* lowest = reach.lo;
    Value* highest = reach.hi;  // an address walk's end
    std::vector<Value*> args;
    if (g.base->bits == 0) {
      // An address is the integer of the interval only where that is not negative (the engine
      // then rejects an end past the user address space).
      ib.require(b.CreateICmpSGE(lowest, b.getInt64(0)));
      // A range too wide to scan at each entry of the loop fails at once (the hull of a select
      // whose condition differs per lane: the mat-vec's dead rows read row 0).
      ib.require(b.CreateICmpULE(b.CreateSub(highest, lowest), b.getInt64(kMaxBoundedSpan)));
      args = {b.CreateIntToPtr(lowest, b.getPtrTy()), b.getInt64(1), b.getInt64(1),
              b.CreateSub(b.CreateSub(highest, lowest), b.getInt64(1))};
    } else {
      args = {lowest, b.getInt64(1), b.CreateSub(highest, lowest)};
    }
    while (args.size() < (g.base->bits == 0 ? 2 : 1) + 2 * kMaxStrides)
      args.push_back(b.getInt64(0));
    if (g.base->bits > 0) {
      const unsigned bits = g.base->bits;
      const APInt lowest_fit =
          g.base->is_signed ? APInt::getSignedMinValue(bits) : APInt::getZero(bits);
      const APInt highest_fit =
          g.base->is_signed ? APInt::getSignedMaxValue(bits) : APInt::getMaxValue(bits);
      args.push_back(b.getInt64(g.base->is_signed ? uint64_t(lowest_fit.getSExtValue())
                                                  : lowest_fit.getZExtValue()));
      args.push_back(b.getInt64(g.base->is_signed ? uint64_t(highest_fit.getSExtValue())
                                                  : highest_fit.getZExtValue()));
    }
    tests.push_back({g.base->bits == 0, std::move(args)});
  }
  return tests;
}

// A loop to bound: its walk groups, and the accesses they cover (those in its nested loops).
struct BoundedLoop {
  Loop* loop;
  std::vector<WalkGroup> groups;
  SmallPtrSet<const Instruction*, 16> covered;
  bool slots = false;  // values loaded from each iteration's own slot are bounded (own_slot)
};

// The outermost loops whose nested loops' accesses can all be bounded over them. An access of
// the loop itself (not in a nested loop: it runs once per iteration) is left to its own test,
// which its copy keeps: a lane's store of its result, under a condition the bounds cannot see
// (the mat-vec's `lane < tokens`), would otherwise widen the range past the buffer.
std::vector<BoundedLoop> bounded_loops(const std::vector<RangedAccess>& accesses,
                                       const std::vector<Hoist>& hoists,
                                       const std::vector<Instruction*>& untested, Analyses& a) {
  std::vector<Loop*> stuck;
  for (const Hoist& h : hoists)
    if (h.stuck != nullptr && h.stuck->getLoopPreheader() != nullptr &&
        std::find(stuck.begin(), stuck.end(), h.stuck) == stuck.end())
      stuck.push_back(h.stuck);
  std::sort(stuck.begin(), stuck.end(),
            [](Loop* x, Loop* y) { return x->getLoopDepth() < y->getLoopDepth(); });
  std::vector<BoundedLoop> chosen;
  auto in_nested_loop = [&](const Loop* loop, const Instruction* i) {
    return loop->contains(i) && a.li.getLoopFor(i->getParent()) != loop;
  };
  for (Loop* loop : stuck) {
    bool inside_chosen = false;
    for (const BoundedLoop& outer : chosen)
      inside_chosen = inside_chosen || outer.loop->contains(loop);
    bool untested_nested = false;
    for (Instruction* i : untested) untested_nested = untested_nested || in_nested_loop(loop, i);
    if (inside_chosen || untested_nested) continue;
    // Where the loop has nested loops with accesses (the work its test spares), the test covers
    // those and the accesses it runs in every iteration (their block dominates its latch), and
    // may bound values loaded from each iteration's own slot; an access under a condition of its
    // own keeps its own test in the copy. A loop without nested accesses (a lane loop whose
    // lanes each make a few accesses) covers all of them, with no slot reads, which would cost
    // it more than they spare.
    bool nested = false;
    for (const RangedAccess& access : accesses) nested = nested || in_nested_loop(loop, access.at);
    BoundedLoop b{loop, {}, {}, nested};
    bool reached = true;
    for (size_t i = 0; reached && i < accesses.size(); ++i) {
      const Instruction* at_i = accesses[i].at;
      const bool every_iteration =
          in_nested_loop(loop, at_i) || a.dt.dominates(at_i->getParent(), loop->getLoopLatch());
      if (!loop->contains(at_i) || (nested && !every_iteration)) continue;
      const auto& inside = hoists[i].inside;
      auto at = std::find_if(inside.begin(), inside.end(),
                             [&](const auto& entry) { return entry.first == loop; });
      reached = at != inside.end();
      if (!reached) break;
      for (const Walk& w : at->second)
        add_to_groups(b.groups, w, w.bits == 0 ? accesses[i].bytes : 0, a.se);
      b.covered.insert(accesses[i].at);
    }
    if (reached && !b.groups.empty() && boundable(b.groups, *loop, a, b.slots))
      chosen.push_back(std::move(b));
  }
  return chosen;
}

// Hoist analysis of every access, in the function as it is.
std::vector<Hoist> hoists_of(const std::vector<RangedAccess>& accesses, Analyses& a) {
  std::vector<Hoist> hoists;
  for (const RangedAccess& access : accesses)
    hoists.push_back(hoist_of(access, a.li, a.se, a.expander));
  return hoists;
}

// Emits the bounded tests and copies their loops (bound_loops' copies in `bounded`).
void bound_loops(Function& f, const std::vector<RangedAccess>& accesses,
                 const std::vector<Instruction*>& untested, const ShadowGlobals& g,
                 const Callees& c, std::vector<BoundedCopy>& bounded) {
  std::vector<std::pair<PHINode*, SmallPtrSet<const Instruction*, 16>>> flags;
  {
    Analyses a(f);
    const std::vector<Hoist> hoists = hoists_of(accesses, a);
    std::vector<BoundedLoop> chosen = bounded_loops(accesses, hoists, untested, a);
    DomTreeUpdater dtu(a.dt, DomTreeUpdater::UpdateStrategy::Eager);
    for (BoundedLoop& b : chosen) {
      Instruction* at = b.loop->getLoopPreheader()->getTerminator();
      IRBuilder<> builder(at);
      IntervalBuilder ib(a.se, a.expander, *b.loop, &builder, b.slots ? &a.aa : nullptr);
      const std::vector<WalkTest> tests = bounded_tests(builder, ib, b.groups);
      flags.emplace_back(
          loop_flag(builder, at, g, c, tests, builder.getTrue(), ib.exact(), dtu, a.li),
          std::move(b.covered));
    }
  }
  for (auto& [flag, covered] : flags) {
    BoundedCopy copy{std::make_unique<ValueToValueMapTy>(), std::move(covered)};
    if (copy_loop_where(f, *flag, *copy.copies)) bounded.push_back(std::move(copy));
  }
}

}  // namespace

std::vector<Value*> hoist_range_tests(Function& f, const std::vector<RangedAccess>& accesses,
                                      const std::vector<Instruction*>& untested,
                                      const ShadowGlobals& g, std::vector<BoundedCopy>& bounded) {
  std::vector<Value*> flags(accesses.size(), nullptr);
  {
    DominatorTree dt(f);
    LoopInfo li(dt);
    if (li.empty()) return flags;
    // A loop the optimizer left without a preheader (a lane loop entered from the runner's
    // dispatch on the step's resume point) gets one, where its tests can go.
    for (Loop* loop : li.getLoopsInPreorder())
      if (loop->getLoopPreheader() == nullptr)
        InsertPreheaderForLoop(loop, &dt, &li, nullptr, false);
  }
  const Callees c = callees(*f.getParent());
  bound_loops(f, accesses, untested, g, c, bounded);
  Analyses a(f);
  const std::vector<Hoist> hoists = hoists_of(accesses, a);
  MapVector<Loop*, std::vector<size_t>> by_loop;  // in the order the accesses come
  for (size_t i = 0; i < accesses.size(); ++i)
    if (hoists[i].loop != nullptr) by_loop[hoists[i].loop].push_back(i);
  DomTreeUpdater dtu(a.dt, DomTreeUpdater::UpdateStrategy::Eager);
  for (auto& [loop, members] : by_loop) {
    Instruction* at = loop->getLoopPreheader()->getTerminator();
    IRBuilder<> b(at);
    // The same quantity tested once: bits (0: an address), start, bytes, strides.
    std::map<std::vector<const void*>, size_t> tested;
    std::vector<WalkTest> tests;
    Value* worth = b.getFalse();
    for (size_t i : members) {
      worth = b.CreateOr(worth, b.CreateICmpUGE(runs_per_test(b, a.expander, at, hoists[i]),
                                                b.getInt64(kMinRunsPerTest)));
      for (const Walk& w : hoists[i].walks) {
        const uint64_t bytes = w.bits == 0 ? accesses[i].bytes : 0;
        std::vector<const void*> key{reinterpret_cast<const void*>(uintptr_t(w.bits)),
                                     reinterpret_cast<const void*>(uintptr_t(w.is_signed)),
                                     reinterpret_cast<const void*>(uintptr_t(bytes)), w.start};
        for (const Stride& s : w.strides) key.insert(key.end(), {s.step, s.last});
        if (tested.try_emplace(key, tests.size()).second)
          tests.push_back({w.bits == 0, walk_args(b, a.expander, at, w, bytes)});
      }
    }
    PHINode* plain = loop_flag(b, at, g, c, tests, worth, b.getTrue(), dtu, a.li);
    for (size_t i : members) flags[i] = plain;
  }
  return flags;
}

}  // namespace metalsim::instrument
