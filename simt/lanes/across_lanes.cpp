#include "simt/lanes/across_lanes.h"

#include <iterator>
#include <tuple>

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include "simt/lanes/engine_calls.h"
#include "simt/lanes/region_order.h"
#include "simt/lanes/source_site.h"
#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

// On by default; off, every loop runs per lane (to compare, or to rule the transform out).
cl::opt<bool> loops_across_lanes(
    "metalsim-lanes-across", cl::init(true),
    cl::desc("Run innermost loops with a known count across lanes (docs/lanes.md)"));

// On by default; off, a loop that stores to shared or device memory runs per lane (to compare).
cl::opt<bool> strided_stores_across_lanes(
    "metalsim-lanes-across-stores", cl::init(true),
    cl::desc("Run loops that store through their strided index across lanes, where a test at run "
             "time finds the lanes' elements apart (docs/lanes.md)"));

namespace {

constexpr const char* kMarkerPrefix = "metalsim.lanes.loop.";
// The most values other than induction variables a loop may carry from one iteration to the
// next and still run across lanes (see `candidate`).
constexpr size_t kMaxCarried = 4;

// A lane's own variable: an alloca (a slot of its frame).
bool lane_private(const Value* pointer) { return isa<AllocaInst>(getUnderlyingObject(pointer)); }

// Whether the lanes may run `i` in another order than lane by lane: anything whose order across
// lanes is visible (atomics, volatile accesses, fences, calls that write memory or may throw or
// not return) keeps the loop per lane.
bool reorderable(const Instruction& i) {
  if (i.isAtomic() || isa<FenceInst>(i) || i.isEHPad() || isa<InvokeInst>(i) || isa<CallBrInst>(i))
    return false;
  if (const auto* load = dyn_cast<LoadInst>(&i)) return !load->isVolatile();
  // A store to shared or device memory: the region's test decides (region_order.h) whether the
  // lanes' interleaved iterations could meet another lane's accesses.
  if (const auto* store = dyn_cast<StoreInst>(&i))
    return !store->isVolatile() &&
           (strided_stores_across_lanes || lane_private(store->getPointerOperand()));
  const auto* call = dyn_cast<CallInst>(&i);
  if (call == nullptr) return true;
  if (call->isInlineAsm() || engine_call_of(*call) != EngineCall::None) return false;
  const Function* callee = call->getCalledFunction();
  if (callee == nullptr) return false;
  if (const auto* mem = dyn_cast<MemIntrinsic>(call))
    return !mem->isVolatile() && lane_private(mem->getDest());
  if (const auto* intrinsic = dyn_cast<IntrinsicInst>(call))
    if (intrinsic->isAssumeLikeIntrinsic()) return true;
  return call->onlyReadsMemory() && call->doesNotThrow() && call->willReturn();
}

// Expandable in the loop's preheader: invariant in the loop (an outer loop's recurrence is:
// the expander computes it from that loop's variables).
bool expandable(const SCEV* s, const Loop& l, ScalarEvolution& se, const SCEVExpander& expander) {
  return se.isLoopInvariant(s, &l) &&
         expander.isSafeToExpandAt(s, l.getLoopPreheader()->getTerminator());
}

// The count with every divisor that may be zero replaced by umax(divisor, 1), so that its
// expansion cannot trap. Equal wherever the loop terminates (a zero stride would not).
class GuardDivisions : public SCEVRewriteVisitor<GuardDivisions> {
 public:
  explicit GuardDivisions(ScalarEvolution& se) : SCEVRewriteVisitor(se) {}
  const SCEV* visitUDivExpr(const SCEVUDivExpr* e) {
    const SCEV* lhs = visit(e->getLHS());
    const SCEV* rhs = visit(e->getRHS());
    if (!SE.isKnownNonZero(rhs)) rhs = SE.getUMaxExpr(rhs, SE.getOne(rhs->getType()));
    return SE.getUDivExpr(lhs, rhs);
  }
};

struct Induction {
  PHINode* phi;
  const SCEVAddRecExpr* rec;
};

// An exit's test `x pred bound`, stay while true, with x an affine recurrence {start, +, step}
// and bound invariant: ScalarEvolution gives up on `for (i = tid; i < n; i += threads)` (the add
// may wrap, the stride may be 0), and the pass computes the count itself, with the conditions
// that make it exact checked at run time. In a block other than the latch the count is the same
// (the first iteration whose test fails); a block that does not run in every iteration can only
// leave later than that, so the count never lets a round run an iteration an exit leaves.
struct LatchTest {
  CmpInst::Predicate pred;
  const SCEV* start;
  const SCEV* step;
  const SCEV* bound;
};

struct Candidate {
  Loop* loop;
  // The backedge-taken count is the least of the exits' counts: for each exiting block,
  // ScalarEvolution's count where it has one, else its test's (see exit_test).
  std::vector<const SCEV*> exit_counts;
  std::vector<LatchTest> exit_tests;
  std::vector<Induction> inductions;
  std::vector<std::pair<BasicBlock*, unsigned>> stays;
  std::string site;
  bool assumes_distinct_buffers = false;  // region_order.h
  // A loop whose stores are apart only where the lanes' strided indices are (region_order.h):
  // its latch test and the index's lane slope, for the test at run time (strided_apart).
  std::optional<LatchTest> apart_test;
  uint64_t lane_slope = 0;
};

// The test `x pred bound` of the exiting block `exiting` (stay while true), as LatchTest describes
// one; x is the value tested in each iteration.
std::optional<LatchTest> exit_test(Loop& l, BasicBlock& exiting, ScalarEvolution& se,
                                   const SCEVExpander& expander) {
  auto* br = dyn_cast<BranchInst>(exiting.getTerminator());
  auto* cmp =
      br != nullptr && br->isConditional() ? dyn_cast<ICmpInst>(br->getCondition()) : nullptr;
  if (cmp == nullptr || !cmp->getOperand(0)->getType()->isIntegerTy()) return std::nullopt;
  CmpInst::Predicate pred = cmp->getPredicate();
  if (!l.contains(br->getSuccessor(0))) pred = CmpInst::getInversePredicate(pred);
  const SCEV* x = se.getSCEV(cmp->getOperand(0));
  const SCEV* bound = se.getSCEV(cmp->getOperand(1));
  if (!isa<SCEVAddRecExpr>(x)) {
    std::swap(x, bound);
    pred = CmpInst::getSwappedPredicate(pred);
  }
  const auto* rec = dyn_cast<SCEVAddRecExpr>(x);
  if (rec == nullptr || rec->getLoop() != &l || !rec->isAffine() || !se.isLoopInvariant(bound, &l))
    return std::nullopt;
  LatchTest t{pred, rec->getStart(), rec->getStepRecurrence(se), bound};
  for (const SCEV* e : {t.start, t.step, t.bound})
    if (!expandable(e, l, se, expander)) return std::nullopt;
  switch (pred) {
    case CmpInst::ICMP_ULT:
    case CmpInst::ICMP_ULE:
    case CmpInst::ICMP_SLT:
    case CmpInst::ICMP_SLE:
    case CmpInst::ICMP_UGT:
    case CmpInst::ICMP_UGE:
    case CmpInst::ICMP_SGT:
    case CmpInst::ICMP_SGE: return t;
    case CmpInst::ICMP_NE:
      // Only by steps of one: x meets the bound, whatever it wraps through.
      if (t.step->isOne() || t.step->isAllOnesValue()) return t;
      return std::nullopt;
    default: return std::nullopt;
  }
}

// The latch's test, when the latch is the loop's only exit.
std::optional<LatchTest> latch_test(Loop& l, ScalarEvolution& se, const SCEVExpander& expander) {
  BasicBlock* latch = l.getLoopLatch();
  if (l.getExitingBlock() != latch) return std::nullopt;
  return exit_test(l, *latch, se, expander);
}

// x == bound after (bound - x) steps of 1, or (x - bound) steps of -1, in modular arithmetic.
Value* match_step_one(IRBuilder<>& b, Value* x, Value* step, Value* bound) {
  Value* up = b.CreateICmpEQ(step, ConstantInt::get(x->getType(), 1));
  return b.CreateSelect(up, b.CreateSub(bound, x), b.CreateSub(x, bound), "across.count");
}

// A latch test `x pred bound` made strict (x < bound or x > bound, signed or not); `exact` says
// whether it is the same test (x <= the largest value has no strict equal).
struct StrictTest {
  CmpInst::Predicate pred;
  Value* bound;
  Value* exact;
};

StrictTest strict_test(IRBuilder<>& b, CmpInst::Predicate pred, Value* bound) {
  Type* type = bound->getType();
  const unsigned width = type->getIntegerBitWidth();
  Value* one = ConstantInt::get(type, 1);
  if (pred == CmpInst::ICMP_ULE || pred == CmpInst::ICMP_SLE) {
    const APInt top =
        pred == CmpInst::ICMP_ULE ? APInt::getMaxValue(width) : APInt::getSignedMaxValue(width);
    return {pred == CmpInst::ICMP_ULE ? CmpInst::ICMP_ULT : CmpInst::ICMP_SLT,
            b.CreateAdd(bound, one), b.CreateICmpNE(bound, ConstantInt::get(type, top))};
  }
  if (pred == CmpInst::ICMP_UGE || pred == CmpInst::ICMP_SGE) {
    const APInt bottom =
        pred == CmpInst::ICMP_UGE ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
    return {pred == CmpInst::ICMP_UGE ? CmpInst::ICMP_UGT : CmpInst::ICMP_SGT,
            b.CreateSub(bound, one), b.CreateICmpNE(bound, ConstantInt::get(type, bottom))};
  }
  return {pred, bound, b.getTrue()};
}

bool counts_up(CmpInst::Predicate strict) {
  return strict == CmpInst::ICMP_ULT || strict == CmpInst::ICMP_SLT;
}

// The distance a strict test's recurrence walks per iteration towards its bound.
Value* stride_of(IRBuilder<>& b, const StrictTest& t, Value* step) {
  return counts_up(t.pred) ? step : b.CreateSub(ConstantInt::get(step->getType(), 0), step);
}

// Whether the count of a strict test is exact: the stride is positive and the recurrence cannot
// wrap before it leaves (the last value tested stays within bound + stride - 1 counting up,
// bound - stride + 1 down, which must be representable). Reads the bound and the step only.
Value* count_is_exact(IRBuilder<>& b, const StrictTest& t, Value* step) {
  Type* type = step->getType();
  const unsigned width = type->getIntegerBitWidth();
  Value* zero = ConstantInt::get(type, 0);
  Value* one = ConstantInt::get(type, 1);
  const bool up = counts_up(t.pred);
  const bool is_signed = t.pred == CmpInst::ICMP_SLT || t.pred == CmpInst::ICMP_SGT;
  Value* stride = stride_of(b, t, step);
  Value* positive = is_signed ? b.CreateICmpSGT(stride, zero) : b.CreateICmpNE(stride, zero);
  Value* room = nullptr;
  if (up)
    room = is_signed
               ? b.CreateICmpSLE(
                     t.bound, b.CreateSub(ConstantInt::get(type, APInt::getSignedMaxValue(width)),
                                          b.CreateSub(stride, one)))
               : b.CreateICmpULE(t.bound, b.CreateSub(zero, stride));
  else
    room = is_signed
               ? b.CreateICmpSGE(
                     t.bound, b.CreateAdd(ConstantInt::get(type, APInt::getSignedMinValue(width)),
                                          b.CreateSub(stride, one)))
               : b.CreateICmpUGE(t.bound, b.CreateSub(stride, one));
  return b.CreateAnd(b.CreateAnd(t.exact, positive), room);
}

// The index of the last iteration of a loop that stays while `x pred bound` (x = start + k *
// step at the test of iteration k), at the preheader; 0 where the formula would not be exact (the
// recurrence could wrap before it leaves, a zero step), which only costs the rounds: the emitter
// runs no more rounds than the least `last` allows, and each lane then runs what it has left.
Value* last_from_test(IRBuilder<>& b, CmpInst::Predicate pred, Value* x, Value* step,
                      Value* bound) {
  if (pred == CmpInst::ICMP_NE)  // step 1 or -1: exits when x == bound
    return match_step_one(b, x, step, bound);
  const StrictTest t = strict_test(b, pred, bound);
  Type* type = x->getType();
  Value* zero = ConstantInt::get(type, 0);
  Value* one = ConstantInt::get(type, 1);
  Value* stride = stride_of(b, t, step);
  Value* positive = b.CreateICmpNE(stride, zero);
  Value* inside = b.CreateICmp(t.pred, x, t.bound);
  // The distance walked, by steps of `stride` > 0, from x to the first value past the bound.
  Value* span = counts_up(t.pred) ? b.CreateSub(b.CreateSub(t.bound, x), one)
                                  : b.CreateSub(b.CreateSub(x, t.bound), one);
  Value* divisor = b.CreateSelect(positive, stride, one);
  Value* count = b.CreateAdd(b.CreateUDiv(span, divisor), one);
  Value* valid = count_is_exact(b, t, step);
  return b.CreateSelect(b.CreateAnd(inside, valid), count, zero, "across.count");
}

// Whether a loop's strided stores are apart at run time (region_order.h, StridedIndex): its
// latch test counts up and its count is exact (no index wraps before it leaves, and every index
// after a lane's first is below the bound, which is at most the type's end less a step), and the
// step exceeds slope * (lanes - 1). A lane's start is u + slope * lane (modulo the type), so two
// lanes' starts differ by slope * (a - b), nonzero and less than a step, or by that plus or
// minus the type's range; in the first case their indices never meet, in the others the meeting
// index would lie past the bound. The same for every lane: it reads only the bound, the step
// and the threadgroup's size (docs/lanes.md, "Strided stores").
Value* strided_apart(IRBuilder<>& b, const LatchTest& t, Value* step, Value* bound,
                     uint64_t lane_slope, Value* state) {
  if (step->getType()->getIntegerBitWidth() > 64) return b.getFalse();
  const StrictTest strict = strict_test(b, t.pred, bound);
  Value* exact = count_is_exact(b, strict, step);
  Value* lanes = abi::load_field(b, state, abi::kThreadCount, b.getInt32Ty(), "lanes");
  Value* spread = b.CreateMul(b.getInt64(lane_slope),
                              b.CreateSub(b.CreateZExt(lanes, b.getInt64Ty()), b.getInt64(1)));
  Value* wide_step = b.CreateZExtOrBitCast(step, b.getInt64Ty());
  return b.CreateAnd(exact, b.CreateICmpUGT(wide_step, spread), "across.apart");
}

bool has_sync_point(const Loop& l) {
  for (const BasicBlock* bb : l.blocks())
    for (const Instruction& i : *bb)
      if (const auto* call = dyn_cast<CallInst>(&i); call && is_sync_point(engine_call_of(*call)))
        return true;
  return false;
}

std::string loop_site(const Loop& l) {
  std::string site = describe_site(*l.getHeader()->getFirstNonPHIOrDbg(), nullptr, "");
  return site.empty() ? describe_site(*l.getLoopLatch()->getTerminator(), nullptr, "?") : site;
}

// Whether the loop stores anywhere but the lane's own variables.
bool stores_to_memory(const Loop& l) {
  for (const BasicBlock* bb : l.blocks())
    for (const Instruction& i : *bb)
      if (const auto* store = dyn_cast<StoreInst>(&i);
          store && !lane_private(store->getPointerOperand()))
        return true;
  return false;
}

// The loop's strided index for region_order.h: the induction variable its latch test `t` counts
// up, tested after the step, when the test is `<` or `<=`. The test, for the run-time test;
// nullopt when there is none.
std::optional<LatchTest> strided_index(const std::optional<LatchTest>& t, ScalarEvolution& se,
                                       const std::vector<Induction>& inductions,
                                       StridedIndex& strided) {
  if (!t || (t->pred != CmpInst::ICMP_ULT && t->pred != CmpInst::ICMP_ULE &&
             t->pred != CmpInst::ICMP_SLT && t->pred != CmpInst::ICMP_SLE))
    return std::nullopt;
  for (const Induction& i : inductions) {
    if (!i.phi->getType()->isIntegerTy() || i.rec->getStepRecurrence(se) != t->step) continue;
    // Tested after the step (a rotated loop's latch): every index after the first is below the
    // bound, which strided_apart's argument needs.
    if (se.getAddExpr(i.rec->getStart(), t->step) != t->start) continue;
    strided = {i.rec, t->bound};
    return t;
  }
  return std::nullopt;
}

// `per_lane` gets the loops that the region's order keeps per lane, with why.
std::optional<Candidate> candidate(Loop& l, ScalarEvolution& se, const SCEVExpander& expander,
                                   std::vector<std::string>& per_lane) {
  BasicBlock* pre = l.getLoopPreheader();
  BasicBlock* latch = l.getLoopLatch();
  if (!l.isInnermost() || pre == nullptr || latch == nullptr || !l.hasDedicatedExits())
    return std::nullopt;
  // Inside an outer loop, each of the outer loop's iterations comes back to the yield, one
  // return to the runtime per pass of the inner loop: worth it only where the outer loop
  // returns to the runtime anyway (a sync point in it), as flash attention's loop over keys.
  if (l.getParentLoop() != nullptr && !has_sync_point(*l.getParentLoop())) return std::nullopt;
  for (BasicBlock* bb : l.blocks())
    for (Instruction& i : *bb)
      if (!reorderable(i) || i.getType()->isTokenTy()) return std::nullopt;
  Candidate c{&l, {}, {}, {}, {}, "", false, std::nullopt, 0};
  SmallVector<BasicBlock*, 4> exiting;
  l.getExitingBlocks(exiting);
  for (BasicBlock* e : exiting) {
    auto* br = dyn_cast<BranchInst>(e->getTerminator());
    if (br == nullptr || !br->isConditional()) return std::nullopt;
    const bool first_stays = l.contains(br->getSuccessor(0));
    if (first_stays == l.contains(br->getSuccessor(1))) return std::nullopt;
    c.stays.emplace_back(e, first_stays ? 0u : 1u);
  }
  // An equality test stepping by more than one may never be met (a loop of 2s towards an odd
  // bound: the watchdog's planted kernel); ScalarEvolution counts it as if it were, by C++'s
  // forward-progress rule. Such a loop stays per lane, and hangs as on fibers.
  for (auto [block, stays] : c.stays) {
    auto* cmp = dyn_cast<ICmpInst>(cast<BranchInst>(block->getTerminator())->getCondition());
    if (cmp == nullptr || !cmp->isEquality()) continue;
    for (Value* op : cmp->operands())
      if (const auto* rec = dyn_cast<SCEVAddRecExpr>(se.getSCEV(op)); rec && rec->getLoop() == &l) {
        const SCEV* step = rec->getStepRecurrence(se);
        if (!step->isOne() && !step->isAllOnesValue()) return std::nullopt;
      }
  }
  // Each exit's count: a loop stays in the rounds only in iterations no exit leaves. Where
  // ScalarEvolution has no count for an exit (`lane + 32 * k < d`, whose add it cannot rule out
  // wrapping), the exit's own test gives it, exact or 0 (last_from_test).
  for (auto [block, stays] : c.stays) {
    const SCEV* count = se.getExitCount(&l, block);
    if (!isa<SCEVCouldNotCompute>(count) && count->getType()->isIntegerTy()) {
      count = GuardDivisions(se).visit(count);
      if (expandable(count, l, se, expander)) {
        c.exit_counts.push_back(count);
        continue;
      }
    }
    std::optional<LatchTest> test = exit_test(l, *block, se, expander);
    if (!test) return std::nullopt;
    c.exit_tests.push_back(*test);
  }
  for (PHINode& phi : l.getHeader()->phis()) {
    if (!phi.getType()->isIntegerTy() && !phi.getType()->isPointerTy()) continue;
    const auto* rec = dyn_cast<SCEVAddRecExpr>(se.getSCEV(&phi));
    if (rec == nullptr || rec->getLoop() != &l || !rec->isAffine()) continue;
    const SCEV* step = rec->getStepRecurrence(se);
    if (!expandable(step, l, se, expander)) continue;
    c.inductions.push_back({&phi, rec});
  }
  // Every other value the loop carries is loaded from and stored to its frame slot in each round
  // (an accumulator: one vector load and store per 8 lanes). A loop carrying many (flash
  // attention's 8 row scores over the head dimension) loses more there than it gains.
  const size_t carried =
      size_t(std::distance(l.getHeader()->phis().begin(), l.getHeader()->phis().end()));
  if (carried - c.inductions.size() > kMaxCarried) return std::nullopt;
  // The rounds reorder the other lanes' code around the loop too (region_order.h).
  StridedIndex strided;
  // The latch's test, for the strided index (the counts above may not have needed it).
  const std::optional<LatchTest> strided_test =
      stores_to_memory(l) ? strided_index(latch_test(l, se, expander), se, c.inductions, strided)
                          : std::nullopt;
  RegionOrder order;
  if (std::optional<std::string> why =
          region_order_visible(l, se, strided_test ? &strided : nullptr, order)) {
    per_lane.push_back(loop_site(l) + ": " + *why);
    return std::nullopt;
  }
  c.assumes_distinct_buffers = order.assumes_distinct_buffers;
  if (order.lane_slope != 0) {
    c.apart_test = strided_test;
    c.lane_slope = order.lane_slope;
  }
  c.site = loop_site(l);
  return c;
}

FunctionCallee marker_function(Module& m, Type* count) {
  LLVMContext& ctx = m.getContext();
  auto* type = FunctionType::get(Type::getVoidTy(ctx), {count, count}, false);
  const std::string name = kMarkerPrefix + std::to_string(count->getIntegerBitWidth());
  return m.getOrInsertFunction(name, type);
}

FunctionCallee yield_function(Module& m) {
  LLVMContext& ctx = m.getContext();
  auto* type = FunctionType::get(Type::getVoidTy(ctx), {PointerType::get(ctx, 0)}, false);
  return m.getOrInsertFunction(kYieldFunction, type);
}

// The values the rewrite needs, expanded in the preheader while ScalarEvolution still describes
// the function: the last iteration's index, and each induction's start and step.
struct Expanded {
  Value* last;
  std::vector<std::tuple<PHINode*, Value*, Value*, bool>> inductions;  // phi, start, step, nuw
  Value* apart = nullptr;  // strided_apart, for a loop whose stores need it
};

// The least of the exits' counts (unsigned), in the widest of their types.
Value* least(IRBuilder<>& b, const std::vector<Value*>& counts) {
  Type* type = counts.front()->getType();
  for (Value* c : counts)
    if (c->getType()->getIntegerBitWidth() > type->getIntegerBitWidth()) type = c->getType();
  Value* least = nullptr;
  for (Value* c : counts) {
    Value* wide = b.CreateZExt(c, type);
    least = least == nullptr ? wide : b.CreateBinaryIntrinsic(Intrinsic::umin, least, wide);
  }
  return least;
}

AcrossLoop rewrite(const Candidate& c, const Expanded& x) {
  Loop& l = *c.loop;
  BasicBlock* pre = l.getLoopPreheader();
  BasicBlock* header = l.getHeader();
  BasicBlock* latch = l.getLoopLatch();
  Module& m = *header->getModule();
  AcrossLoop a;
  a.stays = c.stays;
  a.blocks.assign(l.block_begin(), l.block_end());
  a.site = c.site;
  a.assumes_distinct_buffers = c.assumes_distinct_buffers;
  Type* count = x.last->getType();

  IRBuilder<> pb(pre->getTerminator());
  // The rounds run iterations before the last only. Where no induction variable wraps up to
  // the last (start + last * step fits, signed and unsigned), the rounds' copies may say so
  // (nuw nsw: what makes x[tid + done * threads] consecutive to the vectorizer); elsewhere
  // `last` is 0, which leaves the loop to the lanes.
  Value* fits = pb.getTrue();
  for (auto [phi, start, step, nuw] : x.inductions) {
    if (!phi->getType()->isIntegerTy() ||
        phi->getType()->getIntegerBitWidth() < count->getIntegerBitWidth())
      continue;
    Value* k = pb.CreateZExt(x.last, step->getType());
    for (auto [mul, add] :
         {std::pair{Intrinsic::umul_with_overflow, Intrinsic::uadd_with_overflow},
          std::pair{Intrinsic::smul_with_overflow, Intrinsic::sadd_with_overflow}}) {
      Value* product = pb.CreateBinaryIntrinsic(mul, k, step);
      Value* sum = pb.CreateBinaryIntrinsic(add, start, pb.CreateExtractValue(product, 0));
      fits = pb.CreateAnd(fits, pb.CreateNot(pb.CreateOr(pb.CreateExtractValue(product, 1),
                                                         pb.CreateExtractValue(sum, 1))));
    }
  }
  a.last = cast<Instruction>(
      pb.CreateFreeze(pb.CreateSelect(fits, x.last, ConstantInt::get(count, 0)), "across.last"));
  a.done = PHINode::Create(count, 2, "across.done");
  a.done->insertBefore(header->begin());
  a.done->addIncoming(ConstantInt::get(count, 0), pre);
  IRBuilder<> lb(latch->getTerminator());
  // At most `last` + 1: no wrap.
  a.next = cast<Instruction>(
      lb.CreateAdd(a.done, ConstantInt::get(count, 1), "across.next", /*HasNUW=*/true));
  a.done->addIncoming(a.next, latch);

  IRBuilder<> hb(header->getFirstNonPHI());
  for (auto [phi, start, step, nuw] : x.inductions) {
    Value* k = hb.CreateZExtOrTrunc(a.done, step->getType());
    // The recurrence does not wrap in the iterations that run (ScalarEvolution's flags), and
    // `done` <= last: neither does start + done * step.
    Value* offset = hb.CreateMul(k, step, "", nuw, false);
    Value* value = phi->getType()->isPointerTy()
                       ? hb.CreateGEP(hb.getInt8Ty(), start, offset, phi->getName() + ".across")
                       : hb.CreateAdd(start, offset, phi->getName() + ".across", nuw, false);
    if (phi->getType()->isIntegerTy() &&
        phi->getType()->getIntegerBitWidth() >= count->getIntegerBitWidth())
      for (Value* v : {offset, value})
        if (auto* i = dyn_cast<Instruction>(v)) a.wrap_free.push_back(i);
    phi->replaceAllUsesWith(value);
    Value* next = phi->getIncomingValueForBlock(latch);
    phi->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(next);
    ++a.recomputed;
  }
  a.marker = hb.CreateCall(marker_function(m, count), {a.last, a.done});

  const DebugLoc at = latch->getTerminator()->getDebugLoc();
  a.back = SplitEdge(latch, header);
  a.back->setName("across.back");
  // The yield in a block of its own after `back` (split_sync_points splits it off).
  BasicBlock* yield_block = SplitBlock(a.back, a.back->getTerminator());
  IRBuilder<> yb(yield_block->getTerminator());
  a.yield = yb.CreateCall(yield_function(m), {ConstantPointerNull::get(yb.getPtrTy())});
  a.yield->setDebugLoc(at);
  // Stores apart only where the lanes' indices are: where the test fails, no lane yields, and
  // each runs its iterations together, as on fibers.
  if (x.apart != nullptr) {
    a.back->getTerminator()->eraseFromParent();
    BranchInst::Create(yield_block, header, x.apart, a.back);
    for (PHINode& phi : header->phis())
      phi.addIncoming(phi.getIncomingValueForBlock(yield_block), a.back);
    a.tested_apart = true;
  }
  return a;
}

}  // namespace

