#include "simt/instrument/access_pass.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "simt/instrument/access_abi.h"
#include "simt/instrument/fast_variant.h"
#include "simt/instrument/loop_ranges.h"
#include "simt/instrument/loop_versions.h"
#include "simt/instrument/shadow_span.h"

namespace metalsim::instrument {

using namespace llvm;

namespace {

// One access to check: `bytes` bytes at `pointer` (a fixed size), or `length` bytes (a memory
// intrinsic), or the elements of a masked vector operation.
struct Access {
  Instruction* at = nullptr;  // checked just before it
  Value* pointer = nullptr;
  uint64_t bytes = 0;
  Value* length = nullptr;     // memcpy/memmove/memset
  Value* mask = nullptr;       // llvm.masked.load/store: <N x i1>
  uint32_t element_bytes = 0;  // ... and their elements' size
  uint32_t flags = 0;          // abi::kWrite, abi::kAtomic
};

// A lane-loop step's parameters are (args, state, cont, first, count, lanes)
// (simt/lanes/loop_emitter.cpp); `state` is the runner's engine::LaneLoopState.
constexpr unsigned kStepState = 1;

// Whether `base` is the lane-loop runner's own memory, reached from the step's `state`
// (`state_arg`; nullptr outside a step): the state's fields, and what a field points to directly:
// the per-lane frame (the values a fiber keeps on its stack across sync points, and the kernel's
// private arrays, which the private-bounds pass has checked at their indexing), the tables the
// step records each lane's stop in, the thread-position tables. What is reached through a pointer
// loaded from those (a kernel pointer kept in the frame, a threadgroup variable's or a function
// constant's address from their tables) is the kernel's memory and is checked.
bool runner_memory(const Value* base, const Value* state_arg) {
  if (state_arg == nullptr) return false;
  if (base == state_arg) return true;
  const auto* field = dyn_cast<LoadInst>(base);
  return field != nullptr && getUnderlyingObject(field->getPointerOperand(), 12) == state_arg;
}

// The engine's own structures a generated function receives: the BoundArgs (parameter 0 of a
// fibers' entry and of a lane-loop step: its fields are the bound pointers, not what they point
// to), the fibers' LaneCursor (parameter 1 of an entry: the walk over the lanes that run as plain
// calls, which the entry reads and writes once per lane), a step's LaneLoopState.
struct EngineArgs {
  const Value* args = nullptr;
  const Value* cursor = nullptr;
  const Value* state = nullptr;
};

// A fibers' entry, as the front emits it: `ms_kernel_<name>::entry(const BoundArgs&,
// LaneCursor&)` (its fast variant is a copy, not instrumented).
bool is_fibers_entry(const Function& f) {
  return f.arg_size() == 2 &&
         f.getName().contains("5entryERKN8metalsim3abi9BoundArgsERNS1_10LaneCursorE");
}

EngineArgs engine_args(const Function& f, bool step) {
  EngineArgs e;
  if (step && f.arg_size() > kStepState) {
    e.args = f.getArg(0);
    e.state = f.getArg(kStepState);
  } else if (is_fibers_entry(f)) {
    e.args = f.getArg(0);
    e.cursor = f.getArg(1);
  }
  return e;
}

// Memory a kernel may not run out of through this pointer, or that is not a buffer's nor
// threadgroup memory: the function's own stack, globals (constant tables of the MSL headers, TLS),
// addresses made from integers (a sanitizer's own shadow), and the engine's structures the
// function was given (EngineArgs; in a lane-loop step the runner's memory, runner_memory, which
// is what the fibers' stack is to a fiber). Without the cursor's exemption every lane of a fibers'
// entry tested its own bookkeeping (the cursor's position, its order table, the geometry that
// built-ins are read from) and each threadgroup's entry made five range calls for them.
// Whether `base` is `root`, or is loaded from memory reached from `root` through at most `depth`
// loaded pointers.
bool reached_from(const Value* base, const Value* root, int depth) {
  if (root == nullptr) return false;
  if (base == root) return true;
  const auto* load = dyn_cast<LoadInst>(base);
  return depth > 0 && load != nullptr &&
         reached_from(getUnderlyingObject(load->getPointerOperand(), 12), root, depth - 1);
}

bool exempt(const Value* pointer, const EngineArgs& engine) {
  const Value* base = getUnderlyingObject(pointer, 12);
  if (isa<AllocaInst>(base) || isa<GlobalVariable>(base)) return true;
  // The cursor's own fields, its order table and the threadgroup's geometry it points to, and
  // that geometry's tables (the lane's position, the dispatch's sizes): two pointers deep. No
  // pointer of the kernel's is reached that way.
  if (base == engine.args || reached_from(base, engine.cursor, 2)) return true;
  if (runner_memory(base, engine.state)) return true;
  if (isa<IntToPtrInst>(base)) return true;
  if (auto* ce = dyn_cast<ConstantExpr>(base);
      ce != nullptr && ce->getOpcode() == Instruction::IntToPtr)
    return true;
  return false;
}

uint64_t store_size(const DataLayout& dl, Type* type) {
  return dl.getTypeStoreSize(type).getKnownMinValue();
}

std::optional<Access> plain_access(Instruction& inst, const DataLayout& dl) {
  Access a;
  a.at = &inst;
  if (auto* load = dyn_cast<LoadInst>(&inst)) {
    a.pointer = load->getPointerOperand();
    a.bytes = store_size(dl, load->getType());
    a.flags = load->isAtomic() ? abi::kAtomic : 0;
  } else if (auto* store = dyn_cast<StoreInst>(&inst)) {
    a.pointer = store->getPointerOperand();
    a.bytes = store_size(dl, store->getValueOperand()->getType());
    a.flags = abi::kWrite | (store->isAtomic() ? abi::kAtomic : 0);
  } else if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) {
    a.pointer = rmw->getPointerOperand();
    a.bytes = store_size(dl, rmw->getValOperand()->getType());
    a.flags = abi::kWrite | abi::kAtomic;
  } else if (auto* cas = dyn_cast<AtomicCmpXchgInst>(&inst)) {
    a.pointer = cas->getPointerOperand();
    a.bytes = store_size(dl, cas->getCompareOperand()->getType());
    a.flags = abi::kWrite | abi::kAtomic;
  } else {
    return std::nullopt;
  }
  return a;
}

// memcpy/memmove (two accesses), memset, masked loads and stores.
void intrinsic_accesses(Instruction& inst, const DataLayout& dl, std::vector<Access>& out) {
  auto* call = dyn_cast<IntrinsicInst>(&inst);
  if (call == nullptr) return;
  if (auto* transfer = dyn_cast<MemTransferInst>(call)) {
    out.push_back(
        {&inst, transfer->getRawDest(), 0, transfer->getLength(), nullptr, 0, abi::kWrite});
    out.push_back({&inst, transfer->getRawSource(), 0, transfer->getLength(), nullptr, 0, 0});
    return;
  }
  if (auto* set = dyn_cast<MemSetInst>(call)) {
    out.push_back({&inst, set->getRawDest(), 0, set->getLength(), nullptr, 0, abi::kWrite});
    return;
  }
  const Intrinsic::ID id = call->getIntrinsicID();
  if (id == Intrinsic::masked_load || id == Intrinsic::masked_store) {
    const bool store = id == Intrinsic::masked_store;
    auto* vector = cast<VectorType>(store ? call->getArgOperand(0)->getType() : call->getType());
    Access a;
    a.at = &inst;
    a.pointer = call->getArgOperand(store ? 1 : 0);
    a.mask = call->getArgOperand(store ? 3 : 2);
    a.element_bytes = uint32_t(store_size(dl, vector->getElementType()));
    a.flags = store ? abi::kWrite : 0;
    out.push_back(a);
  }
}

// Gathers and scatters check each element as a masked access of one.
void scatter_accesses(Instruction& inst, const DataLayout& dl, std::vector<Access>& out,
                      unsigned& unchecked) {
  auto* call = dyn_cast<IntrinsicInst>(&inst);
  if (call == nullptr) return;
  const Intrinsic::ID id = call->getIntrinsicID();
  if (id != Intrinsic::masked_gather && id != Intrinsic::masked_scatter) return;
  const bool scatter = id == Intrinsic::masked_scatter;
  Value* pointers = call->getArgOperand(scatter ? 1 : 0);
  Value* mask = call->getArgOperand(scatter ? 3 : 2);
  auto* type = dyn_cast<FixedVectorType>(pointers->getType());
  if (type == nullptr || type->getNumElements() > 64) {
    ++unchecked;
    return;
  }
  auto* values = cast<VectorType>(scatter ? call->getArgOperand(0)->getType() : call->getType());
  IRBuilder<> b(&inst);
  for (unsigned i = 0; i < type->getNumElements(); ++i) {
    Access a;
    a.at = &inst;
    a.pointer = b.CreateExtractElement(pointers, b.getInt64(i));
    a.mask = b.CreateExtractElement(mask, b.getInt64(i));
    a.element_bytes = uint32_t(store_size(dl, values->getElementType()));
    a.flags = scatter ? abi::kWrite : 0;
    out.push_back(a);
  }
}

std::vector<Access> accesses_of(Function& f, const EngineArgs& engine, unsigned& unchecked) {
  const DataLayout& dl = f.getParent()->getDataLayout();
  std::vector<Access> all;
  for (Instruction& inst : instructions(f)) {
    if (inst.hasMetadata(LLVMContext::MD_nosanitize)) continue;
    if (std::optional<Access> a = plain_access(inst, dl)) all.push_back(*a);
    else {
      intrinsic_accesses(inst, dl, all);
      scatter_accesses(inst, dl, all, unchecked);
    }
  }
  std::vector<Access> kept;
  for (const Access& a : all)
    if (!exempt(a.pointer, engine)) kept.push_back(a);
  return kept;
}

// What every check of one function reads of the engine, loaded once after its allocas.
ShadowGlobals load_entry(Function& f, bool race) {
  BasicBlock& entry = f.getEntryBlock();
  BasicBlock::iterator at = entry.getFirstInsertionPt();
  while (at != entry.end() && isa<AllocaInst>(*at)) ++at;
  IRBuilder<> b(&entry, at);
  return load_shadow_globals(b, *f.getParent(), race);
}

// The shadow bytes of the granule holding `address` and of the next (a 2-byte load: any access
// of at most a granule ends in one of the two), or of the granule alone.
Value* shadow_of(IRBuilder<>& b, const ShadowGlobals& e, Value* address, bool two) {
  Value* index = b.CreateAnd(b.CreateLShr(address, abi::kGranuleShift), e.mask);
  Value* p = b.CreateGEP(b.getInt8Ty(), e.shadow, index);
  LoadInst* s = b.CreateAlignedLoad(two ? b.getInt16Ty() : b.getInt8Ty(), p, Align(1));
  s->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(b.getContext(), {}));
  return b.CreateZExt(s, b.getInt32Ty());
}

