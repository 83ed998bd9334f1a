#include "simt/instrument/scev_interval.h"

#include <limits>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/MemoryLocation.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include "simt/instrument/access_abi.h"

namespace metalsim::instrument {

using namespace llvm;

namespace {

// The widest reading an interval holds: 64 bits, signed.
constexpr unsigned kWidth = 64;
// The widest reading bounded by its whole range where its value cannot be: a lane's index within
// its simdgroup (5 bits), a byte. A wider one would make the test's range too wide to pass.
constexpr unsigned kWholeRangeBits = 8;

// The values an n-bit number (n < 64) takes, read unsigned or signed.
struct Reading {
  int64_t lowest, highest;
};
Reading reading_of(unsigned bits, bool is_signed) {
  if (!is_signed) return {0, int64_t((uint64_t(1) << bits) - 1)};
  const int64_t half = int64_t(uint64_t(1) << (bits - 1));
  return {-half, half - 1};
}

// Replaces each extended recurrence of `loop` by its model (widen_recurrences).
class Widen : public SCEVRewriteVisitor<Widen> {
 public:
  Widen(ScalarEvolution& se, const Loop* loop, std::vector<WidenedRecurrence>& models)
      : SCEVRewriteVisitor(se), loop_(loop), models_(models) {}
  const SCEV* visitZeroExtendExpr(const SCEVZeroExtendExpr* e) {
    if (const SCEV* model = widen(e->getOperand(), e->getType(), false)) return model;
    return SCEVRewriteVisitor::visitZeroExtendExpr(e);
  }
  const SCEV* visitSignExtendExpr(const SCEVSignExtendExpr* e) {
    if (const SCEV* model = widen(e->getOperand(), e->getType(), true)) return model;
    return SCEVRewriteVisitor::visitSignExtendExpr(e);
  }