bool is_across_marker(const CallInst& call) {
  const Function* f = call.getCalledFunction();
  return f != nullptr && f->getName().starts_with(kMarkerPrefix);
}

std::vector<AcrossLoop> prepare_loops_across_lanes(Function& body,
                                                   std::vector<std::string>& per_lane) {
  std::vector<AcrossLoop> result;
  if (!loops_across_lanes) return result;
  DominatorTree dt(body);
  LoopInfo li(dt);
  if (li.empty()) return result;
  for (Loop* l : li.getLoopsInPreorder())
    simplifyLoop(l, &dt, &li, nullptr, nullptr, nullptr, /*PreserveLCSSA=*/false);
  const DataLayout& dl = body.getParent()->getDataLayout();
  TargetLibraryInfoImpl tlii(Triple(body.getParent()->getTargetTriple()));
  TargetLibraryInfo tli(tlii);
  AssumptionCache ac(body);
  std::vector<Candidate> candidates;
  std::vector<Expanded> expanded;
  {
    ScalarEvolution se(body, tli, ac, dt, li);
    SCEVExpander expander(se, dl, "across");
    // Outer loops' recurrences from their own variables where they have them.
    expander.disableCanonicalMode();
    for (Loop* l : li.getLoopsInPreorder())
      if (std::optional<Candidate> c = candidate(*l, se, expander, per_lane))
        candidates.push_back(*c);
    // Everything expanded before anything changes: ScalarEvolution describes the function as
    // it was.
    for (const Candidate& c : candidates) {
      Instruction* at = c.loop->getLoopPreheader()->getTerminator();
      std::vector<Value*> counts;
      for (const SCEV* count : c.exit_counts)
        counts.push_back(expander.expandCodeFor(count, count->getType(), at));
      for (const LatchTest& t : c.exit_tests) {
        Type* type = t.start->getType();
        Value* start = expander.expandCodeFor(t.start, type, at);
        Value* step = expander.expandCodeFor(t.step, type, at);
        Value* bound = expander.expandCodeFor(t.bound, type, at);
        IRBuilder<> b(at);
        counts.push_back(last_from_test(b, t.pred, start, step, bound));
      }
      IRBuilder<> at_preheader(at);
      Expanded x{least(at_preheader, counts), {}};
      if (c.apart_test) {
        const LatchTest& t = *c.apart_test;
        Value* step = expander.expandCodeFor(t.step, t.step->getType(), at);
        Value* bound = expander.expandCodeFor(t.bound, t.bound->getType(), at);
        IRBuilder<> b(at);
        x.apart = strided_apart(b, t, step, bound, c.lane_slope, body.getArg(1));
      }
      for (const Induction& i : c.inductions) {
        const SCEV* step = i.rec->getStepRecurrence(se);
        x.inductions.emplace_back(
            i.phi, i.phi->getIncomingValueForBlock(c.loop->getLoopPreheader()),
            expander.expandCodeFor(step, step->getType(), at), i.rec->hasNoUnsignedWrap());
      }
      expanded.push_back(std::move(x));
    }
  }
  for (size_t k = 0; k < candidates.size(); ++k)
    result.push_back(rewrite(candidates[k], expanded[k]));
  return result;
}

}  // namespace metalsim::lanes