// The shadow test of a fixed-size access: `miss` is true when a shadow byte it reads is not 0
// or a racecheck dispatch runs; `two` is the 2-byte shadow of its first granule and the next,
// `address` the access's address as an integer.
struct ShadowTest {
  Value* miss;
  Value* two;
  Value* address;
};

ShadowTest shadow_test(IRBuilder<>& b, const ShadowGlobals& e, Value* pointer, uint64_t bytes) {
  Value* address = b.CreatePtrToInt(pointer, b.getInt64Ty());
  Value* two = shadow_of(b, e, address, true);
  Value* s = two;
  if (bytes > abi::kGranule)
    s = b.CreateOr(s, shadow_of(b, e, b.CreateAdd(address, b.getInt64(bytes - 1)), false));
  return {b.CreateOr(b.CreateICmpNE(s, b.getInt32(0)), e.every), two, address};
}

// Whether an access of `bytes` (at most a granule) that the 2-byte shadow `two` of its first
// granule and the next describes is allowed by the shadow alone, decided inline as the engine
// would (access_shadow.h's encoding): a partial granule (1..15: the first N bytes) or a binding
// that starts inside one (kValidFrom | N: the bytes from N on). Without it every read of a
// setBytes argument whose size is not a multiple of 16 (a 24-byte parameter struct, one uint)
// called the engine: the 2-byte load includes the partial granule after its first.
Value* partial_granules_allow(IRBuilder<>& b, Value* two, Value* address, uint64_t bytes) {
  Value* first = b.CreateAnd(two, b.getInt32(0xFF));
  Value* next = b.CreateLShr(two, b.getInt32(8));
  Value* offset =
      b.CreateTrunc(b.CreateAnd(address, b.getInt64(abi::kGranule - 1)), b.getInt32Ty());
  Value* end = b.CreateAdd(offset, b.getInt32(uint32_t(bytes)));  // 1..31: past the access
  Value* granule = b.getInt32(uint32_t(abi::kGranule));
  auto is = [&](Value* v, uint32_t c) { return b.CreateICmpEQ(v, b.getInt32(c)); };
  auto below = [&](Value* v, Value* limit) { return b.CreateICmpULT(v, limit); };
  auto at_most = [&](Value* v, Value* limit) { return b.CreateICmpULE(v, limit); };
  // The first granule: every byte, its first N (the access must end by N), or from N on.
  Value* valid_from =
      b.CreateAnd(is(b.CreateAnd(first, b.getInt32(0xF0)), abi::kValidFrom),
                  b.CreateICmpUGE(offset, b.CreateAnd(first, b.getInt32(abi::kGranule - 1))));
  Value* first_ok =
      b.CreateOr(b.CreateOr(is(first, 0), b.CreateAnd(below(first, granule), at_most(end, first))),
                 valid_from);
  // The next granule, when the access reaches it: every byte, or its first N.
  Value* past = b.CreateSub(end, granule);
  Value* next_ok = b.CreateOr(b.CreateOr(at_most(end, granule), is(next, 0)),
                              b.CreateAnd(below(next, granule), at_most(past, next)));
  return b.CreateAnd(first_ok, next_ok);
}

