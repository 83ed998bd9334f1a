#include "simt/lanes/element_major.h"

#include <utility>
#include <vector>

#include <llvm/ADT/MapVector.h>
#include <llvm/Analysis/Utils/Local.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MathExtras.h>

namespace metalsim::lanes {

using namespace llvm;

// On by default; off, every slot is lane-major (to compare).
cl::opt<bool> element_major_slots(
    "metalsim-lanes-element-major", cl::init(true),
    cl::desc("Lay out lanes' local arrays element by element across the lanes (docs/lanes.md)"));

namespace {

// The most elements a memset or memcpy of an element-major slot is expanded into.
constexpr uint64_t kMaxExpandedElements = 64;

// What addresses an alloca: its GEPs (each based on the alloca or on another of them), and what
// reads or writes through them.
struct Accesses {
  std::vector<GetElementPtrInst*> geps;
  std::vector<Instruction*> loads_and_stores;
  std::vector<MemSetInst*> memsets;
  // Copies between the array and memory outside the lane's local arrays (its side: 0 the
  // destination, 1 the source).
  std::vector<std::pair<MemTransferInst*, unsigned>> copies;
};

// Collects the accesses through `pointer`; false when something else uses an address (a call, a
// store of the pointer itself, a phi or select, a comparison, a cast).
bool collect(Value& pointer, Accesses& out) {
  for (Use& u : pointer.uses()) {
    auto* user = cast<Instruction>(u.getUser());
    if (auto* gep = dyn_cast<GetElementPtrInst>(user);
        gep && gep->getPointerOperand() == &pointer) {
      out.geps.push_back(gep);
      if (!collect(*gep, out)) return false;
    } else if (isa<LoadInst>(user)) {
      out.loads_and_stores.push_back(user);
    } else if (auto* store = dyn_cast<StoreInst>(user);
               store && u.getOperandNo() == StoreInst::getPointerOperandIndex()) {
      out.loads_and_stores.push_back(user);
    } else if (auto* set = dyn_cast<MemSetInst>(user); set && u.getOperandNo() == 0) {
      out.memsets.push_back(set);
    } else if (auto* copy = dyn_cast<MemTransferInst>(user); copy && u.getOperandNo() < 2) {
      // Both sides in local arrays would need both layouts at once: not handled. (No lookup
      // limit: a deep chain of GEPs into another slot must not pass for outside memory.)
      if (isa<AllocaInst>(getUnderlyingObject(copy->getOperand(1 - u.getOperandNo()), 0)))
        return false;
      out.copies.push_back({copy, u.getOperandNo()});
    } else {
      return false;
    }
  }
  return true;
}

Type* accessed_type(const Instruction& i) {
  if (const auto* load = dyn_cast<LoadInst>(&i)) return load->getType();
  return cast<StoreInst>(i).getValueOperand()->getType();
}

// Whether every byte offset `gep` adds is a multiple of `element_bytes`.
bool offsets_whole_elements(const GetElementPtrInst& gep, const DataLayout& dl,
                            uint64_t element_bytes) {
  const unsigned width = dl.getIndexTypeSizeInBits(gep.getType());
  MapVector<Value*, APInt> variable;
  APInt constant(width, 0);
  if (!cast<GEPOperator>(gep).collectOffset(dl, width, variable, constant)) return false;
  if (constant.urem(element_bytes) != 0) return false;
  for (const auto& [index, scale] : variable)
    if (scale.urem(element_bytes) != 0) return false;
  return true;
}

// A constant length of whole elements, at most kMaxExpandedElements of them.
bool whole_elements(const Value* length, uint64_t element_bytes) {
  const auto* bytes = dyn_cast<ConstantInt>(length);
  return bytes != nullptr && bytes->getZExtValue() % element_bytes == 0 &&
         bytes->getZExtValue() / element_bytes <= kMaxExpandedElements;
}

// A memset of whole elements with a constant byte.
bool memset_whole_elements(const MemSetInst& set, uint64_t element_bytes) {
  return isa<ConstantInt>(set.getValue()) && !set.isVolatile() &&
         whole_elements(set.getLength(), element_bytes);
}

// A copy of whole elements.
bool copy_whole_elements(const MemTransferInst& copy, uint64_t element_bytes) {
  return !copy.isVolatile() && whole_elements(copy.getLength(), element_bytes);
}

// The element's value that a memset's byte repeats into: an integer of the element's width.
Constant* repeated_byte(LLVMContext& ctx, const MemSetInst& set, uint64_t element_bytes) {
  const uint64_t byte = cast<ConstantInt>(set.getValue())->getZExtValue() & 0xff;
  APInt value(unsigned(element_bytes * 8), 0);
  for (uint64_t k = 0; k < element_bytes; ++k) value |= APInt(value.getBitWidth(), byte) << (8 * k);
  return ConstantInt::get(ctx, value);
}

// The byte offset of element k of an expanded memset or memcpy that starts at `start` (nullptr:
// the array's start).
Value* expanded_offset(IRBuilder<>& b, Value* start, uint64_t k, uint64_t element_bytes) {
  Value* off = b.getInt64(k * element_bytes);
  return start == nullptr ? off : b.CreateAdd(start, off);
}

// `base` + off * frame_lanes (the base itself when the offset is none).
Value* spread_address(IRBuilder<>& b, Value* base, Value* off, Value* frame_lanes) {
  if (off == nullptr) return base;
  // No wrap flags: a lane's accesses are in its array (0 <= off < its size) in a correct kernel,
  // but an out-of-bounds index must stay the fast variant's undefined access, not poison here.
  return b.CreateInBoundsGEP(b.getInt8Ty(), base, b.CreateMul(off, frame_lanes, "elem.off"),
                             "elem");
}

}  // namespace

uint64_t element_major_size(const AllocaInst& a, const DataLayout& dl,
                            function_ref<bool(const Instruction&)> per_lane) {
  if (!element_major_slots) return 0;
  Accesses accesses;
  if (!collect(const_cast<AllocaInst&>(a), accesses) || accesses.loads_and_stores.empty()) return 0;
  uint64_t element_bytes = 0;
  for (const Instruction* i : accesses.loads_and_stores) {
    Type* type = accessed_type(*i);
    const uint64_t size = dl.getTypeStoreSize(type).getFixedValue();
    if (size != dl.getTypeAllocSize(type).getFixedValue() || !isPowerOf2_64(size) ||
        (element_bytes != 0 && size != element_bytes))
      return 0;
    element_bytes = size;
  }
  const uint64_t bytes = a.getAllocationSize(dl)->getFixedValue();
  if (bytes <= element_bytes || bytes % element_bytes != 0) return 0;
  for (const GetElementPtrInst* gep : accesses.geps)
    if (!offsets_whole_elements(*gep, dl, element_bytes)) return 0;
  for (const MemSetInst* set : accesses.memsets)
    if (!memset_whole_elements(*set, element_bytes)) return 0;
  for (const auto& [copy, side] : accesses.copies)
    if (!copy_whole_elements(*copy, element_bytes)) return 0;
  // Last, as the dearest: where every access runs.
  for (const Instruction* i : accesses.loads_and_stores)
    if (per_lane(*i)) return 0;
  for (const MemSetInst* set : accesses.memsets)
    if (per_lane(*set)) return 0;
  for (const auto& [copy, side] : accesses.copies)
    if (per_lane(*copy)) return 0;
  return element_bytes;
}

void spread_elements(AllocaInst& a, uint64_t element_bytes, Value* frame_lanes) {
  const DataLayout& dl = a.getDataLayout();
  LLVMContext& ctx = a.getContext();
  Accesses accesses;
  collect(a, accesses);
  // Each GEP's byte offset from the alloca, computed where the GEP was (its operands are there).
  DenseMap<Value*, Value*> offset_of{{&a, nullptr}};
  for (GetElementPtrInst* gep : accesses.geps) {  // in the order found: bases first
    IRBuilder<> b(gep);
    Value* own = emitGEPOffset(&b, dl, gep);
    Value* base = offset_of.lookup(gep->getPointerOperand());
    // `own` may be negative (&row[3] then [-1]): no wrap flags.
    offset_of[gep] = base == nullptr ? own : b.CreateAdd(base, own, "elem.at");
  }
  const Align element_align(element_bytes);
  for (Instruction* i : accesses.loads_and_stores) {
    IRBuilder<> b(i);
    const unsigned p =
        isa<LoadInst>(i) ? LoadInst::getPointerOperandIndex() : StoreInst::getPointerOperandIndex();
    Value* pointer = i->getOperand(p);
    i->setOperand(p, spread_address(b, &a, offset_of.lookup(pointer), frame_lanes));
    // Element-major, an element is aligned to its size at most (the slot to its own alignment).
    if (auto* load = dyn_cast<LoadInst>(i))
      load->setAlignment(std::min(load->getAlign(), element_align));
    else cast<StoreInst>(i)->setAlignment(std::min(cast<StoreInst>(i)->getAlign(), element_align));
  }
  for (MemSetInst* set : accesses.memsets) {
    IRBuilder<> b(set);
    Value* start = offset_of.lookup(set->getDest());
    Constant* value = repeated_byte(ctx, *set, element_bytes);
    const uint64_t count = cast<ConstantInt>(set->getLength())->getZExtValue() / element_bytes;
    for (uint64_t k = 0; k < count; ++k)
      b.CreateAlignedStore(
          value, spread_address(b, &a, expanded_offset(b, start, k, element_bytes), frame_lanes),
          std::min(a.getAlign(), element_align));
    set->eraseFromParent();
  }
  // A copy to or from memory outside the local arrays: one element at a time, as integers (the
  // bits, whatever they hold).
  Type* element = IntegerType::get(ctx, unsigned(element_bytes * 8));
  for (auto [copy, side] : accesses.copies) {
    IRBuilder<> b(copy);
    Value* start = offset_of.lookup(copy->getOperand(side));
    Value* other = copy->getOperand(1 - side);
    const Align other_align = std::min(
        side == 0 ? copy->getSourceAlign().valueOrOne() : copy->getDestAlign().valueOrOne(),
        element_align);
    const Align local_align = std::min(a.getAlign(), element_align);
    const uint64_t count = cast<ConstantInt>(copy->getLength())->getZExtValue() / element_bytes;
    for (uint64_t k = 0; k < count; ++k) {
      Value* other_at = b.CreateInBoundsGEP(b.getInt8Ty(), other, b.getInt64(k * element_bytes));
      Value* local_at =
          spread_address(b, &a, expanded_offset(b, start, k, element_bytes), frame_lanes);
      if (side == 0)
        b.CreateAlignedStore(b.CreateAlignedLoad(element, other_at, other_align), local_at,
                             local_align);
      else
        b.CreateAlignedStore(b.CreateAlignedLoad(element, local_at, local_align), other_at,
                             other_align);
    }
    copy->eraseFromParent();
  }
  // The GEPs are now unused: the last found first (a GEP's users come after it in the list).
  for (auto it = accesses.geps.rbegin(); it != accesses.geps.rend(); ++it)
    if ((*it)->use_empty()) (*it)->eraseFromParent();
}

}  // namespace metalsim::lanes
