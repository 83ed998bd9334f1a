#include "simt/lanes/region_order.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallSet.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IntrinsicInst.h>

#include "simt/lanes/engine_calls.h"
#include "simt/lanes/memory_space.h"
#include "simt/lanes/source_site.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// The largest lane index of a threadgroup (Metal's limit of 1024 threads).
constexpr uint64_t kLastLane = 1023;
// Past this many accesses in a region, the pairwise test is not worth its time: the loop stays
// per lane.
constexpr size_t kMaxAccesses = 2048;

bool is_sync(const Instruction& i) {
  const auto* call = dyn_cast<CallInst>(&i);
  return call != nullptr && is_sync_point(engine_call_of(*call));
}

// Where the regions that reach the loop start: just after the last sync point of each block
// met walking back from the loop's header, or the body's first instruction.
std::vector<const Instruction*> region_starts(const Loop& loop) {
  std::vector<const Instruction*> starts;
  SmallPtrSet<const BasicBlock*, 32> seen;
  SmallVector<const BasicBlock*, 16> work{loop.getHeader()};
  while (!work.empty()) {
    const BasicBlock* bb = work.pop_back_val();
    if (!seen.insert(bb).second) continue;
    const Instruction* last_sync = nullptr;
    for (const Instruction& i : *bb)
      if (is_sync(i)) last_sync = &i;
    if (last_sync != nullptr) {
      starts.push_back(last_sync->getNextNode());
      continue;
    }
    if (bb->isEntryBlock()) starts.push_back(&bb->front());
    for (const BasicBlock* pred : predecessors(bb)) work.push_back(pred);
  }
  return starts;
}

// Every instruction that runs in those regions: forward from each start to the next sync points.
std::vector<const Instruction*> region_instructions(const Loop& loop) {
  std::vector<const Instruction*> result;
  SmallPtrSet<const Instruction*, 32> taken;
  SmallPtrSet<const BasicBlock*, 32> entered;
  SmallVector<const Instruction*, 16> work;
  for (const Instruction* start : region_starts(loop)) work.push_back(start);
  while (!work.empty()) {
    const Instruction* at = work.pop_back_val();
    for (; at != nullptr; at = at->getNextNode()) {
      if (is_sync(*at) || !taken.insert(at).second) break;
      result.push_back(at);
      if (at->isTerminator())
        for (const BasicBlock* next : successors(at->getParent()))
          if (entered.insert(next).second) work.push_back(&next->front());
    }
  }
  return result;
}

// Which memory the region's stores may write: their spaces, and of device memory the bindings.
struct StoredMemory {
  MemorySpaces spaces = 0;
  SmallSet<int64_t, 4> device_bindings;  // -1: a device store through an unknown binding
};

// Whether `v` is the same for every lane of the region: computed without memory from the
// bound arguments, the state and constants, or loaded from where no store of the region writes.
// A load from a buffer binding no store writes is (a sizes buffer beside the row a loop writes)
// when the buffers are bound apart: `relied_on_distinct_buffers` then says so.
class LaneInvariance {
 public:
  LaneInvariance(const Function& body, const StoredMemory& stored) : body_(body), stored_(stored) {}

  bool value(const Value* v, unsigned depth = 0) const {
    if (isa<Constant>(v)) return true;
    if (const auto* arg = dyn_cast<Argument>(v)) return arg != body_.getArg(2);
    const auto* i = dyn_cast<Instruction>(v);
    if (i == nullptr || depth > kMaxDepth || isa<PHINode>(i) || isa<CallBase>(i)) return false;
    if (const auto* load = dyn_cast<LoadInst>(i)) {
      if (load->isVolatile() || !value(load->getPointerOperand(), depth + 1)) return false;
      return unwritten(load->getPointerOperand());
    }
    if (i->mayReadOrWriteMemory()) return false;
    return std::all_of(i->op_begin(), i->op_end(),
                       [&](const Use& op) { return value(op.get(), depth + 1); });
  }

  // No recurrence (a loop's variable differs between lanes that are at different iterations)
  // and every unknown lane-invariant.
  bool scev(const SCEV* s) const {
    return !SCEVExprContains(s, [&](const SCEV* e) {
      if (isa<SCEVAddRecExpr>(e)) return true;
      const auto* u = dyn_cast<SCEVUnknown>(e);
      return u != nullptr && !value(u->getValue());
    });
  }

  bool relied_on_distinct_buffers() const { return relied_on_distinct_buffers_; }