DebugLoc location_of(const Instruction& inst, const Function& f) {
  if (inst.getDebugLoc()) return inst.getDebugLoc();
  if (DISubprogram* sp = f.getSubprogram()) return DILocation::get(f.getContext(), 0, 0, sp);
  return DebugLoc();
}

struct Callees {
  FunctionCallee access, masked;
};

Callees callees(Module& m) {
  LLVMContext& ctx = m.getContext();
  auto* ptr = PointerType::get(ctx, 0);
  auto* i32 = Type::getInt32Ty(ctx);
  auto* i64 = Type::getInt64Ty(ctx);
  auto* v = Type::getVoidTy(ctx);
  return {
      m.getOrInsertFunction(abi::kAccess, FunctionType::get(v, {ptr, i64, i32}, false)),
      m.getOrInsertFunction(abi::kAccessMasked, FunctionType::get(v, {ptr, i32, i64, i32}, false))};
}

// The bytes a masked access touches with every lane enabled; none for a scalable vector.
std::optional<uint64_t> masked_span(const Access& a) {
  if (a.mask->getType()->isIntegerTy(1)) return a.element_bytes;  // one element of a gather
  if (auto* vector = dyn_cast<FixedVectorType>(a.mask->getType()))
    return uint64_t(a.element_bytes) * vector->getNumElements();
  return std::nullopt;
}

