#include "simt/lanes/memory_space.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "simt/lanes/find_bodies.h"
#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// The offset of `pointer` from `base` when it is `base` plus a constant, or -1.
int64_t offset_from(const Value* pointer, const Value* base, const DataLayout& dl) {
  APInt offset(dl.getIndexTypeSizeInBits(pointer->getType()), 0);
  const Value* stripped = pointer->stripAndAccumulateConstantOffsets(dl, offset, true);
  if (stripped != base || offset.isNegative()) return -1;
  return offset.getSExtValue();
}

// Whether `pointer` is `base` plus a constant offset in [begin, end).
bool field_of(const Value* pointer, const Value* base, uint64_t begin, uint64_t end,
              const DataLayout& dl) {
  const int64_t offset = offset_from(pointer, base, dl);
  return offset >= 0 && uint64_t(offset) >= begin && uint64_t(offset) < end;
}

// The binding N of a pointer loaded from the bound arguments' `buffers[N]`, or -1.
int64_t buffer_key(const LoadInst& load, const Function& body) {
  const DataLayout& dl = body.getParent()->getDataLayout();
  const int64_t field = offset_from(load.getPointerOperand(), body.getArg(0), dl);
  if (field < int64_t(abi::kArgsBuffers) || field >= int64_t(abi::kArgsBuffersEnd)) return -1;
  return (field - int64_t(abi::kArgsBuffers)) / int64_t(sizeof(void*));
}

// A threadgroup allocation's key: the argument's field offset in the bound arguments, or past
// them the variable's entry in the state's table (kVariableKeys + its offset there).
constexpr int64_t kVariableKeys = int64_t(1) << 32;

int64_t threadgroup_key(const LoadInst& load, const Function& body) {
  const DataLayout& dl = body.getParent()->getDataLayout();
  const Value* from = load.getPointerOperand();
  const int64_t field = offset_from(from, body.getArg(0), dl);
  if (field >= int64_t(abi::kArgsThreadgroup) && field < int64_t(abi::kArgsThreadgroupEnd))
    return field;
  APInt offset(dl.getIndexTypeSizeInBits(from->getType()), 0);
  const auto* table = dyn_cast<LoadInst>(from->stripAndAccumulateConstantOffsets(dl, offset, true));
  if (table == nullptr || offset.isNegative() ||
      offset_from(table->getPointerOperand(), body.getArg(1), dl) !=
          int64_t(abi::kThreadgroupVariables))
    return -1;
  return kVariableKeys + offset.getSExtValue();
}

// What a pointer loaded from `from` points into when `from` is reached from the state through
// loads of pointers: the runtime's memory (the threadgroup's geometry, the builtins' tables by
// lane, the function constants), which kernel code only reads, except through the table of
// threadgroup variables: its entries point to threadgroup memory, and what is loaded from there is
// the kernel's own data.
MemorySpaces space_reached_from_state(const Value* from, const Function& body) {
  const DataLayout& dl = body.getParent()->getDataLayout();
  constexpr unsigned kMaxLinks = 4;
  unsigned links = 0;  // loads between `from` and the state
  for (const Value* at = from; links < kMaxLinks; ++links) {
    APInt offset(dl.getIndexTypeSizeInBits(at->getType()), 0);
    const Value* base = at->stripAndAccumulateConstantOffsets(dl, offset, true);
    if (base == body.getArg(1)) {
      if (offset != abi::kThreadgroupVariables) return kReadOnly;
      // from = &tgvars itself: a threadgroup variable's address (threadgroup_key); deeper: a
      // value read from threadgroup memory.
      return links == 1 ? kThreadgroup : links == 0 ? kReadOnly : kUnknown;
    }
    const auto* load = dyn_cast<LoadInst>(base);
    if (load == nullptr) return kUnknown;
    at = load->getPointerOperand();
  }
  return kUnknown;
}

// A pointer loaded from the bound arguments' buffers or threadgroup fields, or from the state's
// table of threadgroup variables (lower_queries.cpp's lowering of threadgroup_variable).
MemorySpaces space_of_loaded_pointer(const LoadInst& load, const Function& body) {
  const DataLayout& dl = body.getParent()->getDataLayout();
  const Value* from = load.getPointerOperand();
  const Value* args = body.getArg(0);
  if (field_of(from, args, abi::kArgsBuffers, abi::kArgsBuffersEnd, dl))
    return is_constant_buffer(body, buffer_key(load, body)) ? kReadOnly : kDevice;
  if (field_of(from, args, abi::kArgsThreadgroup, abi::kArgsThreadgroupEnd, dl))
    return kThreadgroup;
  return space_reached_from_state(from, body);
}

MemorySpaces space_of_object(const Value* object, const Function& body) {
  if (isa<AllocaInst>(object)) return kLanePrivate;
  // The bound arguments and the state: a step only reads them.
  if (object == body.getArg(0) || object == body.getArg(1)) return kReadOnly;
  if (const auto* global = dyn_cast<GlobalVariable>(object))
    return global->isConstant() ? kReadOnly : kUnknown;
  if (const auto* load = dyn_cast<LoadInst>(object)) return space_of_loaded_pointer(*load, body);
  return kUnknown;
}

}  // namespace

bool is_constant_buffer(const Function& body, int64_t binding) {
  if (binding < 0 || binding >= 64 || !body.hasFnAttribute(kConstantBuffersAttribute)) return false;
  uint64_t mask = 0;
  if (body.getFnAttribute(kConstantBuffersAttribute).getValueAsString().getAsInteger(10, mask))
    return false;
  return (mask >> binding & 1) != 0;
}

MemorySpaces spaces_of(const Value* pointer, const Function& body) {
  SmallVector<const Value*, 4> objects;
  getUnderlyingObjects(pointer, objects, nullptr, /*MaxLookup=*/0);
  MemorySpaces spaces = 0;
  for (const Value* object : objects) spaces |= space_of_object(object, body);
  return spaces;
}

namespace {

// The one key `key_of` gives every underlying object of `pointer` (each a load of a pointer), or
// -1 when an object has none or two objects differ.
template <class KeyOf>
int64_t one_key(const Value* pointer, KeyOf key_of) {
  SmallVector<const Value*, 4> objects;
  getUnderlyingObjects(pointer, objects, nullptr, /*MaxLookup=*/0);
  int64_t key = -1;
  for (const Value* object : objects) {
    const auto* load = dyn_cast<LoadInst>(object);
    const int64_t k = load != nullptr ? key_of(*load) : -1;
    if (k < 0 || (key >= 0 && k != key)) return -1;
    key = k;
  }
  return key;
}

}  // namespace

int64_t buffer_binding(const Value* pointer, const Function& body) {
  return one_key(pointer, [&](const LoadInst& load) { return buffer_key(load, body); });
}

int64_t threadgroup_allocation(const Value* pointer, const Function& body) {
  return one_key(pointer, [&](const LoadInst& load) { return threadgroup_key(load, body); });
}

bool may_share(MemorySpaces a, MemorySpaces b) {
  constexpr MemorySpaces shared = kThreadgroup | kDevice | kUnknown;
  a &= shared;
  b &= shared;
  if (a == 0 || b == 0) return false;
  return ((a | b) & kUnknown) != 0 || (a & b) != 0;
}

}  // namespace metalsim::lanes