 private:
  bool unwritten(const Value* pointer) const {
    const MemorySpaces spaces = spaces_of(pointer, body_);
    if (!may_share(spaces, stored_.spaces)) return true;
    if (spaces != kDevice || (stored_.spaces & kUnknown) != 0) return false;
    const int64_t binding = buffer_binding(pointer, body_);
    if (binding < 0 || stored_.device_bindings.contains(-1) ||
        stored_.device_bindings.contains(binding))
      return false;
    relied_on_distinct_buffers_ = true;
    return true;
  }

  static constexpr unsigned kMaxDepth = 8;
  const Function& body_;
  const StoredMemory& stored_;
  mutable bool relied_on_distinct_buffers_ = false;
};

// How far apart two lanes' values of `s` are at least, when `s` is the same function of the lane
// index for every lane (its other terms lane-invariant): 0 for a lane-invariant `s`, nullopt when
// not known. `tid`, `4 * zext(tid)`, `base + 4 * zext(group * size + tid)` are 1, 4 and 4 apart.
class LaneDistance {
 public:
  LaneDistance(const Value* lane, const LaneInvariance& invariance)
      : lane_(lane), invariance_(invariance) {}

  std::optional<uint64_t> of(const SCEV* s) const {
    if (isa<SCEVConstant>(s)) return 0;
    if (const auto* u = dyn_cast<SCEVUnknown>(s)) {
      if (u->getValue() == lane_) return 1;
      return invariance_.value(u->getValue()) ? std::optional<uint64_t>(0) : std::nullopt;
    }
    if (const auto* cast = dyn_cast<SCEVIntegralCastExpr>(s)) return through_cast(*cast);
    if (const auto* sum = dyn_cast<SCEVAddExpr>(s)) return of_sum(*sum);
    if (const auto* product = dyn_cast<SCEVMulExpr>(s)) return of_product(*product);
    if (!SCEVExprContains(s, [&](const SCEV* e) { return is_lane(e); }) && invariance_.scev(s))
      return 0;
    return std::nullopt;
  }

 private:
  bool is_lane(const SCEV* e) const {
    const auto* u = dyn_cast<SCEVUnknown>(e);
    return u != nullptr && u->getValue() == lane_;
  }

  // A pointer's width is the address's (64 bits).
  static unsigned bits_of(const Type* t) {
    return t->isPointerTy() ? 64 : t->getScalarSizeInBits();
  }

  // Two lanes' values of a `bits`-wide integer `distance` apart can only meet by wrapping.
  static bool cannot_meet(uint64_t distance, unsigned bits) {
    return bits >= 64 || distance * kLastLane < (uint64_t(1) << bits);
  }

  // An extension or truncation keeps different values different while they cannot meet by
  // wrapping, and keeps them a power-of-two distance apart (the values stay equal modulo it).
  std::optional<uint64_t> through_cast(const SCEVIntegralCastExpr& cast) const {
    if (isa<SCEVPtrToIntExpr>(cast)) return std::nullopt;
    const std::optional<uint64_t> inner = of(cast.getOperand(0));
    if (!inner || *inner == 0) return inner;
    const unsigned bits = std::min(bits_of(cast.getOperand(0)->getType()), bits_of(cast.getType()));
    if (!cannot_meet(*inner, bits)) return std::nullopt;
    return (*inner & (*inner - 1)) == 0 ? *inner : 1;
  }

  // One term varies with the lane; the others are the same for every lane.
  std::optional<uint64_t> of_sum(const SCEVAddExpr& sum) const {
    uint64_t distance = 0;
    for (const SCEV* term : sum.operands()) {
      const std::optional<uint64_t> d = of(term);
      if (!d || (*d != 0 && distance != 0)) return std::nullopt;
      distance = std::max(distance, *d);
    }
    if (!cannot_meet(distance, bits_of(sum.getType()))) return std::nullopt;
    return distance;
  }

  // A constant times one lane-varying factor.
  std::optional<uint64_t> of_product(const SCEVMulExpr& product) const {
    uint64_t distance = 0;
    uint64_t scale = 1;
    for (const SCEV* factor : product.operands()) {
      if (const auto* c = dyn_cast<SCEVConstant>(factor)) {
        if (c->getAPInt().getSignificantBits() > 32) return std::nullopt;
        scale *= uint64_t(std::llabs(c->getAPInt().getSExtValue()));
        continue;
      }
      const std::optional<uint64_t> d = of(factor);
      if (!d || (*d != 0 && distance != 0)) return std::nullopt;
      if (*d == 0)
        return SCEVExprContains(&product, [&](const SCEV* e) { return is_lane(e); })
                   ? std::nullopt  // a lane-varying value times an unknown one
                   : std::optional<uint64_t>(0);
      distance = *d;
    }
    if (scale == 0 || scale > (uint64_t(1) << 32)) return std::nullopt;
    distance *= scale;
    if (!cannot_meet(distance, bits_of(product.getType()))) return std::nullopt;
    return distance;
  }