// `plain`: the access's hoisted range test passed (loop_ranges.h), or nullptr; the test below
// then runs only when it did not.
void instrument_access(const Access& a, Value* plain, const ShadowGlobals& e, const Callees& c,
                       Function& f) {
  MDNode* unlikely = MDBuilder(f.getContext()).createUnlikelyBranchWeights();
  Instruction* at = a.at;
  if (plain != nullptr) {
    IRBuilder<> b(a.at);
    at = SplitBlockAndInsertIfThen(b.CreateNot(plain), a.at->getIterator(), false, unlikely);
  }
  IRBuilder<> b(at);
  const DebugLoc where = location_of(*a.at, f);
  CallInst* call = nullptr;
  if (a.mask != nullptr) {
    // The engine is called only when the shadow of the whole span the vector could touch, every
    // lane enabled, is not plain (a tail past a buffer's end, a guard) or a racecheck dispatch
    // runs: the masked slow path then checks the enabled lanes alone. Before, every masked load
    // and store of a vectorized lane loop called the engine, 1.6-4x of a kernel's time.
    if (std::optional<uint64_t> span = masked_span(a)) {
      Value* cond = shadow_test(b, e, a.pointer, *span).miss;
      b.SetInsertPoint(SplitBlockAndInsertIfThen(cond, at->getIterator(), false, unlikely));
    }
    Value* bits = a.mask;
    if (auto* vector = dyn_cast<FixedVectorType>(bits->getType()))
      bits = b.CreateBitCast(bits, b.getIntNTy(vector->getNumElements()));
    bits = b.CreateZExtOrTrunc(bits, b.getInt64Ty());
    call =
        b.CreateCall(c.masked, {a.pointer, b.getInt32(a.element_bytes), bits, b.getInt32(a.flags)});
  } else if (a.length != nullptr) {
    Value* length = b.CreateZExtOrTrunc(a.length, b.getInt64Ty());
    call = b.CreateCall(c.access, {a.pointer, length, b.getInt32(a.flags)});
  } else {
    const ShadowTest test = shadow_test(b, e, a.pointer, a.bytes);
    Instruction* then = SplitBlockAndInsertIfThen(test.miss, at->getIterator(), false, unlikely);
    if (a.bytes <= abi::kGranule) {  // a partial granule the access stays inside: no call
      b.SetInsertPoint(then);
      Value* allowed = partial_granules_allow(b, test.two, test.address, a.bytes);
      then = SplitBlockAndInsertIfThen(b.CreateOr(b.CreateNot(allowed), e.every),
                                       then->getIterator(), false, unlikely);
    }
    b.SetInsertPoint(then);
    call = b.CreateCall(c.access, {a.pointer, b.getInt64(a.bytes), b.getInt32(a.flags)});
  }
  call->setDebugLoc(where);
}