 private:
  const SCEV* widen(const SCEV* narrow, Type* wide, bool is_signed) {
    const auto* rec = dyn_cast<SCEVAddRecExpr>(narrow);
    if (rec == nullptr || rec->getLoop() != loop_ || !rec->isAffine()) return nullptr;
    auto extend = [&](const SCEV* v) {
      return is_signed ? SE.getSignExtendExpr(v, wide) : SE.getZeroExtendExpr(v, wide);
    };
    const SCEV* model = SE.getAddRecExpr(
        extend(rec->getStart()), extend(rec->getStepRecurrence(SE)), loop_, SCEV::FlagAnyWrap);
    models_.push_back({model, unsigned(SE.getTypeSizeInBits(narrow->getType())), is_signed});
    return model;
  }
  const Loop* loop_;
  std::vector<WidenedRecurrence>& models_;
};

}  // namespace

const SCEV* widen_recurrences(const SCEV* s, const Loop* loop, ScalarEvolution& se,
                              std::vector<WidenedRecurrence>& models) {
  return Widen(se, loop, models).visit(s);
}

IntervalBuilder::IntervalBuilder(ScalarEvolution& se, SCEVExpander& expander, const Loop& loop,
                                 IRBuilder<>* b, AAResults* aa)
    : se_(se),
      expander_(expander),
      loop_(loop),
      b_(b),
      aa_(aa),
      exact_(b ? b->getTrue() : nullptr) {}

void IntervalBuilder::require(Value* condition) {
  if (b_ != nullptr) exact_ = b_->CreateAnd(exact_, condition);
}

Value* IntervalBuilder::constant(int64_t v) { return b_->getInt64(uint64_t(v)); }

Interval IntervalBuilder::placeholder() { return {nullptr, nullptr}; }

// a op b for op sadd/smul with overflow; the overflow clears exact().
Value* IntervalBuilder::checked(Intrinsic::ID op, Value* a, Value* b) {
  Value* pair = b_->CreateBinaryIntrinsic(op, a, b);
  require(b_->CreateNot(b_->CreateExtractValue(pair, 1)));
  return b_->CreateExtractValue(pair, 0);
}

Interval IntervalBuilder::from_zero(Interval x) {
  if (b_ == nullptr) return placeholder();
  return {constant(0), x.hi};
}

Interval IntervalBuilder::add(Interval a, Interval b) {
  if (b_ == nullptr) return placeholder();
  return {checked(Intrinsic::sadd_with_overflow, a.lo, b.lo),
          checked(Intrinsic::sadd_with_overflow, a.hi, b.hi)};
}

Interval IntervalBuilder::multiply(Interval a, Interval b) {
  if (b_ == nullptr) return placeholder();
  Value* p[4] = {checked(Intrinsic::smul_with_overflow, a.lo, b.lo),
                 checked(Intrinsic::smul_with_overflow, a.lo, b.hi),
                 checked(Intrinsic::smul_with_overflow, a.hi, b.lo),
                 checked(Intrinsic::smul_with_overflow, a.hi, b.hi)};
  Value* lo = p[0];
  Value* hi = p[0];
  for (Value* v : {p[1], p[2], p[3]}) {
    lo = b_->CreateBinaryIntrinsic(Intrinsic::smin, lo, v);
    hi = b_->CreateBinaryIntrinsic(Intrinsic::smax, hi, v);
  }
  return {lo, hi};
}

Value* IntervalBuilder::fits(Interval x, int64_t lowest, int64_t highest) {
  return b_->CreateAnd(b_->CreateICmpSGE(x.lo, constant(lowest)),
                       b_->CreateICmpSLE(x.hi, constant(highest)));
}

Interval IntervalBuilder::clamp_view(Interval x, int64_t lowest, int64_t highest) {
  if (b_ == nullptr) return placeholder();
  Value* inside = fits(x, lowest, highest);
  return {b_->CreateSelect(inside, x.lo, constant(lowest)),
          b_->CreateSelect(inside, x.hi, constant(highest))};
}

// The expression read as a number of its width, unsigned or signed: the interval where it fits
// the reading, else the reading's whole range ([0, 2^n - 1], [-2^(n-1), 2^(n-1) - 1]). A 64-bit
// unsigned reading past 2^63 does not fit an i64: exact() then fails.
std::optional<Interval> IntervalBuilder::view(const SCEV* s, bool is_signed) {
  const unsigned bits = se_.getTypeSizeInBits(s->getType());
  std::optional<Interval> x = of(s);
  if (bits >= kWidth) {
    if (!is_signed && x && b_ != nullptr) require(b_->CreateICmpSGE(x->lo, constant(0)));
    return x;
  }
  const Reading r = reading_of(bits, is_signed);
  // Whatever it is, a reading narrower than 64 bits lies in its whole range.
  if (!x && bits <= kWholeRangeBits)
    return b_ == nullptr ? placeholder() : Interval{constant(r.lowest), constant(r.highest)};
  if (!x || b_ == nullptr) return x;
  return clamp_view(*x, r.lowest, r.highest);
}

bool computable_before(const SCEV* s, const Loop* loop, ScalarEvolution& se,
                       const SCEVExpander& x) {
  return se.isLoopInvariant(s, loop) &&
         x.isSafeToExpandAt(s, loop->getLoopPreheader()->getTerminator());
}

bool IntervalBuilder::before_loop(const SCEV* s) {
  return loop_.getLoopPreheader() != nullptr && computable_before(s, &loop_, se_, expander_);
}

// A value the same in every iteration, computed before the loop: its unsigned reading.
std::optional<Interval> IntervalBuilder::leaf(const SCEV* s) {
  if (!before_loop(s)) return std::nullopt;
  if (b_ == nullptr) return placeholder();
  Value* v = expander_.expandCodeFor(s, nullptr, &*b_->GetInsertPoint());
  if (v->getType()->isPointerTy()) v = b_->CreatePtrToInt(v, b_->getInt64Ty());
  v = b_->CreateZExtOrTrunc(v, b_->getInt64Ty());
  return Interval{v, v};
}

// {start, +, step} of the loop: start + step * k for k from 0 to the backedge-taken count.
std::optional<Interval> IntervalBuilder::recurrence(const SCEVAddRecExpr* rec) {
  const Loop* of_loop = rec->getLoop();
  if (!rec->isAffine() || !loop_.contains(of_loop)) return std::nullopt;
  // A loop nested in this one runs from its start (which may differ per iteration of this one)
  // at most its symbolic maximum count of times; this loop, exactly its count.
  const SCEV* count = of_loop == &loop_
                          ? se_.getBackedgeTakenCount(&loop_)
                          : se_.getSymbolicMaxBackedgeTakenCount(const_cast<Loop*>(of_loop));
  if (isa<SCEVCouldNotCompute>(count)) return std::nullopt;
  std::optional<Interval> start = of(rec->getStart());
  std::optional<Interval> step = start ? of(rec->getStepRecurrence(se_)) : std::nullopt;
  std::optional<Interval> last = step ? unsigned_view(count) : std::nullopt;
  if (!last) return std::nullopt;
  if (b_ == nullptr) return placeholder();
  return add(*start, multiply(*step, {constant(0), last->hi}));
}

// A phi where control flow joins inside the loop (an unrolled loop's remainder starting where the
// unrolled part stopped, a value chosen on two paths): every value it can take is one of its
// incoming values, so it lies in the interval that holds theirs. Not a loop header's phi: a value
// defined in terms of itself is a recurrence, or nothing an interval can follow.
std::optional<Interval> IntervalBuilder::join(const PHINode& phi) {
  if (!loop_.contains(&phi) || !se_.isSCEVable(phi.getType())) return std::nullopt;
  const BasicBlock* block = phi.getParent();
  for (const Loop* inner : loop_.getLoopsInPreorder())
    if (inner->getHeader() == block) return std::nullopt;
  std::optional<Interval> hull;
  for (const Value* in : phi.incoming_values()) {
    std::optional<Interval> x = of(se_.getSCEV(const_cast<Value*>(in)));
    if (!x) return std::nullopt;
    if (b_ == nullptr) continue;
    hull = !hull ? x
                 : Interval{b_->CreateBinaryIntrinsic(Intrinsic::smin, hull->lo, x->lo),
                            b_->CreateBinaryIntrinsic(Intrinsic::smax, hull->hi, x->hi)};
  }
  return b_ == nullptr ? placeholder() : hull;
}

std::optional<Interval> IntervalBuilder::min_max(const SCEVNAryExpr* e, bool is_signed,
                                                 bool is_max) {
  std::optional<Interval> result;
  for (const SCEV* op : e->operands()) {
    std::optional<Interval> x = is_signed ? signed_view(op) : unsigned_view(op);
    if (!x) return std::nullopt;
    if (b_ == nullptr) {
      result = placeholder();
      continue;
    }
    if (!result) {
      result = x;
      continue;
    }
    const Intrinsic::ID pick = is_max ? Intrinsic::smax : Intrinsic::smin;
    result = Interval{b_->CreateBinaryIntrinsic(pick, result->lo, x->lo),
                      b_->CreateBinaryIntrinsic(pick, result->hi, x->hi)};
  }
  return result;
}

// An unsigned minimum: at most each operand whose reading is not negative (an i64 one where its
// interval is; a narrower one always), and at least 0, or the least of the operands where none
// is negative. One operand must be: a count `(last - done) umin (-done)` of a loop whose second
// term is the wrap of its counter (negative) is bounded by its first.
std::optional<Interval> IntervalBuilder::unsigned_min(const SCEVNAryExpr* e) {
  std::vector<std::pair<Interval, Value*>> operands;  // interval, i1 not negative
  for (const SCEV* op : e->operands()) {
    const bool narrow = se_.getTypeSizeInBits(op->getType()) < kWidth;
    std::optional<Interval> x = narrow ? unsigned_view(op) : of(op);
    if (!x) return std::nullopt;
    if (b_ != nullptr)
      operands.emplace_back(*x, narrow ? b_->getTrue() : b_->CreateICmpSGE(x->lo, constant(0)));
  }
  if (b_ == nullptr) return placeholder();
  Value* hi = constant(std::numeric_limits<int64_t>::max());
  Value* lo = hi;
  Value* any = b_->getFalse();
  Value* all = b_->getTrue();
  for (auto [x, not_negative] : operands) {
    hi = b_->CreateSelect(not_negative, b_->CreateBinaryIntrinsic(Intrinsic::smin, hi, x.hi), hi);
    lo = b_->CreateBinaryIntrinsic(Intrinsic::smin, lo, x.lo);
    any = b_->CreateOr(any, not_negative);
    all = b_->CreateAnd(all, not_negative);
  }
  require(any);
  return Interval{b_->CreateSelect(all, lo, constant(0)), hi};
}

// An unsigned division by a divisor the same in every iteration (not zero: exact() checks).
std::optional<Interval> IntervalBuilder::divide(const SCEVUDivExpr* e) {
  std::optional<Interval> divisor = leaf(e->getRHS());
  std::optional<Interval> x = unsigned_view(e->getLHS());
  if (!divisor || !x) return std::nullopt;
  if (b_ == nullptr) return placeholder();
  // The divisor's unsigned reading is at most 2^63 - 1 where it fits an i64 (a 64-bit one past
  // that makes exact() fail).
  require(b_->CreateICmpSGT(divisor->lo, constant(0)));
  Value* d = b_->CreateBinaryIntrinsic(Intrinsic::smax, divisor->lo, constant(1));
  return Interval{b_->CreateUDiv(x->lo, d), b_->CreateUDiv(x->hi, d)};
}

// A select between two values: the interval of the one chosen where the condition is the same
// in every iteration (a value of the loop's preheader, or a comparison that its operands'
// intervals decide), else the interval that holds both.
std::optional<Interval> IntervalBuilder::choice(const SCEVUnknown* u) {
  auto* select = dyn_cast<SelectInst>(u->getValue());
  if (select == nullptr || !se_.isSCEVable(select->getType())) return std::nullopt;
  std::optional<Interval> a = of(se_.getSCEV(select->getTrueValue()));
  std::optional<Interval> c = a ? of(se_.getSCEV(select->getFalseValue())) : std::nullopt;
  if (!c || b_ == nullptr) return c;
  Interval both{b_->CreateBinaryIntrinsic(Intrinsic::smin, a->lo, c->lo),
                b_->CreateBinaryIntrinsic(Intrinsic::smax, a->hi, c->hi)};
  auto pick = [&](Value* condition, Interval otherwise) {
    return Interval{b_->CreateSelect(condition, a->lo, otherwise.lo),
                    b_->CreateSelect(condition, a->hi, otherwise.hi)};
  };
  Value* condition = select->getCondition();
  if (std::optional<Interval> same = leaf(se_.getSCEV(condition)))
    return pick(b_->CreateTrunc(same->lo, b_->getInt1Ty()), *c);
  auto decided = decide(condition);
  // A condition bounded itself (loaded from each iteration's slot): true or false throughout.
  if (!decided && condition->getType()->isIntegerTy(1))
    if (std::optional<Interval> flag = of(se_.getSCEV(condition)))
      decided = std::make_pair(b_->CreateICmpSGE(flag->lo, constant(1)),
                               b_->CreateICmpSLE(flag->hi, constant(0)));
  if (!decided) return both;
  // Always true: the first; always false: the second; else both.
  Interval second_or_both{b_->CreateSelect(decided->second, c->lo, both.lo),
                          b_->CreateSelect(decided->second, c->hi, both.hi)};
  return pick(decided->first, second_or_both);
}

// For a comparison of two values with intervals: (always true, always false), i1 each.
std::optional<std::pair<Value*, Value*>> IntervalBuilder::decide(Value* condition) {
  auto* cmp = dyn_cast<ICmpInst>(condition);
  if (cmp == nullptr || !se_.isSCEVable(cmp->getOperand(0)->getType()) || cmp->isEquality())
    return std::nullopt;
  CmpInst::Predicate pred = cmp->getPredicate();
  const bool is_signed = cmp->isSigned();
  auto view = [&](Value* v) {
    return is_signed ? signed_view(se_.getSCEV(v)) : unsigned_view(se_.getSCEV(v));
  };
  std::optional<Interval> x = view(cmp->getOperand(0));
  std::optional<Interval> y = x ? view(cmp->getOperand(1)) : std::nullopt;
  if (!y) return std::nullopt;
  // x < y or x <= y, the operands swapped for > and >=.
  if (pred == CmpInst::ICMP_UGT || pred == CmpInst::ICMP_UGE || pred == CmpInst::ICMP_SGT ||
      pred == CmpInst::ICMP_SGE) {
    std::swap(x, y);
    pred = CmpInst::getSwappedPredicate(pred);
  }
  const bool strict = pred == CmpInst::ICMP_ULT || pred == CmpInst::ICMP_SLT;
  Value* always = strict ? b_->CreateICmpSLT(x->hi, y->lo) : b_->CreateICmpSLE(x->hi, y->lo);
  Value* never = strict ? b_->CreateICmpSGE(x->lo, y->hi) : b_->CreateICmpSGT(x->lo, y->hi);
  return std::make_pair(always, never);
}

// Whether `from` can run before `to` in one iteration of the loop: `to` later in the same block,
// or its block reached from `from`'s without taking the loop's back edge.
bool IntervalBuilder::reaches_in_iteration(const Instruction& from, const Instruction& to) {
  const BasicBlock* start = from.getParent();
  if (start == to.getParent() && from.comesBefore(&to)) return true;
  SmallVector<const BasicBlock*, 16> work(succ_begin(start), succ_end(start));
  SmallPtrSet<const BasicBlock*, 16> seen;
  while (!work.empty()) {
    const BasicBlock* block = work.pop_back_val();
    if (block == loop_.getHeader() || !loop_.contains(block) || !seen.insert(block).second)
      continue;
    if (block == to.getParent()) return true;
    work.append(succ_begin(block), succ_end(block));
  }
  return false;
}

// Whether every write in the loop that may change what `load` reads is a store to the same
// address (`address`: this iteration's slot) that cannot run before the load in its iteration.
bool IntervalBuilder::unchanged_before(const LoadInst& load, const SCEV* address) {
  const MemoryLocation read = MemoryLocation::get(&load);
  for (const BasicBlock* block : loop_.blocks())
    for (const Instruction& i : *block) {
      if (!i.mayWriteToMemory() || !isModSet(aa_->getModRefInfo(&i, read))) continue;
      const auto* store = dyn_cast<StoreInst>(&i);
      if (store == nullptr || !store->isSimple() ||
          se_.getSCEV(const_cast<Value*>(store->getPointerOperand())) != address ||
          MemoryLocation::get(store).Size != read.Size || reaches_in_iteration(*store, load))
        return false;
    }
  return true;
}

// The address of an iteration's slot as a recurrence of the loop: the address itself, or with
// the lane's 32-bit index extended to 64 bits replaced by its model, which exact() then requires
// not to wrap over the loop's iterations.
const SCEVAddRecExpr* IntervalBuilder::slot_recurrence(const SCEV* address) {
  std::vector<WidenedRecurrence> widened;
  if (!isa<SCEVAddRecExpr>(address)) address = widen_recurrences(address, &loop_, se_, widened);
  const auto* rec = dyn_cast<SCEVAddRecExpr>(address);
  if (rec == nullptr || rec->getLoop() != &loop_ || !rec->isAffine()) return nullptr;
  for (const WidenedRecurrence& w : widened) {
    std::optional<Interval> x = of(w.model);
    if (!x) return nullptr;
    if (b_ == nullptr) continue;
    const Reading r = reading_of(w.bits, w.is_signed);
    require(fits(*x, r.lowest, r.highest));
  }
  return rec;
}

// A value each iteration loads from a slot of its own: [least, greatest] of the slots, read
// before the loop (__metalsim_value_bounds). The slots are a recurrence of the loop, each at
// least the value's size from the next, so an iteration's stores to its own slot change no other
// iteration's; a store that may write there otherwise, or before the load, rules it out.
std::optional<Interval> IntervalBuilder::own_slot(const LoadInst& load) {
  if (aa_ == nullptr || !load.isSimple() || !loop_.contains(&load)) return std::nullopt;
  Type* type = load.getType();
  const uint64_t bytes = load.getDataLayout().getTypeStoreSize(type);
  if (!(type->isIntegerTy() || type->isPointerTy()) ||
      (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
    return std::nullopt;
  const SCEV* address = se_.getSCEV(const_cast<Value*>(load.getPointerOperand()));
  const SCEVAddRecExpr* rec = slot_recurrence(address);
  if (rec == nullptr) return std::nullopt;
  const auto* step = dyn_cast<SCEVConstant>(rec->getStepRecurrence(se_));
  const SCEV* count = se_.getBackedgeTakenCount(&loop_);
  if (step == nullptr || step->getAPInt().abs().ult(bytes) || isa<SCEVCouldNotCompute>(count) ||
      !before_loop(rec->getStart()) || !before_loop(count) || !unchanged_before(load, address))
    return std::nullopt;
  if (b_ == nullptr) return placeholder();
  Module& m = *b_->GetInsertBlock()->getModule();
  auto* i64 = b_->getInt64Ty();
  FunctionCallee bounds = m.getOrInsertFunction(
      abi::kValueBounds, FunctionType::get(StructType::get(i64, i64),
                                           {b_->getPtrTy(), i64, i64, b_->getInt32Ty()}, false));
  Instruction* at = &*b_->GetInsertPoint();
  Value* first = expander_.expandCodeFor(rec->getStart(), b_->getPtrTy(), at);
  Value* last = b_->CreateZExtOrTrunc(expander_.expandCodeFor(count, nullptr, at), i64);
  Value* pair = b_->CreateCall(bounds, {first, b_->getInt64(step->getAPInt().getSExtValue()), last,
                                        b_->getInt32(uint32_t(bytes))});
  return Interval{b_->CreateExtractValue(pair, 0), b_->CreateExtractValue(pair, 1)};
}

std::optional<Interval> IntervalBuilder::of(const SCEV* s) {
  // Each expression once per loop: the walks of one loop share their leaves (a lane's slot read
  // by __metalsim_value_bounds, the loop's count), and joins of joins are not walked again.
  if (auto done = computed_.find(s); done != computed_.end()) return done->second;
  std::optional<Interval> x = compute(s);
  computed_.try_emplace(s, x);
  return x;
}

std::optional<Interval> IntervalBuilder::compute(const SCEV* s) {
  if (se_.getTypeSizeInBits(s->getType()) > kWidth) return std::nullopt;
  if (std::optional<Interval> same = leaf(s)) return same;
  switch (s->getSCEVType()) {
    case scAddRecExpr: return recurrence(cast<SCEVAddRecExpr>(s));
    case scTruncate:  // congruent modulo the narrower width too
    case scPtrToInt: return of(cast<SCEVCastExpr>(s)->getOperand());
    case scZeroExtend: return unsigned_view(cast<SCEVCastExpr>(s)->getOperand());
    case scSignExtend: return signed_view(cast<SCEVCastExpr>(s)->getOperand());
    case scAddExpr:
    case scMulExpr: {
      const bool sum = isa<SCEVAddExpr>(s);
      std::optional<Interval> result;
      for (const SCEV* op : cast<SCEVNAryExpr>(s)->operands()) {
        std::optional<Interval> x = of(op);
        if (!x) return std::nullopt;
        result = !result ? x : sum ? add(*result, *x) : multiply(*result, *x);
      }
      return result;
    }
    case scUDivExpr: return divide(cast<SCEVUDivExpr>(s));
    case scUnknown: {
      const auto* u = cast<SCEVUnknown>(s);
      if (const auto* load = dyn_cast<LoadInst>(u->getValue())) return own_slot(*load);
      if (const auto* phi = dyn_cast<PHINode>(u->getValue())) return join(*phi);
      return choice(u);
    }
    case scUMaxExpr: return min_max(cast<SCEVNAryExpr>(s), false, true);
    case scUMinExpr:
    case scSequentialUMinExpr: return unsigned_min(cast<SCEVNAryExpr>(s));
    case scSMaxExpr: return min_max(cast<SCEVNAryExpr>(s), true, true);
    case scSMinExpr: return min_max(cast<SCEVNAryExpr>(s), true, false);
    default: return std::nullopt;
  }
}

}  // namespace metalsim::instrument