  const Value* lane_;
  const LaneInvariance& invariance_;
};

struct Access {
  const Instruction* at = nullptr;
  const Value* pointer = nullptr;
  MemorySpaces spaces = 0;
  int64_t threadgroup_allocation = -1;  // memory_space.h
  int64_t buffer_binding = -1;          // memory_space.h
  bool store = false;
  uint64_t size = 0;  // bytes; 0 when unknown (a call, a memcpy)
  // The address, when it is the same function of the lane index for every lane, and how many
  // bytes apart two lanes' addresses are at least (0: not known).
  const SCEV* address = nullptr;
  uint64_t lane_distance = 0;
  // Inside the loop, through its strided index (StridedIndex): `uniform + scale * ext(index) +
  // offset`, scale > 0 (0: not of that form).
  const SCEV* uniform = nullptr;
  int64_t scale = 0;
  int64_t offset = 0;
};

// Two different threadgroup allocations (two threadgroup variables, two arguments).
bool apart_allocations(const Access& a, const Access& b) {
  return a.threadgroup_allocation >= 0 && b.threadgroup_allocation >= 0 &&
         a.threadgroup_allocation != b.threadgroup_allocation;
}

// Device memory of two different buffer bindings: apart unless the host bound one buffer twice,
// which the runtime checks before it runs the step (RegionOrder::assumes_distinct_buffers).
bool apart_bindings(const Access& a, const Access& b) {
  return a.spaces == kDevice && b.spaces == kDevice && a.buffer_binding >= 0 &&
         b.buffer_binding >= 0 && a.buffer_binding != b.buffer_binding;
}

// Whether an access of `size_a` bytes at `k * distance + d` and one of `size_b` bytes at 0 never
// overlap for any nonzero k: -size_a < k * distance + d < size_b for none.
bool apart_by_multiples(uint64_t distance, int64_t d, uint64_t size_a, uint64_t size_b) {
  const auto step = int64_t(distance);
  const int64_t low = -int64_t(size_a) - d;  // k * distance must lie in (low, high) to meet
  const int64_t high = int64_t(size_b) - d;
  for (int64_t k = low / step - 1; k * step < high; ++k)
    if (k != 0 && k * step > low) return false;
  return true;
}

// Each lane's own elements of one array: two lanes' accesses never meet. Both addresses are the
// same function F of the lane plus constants (their difference `d` is one), and two lanes' values
// of F differ by a nonzero multiple of `lane_distance` (LaneDistance): lane A's access at
// F(A) + d and lane B's at F(B) meet when some nonzero k has -size_a < k * distance + d < size_b.
bool apart_per_lane(const Access& a, const Access& b, ScalarEvolution& se) {
  if (a.lane_distance == 0 || b.lane_distance == 0 || a.size == 0 || b.size == 0) return false;
  const auto* difference = dyn_cast<SCEVConstant>(se.getMinusSCEV(a.address, b.address));
  if (difference == nullptr || difference->getAPInt().getSignificantBits() > 32) return false;
  return apart_by_multiples(a.lane_distance, difference->getAPInt().getSExtValue(), a.size, b.size);
}

// Two accesses through the loop's strided index, of one array (the same uniform part and scale):
// where the indices of two lanes' iterations differ (the run-time test of StridedIndex), they are
// a nonzero multiple of the scale apart, plus the difference of their offsets.
bool apart_by_index(const Access& a, const Access& b) {
  return a.scale > 0 && a.scale == b.scale && a.uniform == b.uniform && a.size > 0 && b.size > 0 &&
         apart_by_multiples(uint64_t(a.scale), a.offset - b.offset, a.size, b.size);
}

// `scale` when `term` is `index`, an extension of it, or a constant times either; else 0.
int64_t scale_of_index(const SCEV* term, const SCEV* index) {
  int64_t scale = 1;
  if (const auto* product = dyn_cast<SCEVMulExpr>(term)) {
    if (product->getNumOperands() != 2) return 0;
    const auto* c = dyn_cast<SCEVConstant>(product->getOperand(0));
    if (c == nullptr || c->getAPInt().getSignificantBits() > 32) return 0;
    scale = c->getAPInt().getSExtValue();
    term = product->getOperand(1);
  }
  if (isa<SCEVZeroExtendExpr>(term) || isa<SCEVSignExtendExpr>(term))
    term = cast<SCEVCastExpr>(term)->getOperand(0);
  return term == index ? scale : 0;
}