// Where each instruction stands: its block's segment between calls (a call may switch fibers or
// stop the lane) and its position in the block.
struct Place {
  const BasicBlock* block;
  unsigned segment;
  unsigned position;
};

std::map<const Instruction*, Place> places_of(Function& f) {
  std::map<const Instruction*, Place> places;
  for (BasicBlock& block : f) {
    unsigned segment = 0, position = 0;
    for (Instruction& inst : block) {
      if (const auto* call = dyn_cast<CallBase>(&inst);
          call != nullptr && !isa<IntrinsicInst>(call))
        ++segment;
      places[&inst] = {&block, segment, position++};
    }
  }
  return places;
}

// Grouped tests: accesses of one block, with no call between them, at constant offsets from one
// base pointer (a row's loads at offsets 0, 32, 64, ...; a block's scale and quants), whose
// bytes lie within kMaxSpanBytes, are tested together once before the first of them by
// span_plain (shadow_span.h): where the shadow of their whole span is 0 and no racecheck
// dispatch runs, none of their own tests runs; elsewhere each runs as before, so a report still
// names the exact access. For each access, the group's flag or nullptr. `spans[i]` is access i's
// bytes (0: not a fixed span).
std::vector<Value*> group_tests(const std::vector<Access>& accesses,
                                const std::vector<uint64_t>& spans, const ShadowGlobals& e,
                                Function& f) {
  const DataLayout& dl = f.getParent()->getDataLayout();
  const std::map<const Instruction*, Place> places = places_of(f);
  struct Member {
    size_t index;
    int64_t offset;
  };
  std::map<std::tuple<const BasicBlock*, unsigned, const Value*>, std::vector<Member>> groups;
  for (size_t i = 0; i < accesses.size(); ++i) {
    if (spans[i] == 0) continue;
    int64_t offset = 0;
    const Value* base = GetPointerBaseWithConstantOffset(accesses[i].pointer, offset, dl);
    const Place& p = places.at(accesses[i].at);
    groups[{p.block, p.segment, base}].push_back({i, offset});
  }
  std::vector<Value*> flags(accesses.size(), nullptr);
  for (auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    int64_t lowest = INT64_MAX, end = INT64_MIN;
    const Instruction* first = nullptr;
    for (const Member& m : members) {
      lowest = std::min(lowest, m.offset);
      end = std::max(end, m.offset + int64_t(spans[m.index]));
      const Instruction* at = accesses[m.index].at;
      if (first == nullptr || places.at(at).position < places.at(first).position) first = at;
    }
    if (uint64_t(end - lowest) > kMaxSpanBytes) continue;
    IRBuilder<> b(const_cast<Instruction*>(first));
    Value* base = b.CreatePtrToInt(const_cast<Value*>(std::get<2>(key)), b.getInt64Ty());
    Value* plain = span_plain(b, e, b.CreateAdd(base, b.getInt64(uint64_t(lowest))),
                              b.CreateAdd(base, b.getInt64(uint64_t(end))), uint64_t(end - lowest));
    Value* flag = b.CreateAnd(plain, b.CreateNot(e.every), "metalsim.group");
    for (const Member& m : members) flags[m.index] = flag;
  }
  return flags;
}

// The copies, in loops copied under a bounded test (loop_ranges.h), of the accesses that test
// does not cover: each is tested itself, unconditionally.
std::vector<Access> uncovered_copies(const std::vector<Access>& accesses,
                                     const std::vector<BoundedCopy>& bounded) {
  std::vector<Access> out;
  for (const BoundedCopy& b : bounded)
    for (const Access& a : accesses) {
      auto at = b.copies->find(a.at);
      if (at == b.copies->end() || b.covered.contains(a.at)) continue;
      auto copy_of = [&](Value* v) -> Value* {
        if (v == nullptr) return nullptr;
        auto found = b.copies->find(v);
        return found != b.copies->end() ? static_cast<Value*>(found->second) : v;
      };
      Access copy = a;
      copy.at = cast<Instruction>(at->second);
      copy.pointer = copy_of(a.pointer);
      copy.length = copy_of(a.length);
      copy.mask = copy_of(a.mask);
      out.push_back(copy);
    }
  return out;
}

