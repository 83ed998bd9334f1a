#pragma once
// The values a scalar-evolution expression takes over every iteration of one loop, as an interval
// computed at run time before the loop (docs/checks.md, "A lane loop's range test"). The
// access-check pass uses it where an address is not a start plus a step per iteration of the
// loop: a lane loop's `lane / 2`, `lane % 2`, the count of a per-lane strided loop
// `for (u = lane; u < n; u += 32)`, all differ per lane in ways scalar evolution cannot step
// through, but each is bounded by what it is at the loop's ends.
//
// Meaning: for each iteration, the expression's value (of n bits) is congruent modulo 2^n to some
// integer x with lo <= x <= hi, where lo and hi are i64 values computed in the loop's preheader,
// and `exact()` is true (no 64-bit overflow in the interval's own arithmetic, and a divisor not
// zero). Read as an unsigned or signed n-bit number the value equals x only where x fits in that
// reading: zero and sign extensions, unsigned divisions and minima and maxima check that at run
// time and otherwise take the whole range of the reading. Leaves the same throughout the loop are
// computed once (their unsigned reading); a recurrence {start, +, step} of the loop spans start
// plus 0 to step times its backedge-taken count; a value each iteration loads from a slot of its
// own (a lane's frame slot: the address a recurrence of the loop, steps at least the value's
// size apart, the lane's index extended from 32 bits where it does not wrap) that nothing in the
// loop writes before that load spans the least to the greatest of the slots, read before the
// loop; an unsigned minimum is at most any of its operands that is not negative; a recurrence of
// a loop nested in the loop spans its start plus 0 to step times that loop's symbolic maximum
// count; a phi where control joins inside the loop (not a loop header's) holds its incoming
// values. Anything else (a value loaded from memory the loop may write, a recurrence of an outer
// loop that varies in it) cannot be bounded.
#include <optional>
#include <utility>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/Analysis/AliasAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Value.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

namespace metalsim::instrument {

// Whether `s` has one value throughout `loop` and can be computed in its preheader (which it
// must have).
bool computable_before(const llvm::SCEV* s, const llvm::Loop* loop, llvm::ScalarEvolution& se,
                       const llvm::SCEVExpander& x);

// A recurrence of a narrower integer that an expression extends (a 32-bit index extended to 64
// bits in an address), replaced by `model`: the recurrence of its extended start and step. The two
// are equal while the narrow one does not wrap over the loop's iterations, which whoever uses the
// model must check (a walk of its own, or a condition of exact()).
struct WidenedRecurrence {
  const llvm::SCEV* model;
  unsigned bits;  // the narrow recurrence's
  bool is_signed;
};

// `s` with each zero- or sign-extended affine recurrence of `loop` replaced by its model, each
// added to `models`.
const llvm::SCEV* widen_recurrences(const llvm::SCEV* s, const llvm::Loop* loop,
                                    llvm::ScalarEvolution& se,
                                    std::vector<WidenedRecurrence>& models);

struct Interval {
  llvm::Value* lo;  // i64
  llvm::Value* hi;  // i64
};

class IntervalBuilder {
 public:
  // `b` null: only says whether an expression can be bounded, and emits nothing. Else the code
  // goes where `b` stands, in `loop`'s preheader.
  // `aa` (may be null: no value loaded in the loop is bounded) tells which stores in the loop may
  // write where an iteration loads a value (own_slot).
  IntervalBuilder(llvm::ScalarEvolution& se, llvm::SCEVExpander& expander, const llvm::Loop& loop,
                  llvm::IRBuilder<>* b, llvm::AAResults* aa = nullptr);

  // The interval of `s`, or nullopt where it cannot be bounded.
  std::optional<Interval> of(const llvm::SCEV* s);
  // The interval of a count (a backedge-taken count, read unsigned).
  std::optional<Interval> count(const llvm::SCEV* s) { return unsigned_view(s); }
  // [0, x.hi]: the values of k * 1 for k from 0 to a count in x.
  Interval from_zero(Interval x);
  // The interval of the products a * b.
  Interval multiply(Interval a, Interval b);
  // The interval of the sums a + b.
  Interval add(Interval a, Interval b);
  // i1: every interval so far is exact (true where only testing).
  llvm::Value* exact() const { return exact_; }
  // Adds a condition `exact()` requires.
  void require(llvm::Value* condition);

 private:
  std::optional<Interval> compute(const llvm::SCEV* s);
  bool before_loop(const llvm::SCEV* s);
  std::optional<Interval> leaf(const llvm::SCEV* s);
  std::optional<Interval> recurrence(const llvm::SCEVAddRecExpr* rec);
  std::optional<Interval> view(const llvm::SCEV* s, bool is_signed);
  std::optional<Interval> unsigned_view(const llvm::SCEV* s) { return view(s, false); }
  std::optional<Interval> signed_view(const llvm::SCEV* s) { return view(s, true); }
  std::optional<Interval> min_max(const llvm::SCEVNAryExpr* e, bool is_signed, bool is_max);
  std::optional<Interval> unsigned_min(const llvm::SCEVNAryExpr* e);
  const llvm::SCEVAddRecExpr* slot_recurrence(const llvm::SCEV* address);
  std::optional<Interval> divide(const llvm::SCEVUDivExpr* e);
  std::optional<Interval> choice(const llvm::SCEVUnknown* u);
  std::optional<Interval> join(const llvm::PHINode& phi);
  std::optional<std::pair<llvm::Value*, llvm::Value*>> decide(llvm::Value* condition);
  std::optional<Interval> own_slot(const llvm::LoadInst& load);
  bool unchanged_before(const llvm::LoadInst& load, const llvm::SCEV* address);
  bool reaches_in_iteration(const llvm::Instruction& from, const llvm::Instruction& to);
  // i1: x lies in [lowest, highest].
  llvm::Value* fits(Interval x, int64_t lowest, int64_t highest);
  // [lo, hi] where x fits in [lowest, highest], else [lowest, highest].
  Interval clamp_view(Interval x, int64_t lowest, int64_t highest);
  llvm::Value* checked(llvm::Intrinsic::ID op, llvm::Value* a, llvm::Value* b);
  llvm::Value* constant(int64_t v);
  Interval placeholder();

  llvm::ScalarEvolution& se_;
  llvm::SCEVExpander& expander_;
  const llvm::Loop& loop_;
  llvm::IRBuilder<>* b_;
  llvm::AAResults* aa_;
  llvm::Value* exact_;
  llvm::DenseMap<const llvm::SCEV*, std::optional<Interval>> computed_;  // or none (of)
};

}  // namespace metalsim::instrument