// `s` as a sum of terms.
SmallVector<const SCEV*, 4> terms_of(const SCEV* s) {
  SmallVector<const SCEV*, 4> terms;
  if (const auto* sum = dyn_cast<SCEVAddExpr>(s))
    terms.append(sum->operands().begin(), sum->operands().end());
  else terms.push_back(s);
  return terms;
}

// The slope `c` of a start `u + c * lane` (u the same for every lane, c a positive constant), or 0.
uint64_t lane_slope_of(const SCEV* start, const Value* lane, const LaneInvariance& invariance) {
  uint64_t slope = 0;
  for (const SCEV* term : terms_of(start)) {
    if (invariance.scev(term)) continue;
    int64_t c = 1;
    if (const auto* product = dyn_cast<SCEVMulExpr>(term)) {
      const auto* k =
          product->getNumOperands() == 2 ? dyn_cast<SCEVConstant>(product->getOperand(0)) : nullptr;
      if (k == nullptr || k->getAPInt().getSignificantBits() > 16) return 0;
      c = k->getAPInt().getSExtValue();
      term = product->getOperand(1);
    }
    if (isa<SCEVZeroExtendExpr>(term)) term = cast<SCEVCastExpr>(term)->getOperand(0);
    const auto* u = dyn_cast<SCEVUnknown>(term);
    if (slope != 0 || c <= 0 || u == nullptr || u->getValue() != lane) return 0;
    slope = uint64_t(c);
  }
  return slope;
}

class RegionAccesses {
 public:
  RegionAccesses(const Loop& loop, const StridedIndex* strided)
      : body_(*loop.getHeader()->getParent()), loop_(loop), strided_(strided) {}