bool instrument(Function& f, bool step, const AccessCheckOptions& options, const Callees& c) {
  unsigned unchecked = 0;
  const std::vector<Access> accesses = accesses_of(f, engine_args(f, step), unchecked);
  if (accesses.empty()) return false;
  // Fixed-size accesses and masked ones of a known span may have their test hoisted out of loops.
  std::vector<RangedAccess> ranged;
  std::vector<size_t> ranged_index(accesses.size(), SIZE_MAX);
  std::vector<uint64_t> spans(accesses.size(), 0);
  for (size_t i = 0; i < accesses.size(); ++i) {
    const Access& a = accesses[i];
    std::optional<uint64_t> bytes;
    if (a.mask != nullptr) bytes = masked_span(a);
    else if (a.length == nullptr) bytes = a.bytes;
    if (!bytes || !options.hoist) continue;
    spans[i] = *bytes;
    ranged_index[i] = ranged.size();
    ranged.push_back({a.at, a.pointer, *bytes});
  }
  const ShadowGlobals e = load_entry(f, options.race);
  std::vector<Instruction*> unranged;
  for (size_t i = 0; i < accesses.size(); ++i)
    if (ranged_index[i] == SIZE_MAX) unranged.push_back(accesses[i].at);
  std::vector<BoundedCopy> bounded;
  const std::vector<Value*> hoisted = hoist_range_tests(f, ranged, unranged, e, bounded);
  std::vector<Value*> flags(accesses.size(), nullptr);  // each access's hoisted flag, or nullptr
  std::vector<Instruction*> sites;
  for (size_t i = 0; i < accesses.size(); ++i) {
    if (ranged_index[i] != SIZE_MAX) flags[i] = hoisted[ranged_index[i]];
    sites.push_back(accesses[i].at);
  }
  // Loops whose every access's test was hoisted get a copy without tests, entered where their
  // flag holds; in the loop itself the tests then run unconditionally.
  const std::vector<bool> copied = options.copy_loops ? copy_loops_without_tests(f, sites, flags)
                                                      : std::vector<bool>(accesses.size(), false);
  // Accesses whose test a loop hoisted are left out of the groups: a group's test runs whatever
  // their loop's flag says, and where the flag held it costs more than it saves.
  std::vector<uint64_t> group_spans = spans;
  for (size_t i = 0; i < accesses.size(); ++i)
    if (flags[i] != nullptr) group_spans[i] = 0;
  const std::vector<Value*> grouped = group_tests(accesses, group_spans, e, f);
  for (size_t i = 0; i < accesses.size(); ++i) {
    Value* plain = flags[i] != nullptr ? flags[i] : grouped[i];
    if (copied[i]) plain = nullptr;
    instrument_access(accesses[i], plain, e, c, f);
  }
  for (const Access& a : uncovered_copies(accesses, bounded))
    instrument_access(a, nullptr, e, c, f);
  return true;
}

bool is_engine(const Function& f) { return f.getName().starts_with("__metalsim_"); }

}  // namespace

PreservedAnalyses AccessCheckPass::run(Module& m, ModuleAnalysisManager&) {
  // Before any instrumentation: the fast variants are copies of the plain code.
  SmallPtrSet<Function*, 32> fast;
  if (options_.fast_variant) fast = make_fast_variants(m);
  const std::vector<Function*> steps_list = lane_steps(m);
  const SmallPtrSet<Function*, 8> steps(steps_list.begin(), steps_list.end());
  const Callees c = callees(m);
  bool changed = !fast.empty();
  for (Function& f : m) {
    if (f.isDeclaration() || is_engine(f) || fast.contains(&f)) continue;
    // ThreadSanitizer (the tsan preset) is that build's racecheck, and a fault cannot be
    // recovered under it: its kernels are left to it.
    if (f.hasFnAttribute(Attribute::SanitizeThread)) continue;
    changed |= instrument(f, steps.contains(&f), options_, c);
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

}  // namespace metalsim::instrument