  // False when `i` is order-visible whatever it touches (a fence, a volatile access).
  bool add(const Instruction& i) {
    at_ = &i;
    if (isa<FenceInst>(i) || isa<InvokeInst>(i) || isa<CallBrInst>(i)) return false;
    if (const auto* load = dyn_cast<LoadInst>(&i)) {
      if (load->isVolatile()) return false;
      push(load->getPointerOperand(), false, load->getType());
    } else if (const auto* store = dyn_cast<StoreInst>(&i)) {
      if (store->isVolatile()) return false;
      push(store->getPointerOperand(), true, store->getValueOperand()->getType());
    } else if (const auto* rmw = dyn_cast<AtomicRMWInst>(&i)) {
      push(rmw->getPointerOperand(), true, rmw->getType());
    } else if (const auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&i)) {
      push(cmpxchg->getPointerOperand(), true, cmpxchg->getNewValOperand()->getType());
    } else if (const auto* call = dyn_cast<CallInst>(&i)) {
      return add_call(*call);
    }
    return true;
  }

  // Two lanes' accesses that may touch the same bytes, the first a store; nullopt when none may.
  // `order` says what that answer assumes.
  std::optional<std::pair<const Access*, const Access*>> conflict(ScalarEvolution& se,
                                                                  RegionOrder& order) {
    if (accesses_.size() > kMaxAccesses) return std::make_pair(&accesses_[0], &accesses_[0]);
    StoredMemory stored;
    for (const Access& a : accesses_)
      if (a.store) {
        stored.spaces |= a.spaces;
        if (a.spaces == kDevice) stored.device_bindings.insert(a.buffer_binding);
      }
    const LaneInvariance invariance(body_, stored);
    for (Access& a : accesses_) describe_address(a, se, invariance);
    const uint64_t slope = index_slope(invariance);
    bool distinct_buffers = false;
    bool by_index = false;
    for (const Access& a : accesses_) {
      if (!a.store) continue;
      for (const Access& b : accesses_) {
        if (!may_share(a.spaces, b.spaces) || apart_allocations(a, b) || apart_per_lane(a, b, se))
          continue;
        if (slope != 0 && apart_by_index(a, b)) {
          by_index = true;
          continue;
        }
        if (!apart_bindings(a, b)) return std::make_pair(&a, &b);
        distinct_buffers = true;
      }
    }
    order.assumes_distinct_buffers = distinct_buffers || invariance.relied_on_distinct_buffers();
    order.lane_slope = by_index ? slope : 0;
    return std::nullopt;
  }

  size_t size() const { return accesses_.size(); }

 private:
  bool add_call(const CallInst& call) {
    if (call.isInlineAsm()) return false;
    if (const auto* intrinsic = dyn_cast<IntrinsicInst>(&call);
        intrinsic && intrinsic->isAssumeLikeIntrinsic())
      return true;
    if (const auto* mem = dyn_cast<MemIntrinsic>(&call)) {
      if (mem->isVolatile()) return false;
      push(mem->getDest(), true, nullptr);
      if (const auto* transfer = dyn_cast<MemTransferInst>(mem))
        push(transfer->getSource(), false, nullptr);
      return true;
    }
    if (call.doesNotAccessMemory()) return true;
    // A log line, a texture write, an unknown function: order-visible against any other.
    push(nullptr, !call.onlyReadsMemory(), nullptr);
    return true;
  }

  void push(const Value* pointer, bool store, Type* type) {
    Access a;
    a.at = at_;
    a.pointer = pointer;
    a.spaces = pointer != nullptr ? spaces_of(pointer, body_) : kUnknown;
    if (a.spaces == kThreadgroup) a.threadgroup_allocation = threadgroup_allocation(pointer, body_);
    if (a.spaces == kDevice) a.buffer_binding = buffer_binding(pointer, body_);
    a.store = store;
    const DataLayout& dl = body_.getParent()->getDataLayout();
    if (type != nullptr && type->isSized()) a.size = dl.getTypeStoreSize(type).getKnownMinValue();
    accesses_.push_back(a);
  }

  void describe_address(Access& a, ScalarEvolution& se, const LaneInvariance& invariance) const {
    if (a.pointer == nullptr || !se.isSCEVable(a.pointer->getType())) return;
    const SCEV* address = se.getSCEV(const_cast<Value*>(a.pointer));  // getSCEV takes no const
    const std::optional<uint64_t> distance = LaneDistance(body_.getArg(2), invariance).of(address);
    if (distance && *distance != 0) {
      a.address = address;
      a.lane_distance = *distance;
      return;
    }
    if (strided_ != nullptr && loop_.contains(a.at)) describe_strided(a, address, se, invariance);
  }

  // `uniform + scale * ext(index) + offset`, every term of `uniform` the same for every lane.
  void describe_strided(Access& a, const SCEV* address, ScalarEvolution& se,
                        const LaneInvariance& invariance) const {
    int64_t scale = 0;
    int64_t offset = 0;
    SmallVector<const SCEV*, 4> uniform;
    for (const SCEV* term : terms_of(address)) {
      if (const auto* c = dyn_cast<SCEVConstant>(term)) {
        if (c->getAPInt().getSignificantBits() > 32) return;
        offset += c->getAPInt().getSExtValue();
      } else if (const int64_t k = scale_of_index(term, strided_->index); k != 0) {
        if (scale != 0) return;
        scale = k;
      } else if (invariance.scev(term)) {
        uniform.push_back(term);
      } else {
        return;
      }
    }
    if (scale <= 0 || uniform.empty()) return;
    a.uniform = uniform.size() == 1 ? uniform[0] : se.getAddExpr(uniform);
    a.scale = scale;
    a.offset = offset;
  }

  // The strided index's lane slope (region_order.h), when its step and the latch's bound are the
  // same for every lane; 0 otherwise.
  uint64_t index_slope(const LaneInvariance& invariance) const {
    if (strided_ == nullptr || !invariance.scev(strided_->bound)) return 0;
    if (!invariance.scev(strided_->index->getOperand(1)) || !strided_->index->isAffine()) return 0;
    return lane_slope_of(strided_->index->getStart(), body_.getArg(2), invariance);
  }

  const Function& body_;
  const Loop& loop_;
  const StridedIndex* strided_;
  const Instruction* at_ = nullptr;
  std::vector<Access> accesses_;
};

std::string site_of(const Instruction& i) { return describe_site(i, nullptr, "?"); }

}  // namespace

std::optional<std::string> region_order_visible(const Loop& loop, ScalarEvolution& se,
                                                const StridedIndex* strided, RegionOrder& order) {
  RegionAccesses accesses(loop, strided);
  for (const Instruction* i : region_instructions(loop))
    if (!accesses.add(*i))
      return "order-visible " + std::string(i->getOpcodeName()) + " at " + site_of(*i) +
             " in its region";
  if (accesses.size() > kMaxAccesses)
    return std::to_string(accesses.size()) + " accesses in its region, over " +
           std::to_string(kMaxAccesses);
  const auto pair = accesses.conflict(se, order);
  if (!pair) return std::nullopt;
  const Access& store = *pair->first;
  const Access& other = *pair->second;
  return std::string(other.store ? "a write" : "a read") + " at " + site_of(*other.at) +
         " may meet another lane's write at " + site_of(*store.at) + " in its region";
}

}  // namespace metalsim::lanes
