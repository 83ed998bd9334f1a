#include "simt/lanes/loop_emitter.h"

#include <algorithm>
#include <optional>
#include <string>

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "simt/lanes/element_major.h"
#include "simt/lanes/frame_scopes.h"
#include "simt/lanes/lane_guards.h"
#include "simt/lanes/one_d_loops.h"
#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// 0: by the target (lane_loop_vector_width); -1: no width asked, the vectorizer's cost model
// decides (to compare); N: N.
cl::opt<int> lane_vector_width(
    "metalsim-lanes-vector-width", cl::init(0),
    cl::desc("Vectorization width lane loops ask for: 0 by the target (8 with AVX, else 4), -1 "
             "the vectorizer's own choice, N (docs/lanes.md)"));

// What the step's entry block loads once: the per-lane tables and each slot's array.
struct StepEntry {
  Value* stop;
  Value* kind;
  Value* site;
  Value* combine;
  Value* in;
  Value* out;
  Value* arg;
  Value* frame = nullptr;        // the frame's base, when there are slots
  Value* frame_lanes = nullptr;  // the lanes it holds (an element-major slot's column length)
  std::vector<Value*> slot_base;
  unsigned vector_width = 0;  // what the lane loops ask the vectorizer for (0: its own choice)
};

// Stand-ins the template blocks (the prepared body's) use for what each lane loop defines
// itself: the lane, each slot's address for that lane, and the loop's latch.
struct Placeholders {
  BasicBlock* block;  // unreachable; holds `lane` and `slots`
  Instruction* lane;
  std::vector<Instruction*> slots;
  BasicBlock* latch;
};

Function* create_step(Function& body) {
  LLVMContext& ctx = body.getContext();
  Type* ptr = PointerType::get(ctx, 0);
  Type* i32 = Type::getInt32Ty(ctx);
  auto* type = FunctionType::get(Type::getVoidTy(ctx), {ptr, ptr, i32, i32, i32, ptr}, false);
  Function* step = Function::Create(type, GlobalValue::InternalLinkage,
                                    body.getName() + ".lanes.step", body.getParent());
  AttrBuilder attrs(ctx, body.getAttributes().getFnAttrs());
  for (Attribute::AttrKind k : {Attribute::OptimizeNone, Attribute::NoInline,
                                Attribute::AlwaysInline, Attribute::Memory, Attribute::NoRecurse})
    attrs.removeAttribute(k);
  step->addFnAttrs(attrs);
  // The state's fields and the bound arguments are read only, and no kernel pointer reaches
  // them: loads from them leave the lane loops.
  for (unsigned p : {0u, 1u, 5u}) {
    step->addParamAttr(p, Attribute::NoAlias);
    step->addParamAttr(p, Attribute::ReadOnly);
    step->addParamAttr(p, Attribute::NoCapture);
  }
  const char* names[] = {"args", "state", "cont", "first", "count", "lanes"};
  for (unsigned p = 0; p < 6; ++p) step->getArg(p)->setName(names[p]);
  return step;
}

StepEntry emit_entry(IRBuilder<>& b, Function& step, const FrameLayout& frame) {
  Value* state = step.getArg(1);
  Type* ptr = b.getPtrTy();
  StepEntry e;
  e.stop = abi::load_field(b, state, abi::kStop, ptr, "stop");
  e.kind = abi::load_field(b, state, abi::kKind, ptr, "kind");
  e.site = abi::load_field(b, state, abi::kSite, ptr, "site");
  e.combine = abi::load_field(b, state, abi::kCombine, ptr, "combine");
  e.in = abi::load_field(b, state, abi::kIn, ptr, "in");
  e.out = abi::load_field(b, state, abi::kOut, ptr, "out");
  e.arg = abi::load_field(b, state, abi::kArg, ptr, "arg");
  if (!frame.slots.empty()) {
    Value* base = abi::load_field(b, state, abi::kFrame, ptr, "frame");
    e.frame = base;
    Value* lanes = abi::load_field(b, state, abi::kFrameLanes, b.getInt64Ty(), "frame_lanes");
    e.frame_lanes = lanes;
    for (const FrameSlot& s : frame.slots)
      e.slot_base.push_back(b.CreateInBoundsGEP(
          b.getInt8Ty(), base, b.CreateMul(lanes, b.getInt64(s.offset), "", true, true),
          s.name + ".lanes"));
  }
  return e;
}

Placeholders make_placeholders(Function& step, const FrameLayout& frame) {
  LLVMContext& ctx = step.getContext();
  Placeholders p;
  p.block = BasicBlock::Create(ctx, "placeholders", &step);
  IRBuilder<> b(p.block);
  p.lane = cast<Instruction>(b.CreateFreeze(PoisonValue::get(b.getInt32Ty()), "lane.ph"));
  for (const FrameSlot& s : frame.slots)
    p.slots.push_back(
        cast<Instruction>(b.CreateFreeze(PoisonValue::get(b.getPtrTy()), s.name + ".ph")));
  b.CreateUnreachable();
  p.latch = BasicBlock::Create(ctx, "latch.ph", &step);
  new UnreachableInst(ctx, p.latch);
  return p;
}

// The prepared body's blocks become the step's templates; a slot's alloca becomes its
// placeholder, an element-major slot's accesses spread across the lanes first.
std::vector<BasicBlock*> move_body(PreparedBody& prepared, Function& step, const StepEntry& e,
                                   const Placeholders& ph) {
  Function& work = *prepared.work;
  std::vector<BasicBlock*> templates;
  for (BasicBlock& bb : work) templates.push_back(&bb);
  step.splice(step.end(), &work);
  work.getArg(0)->replaceAllUsesWith(step.getArg(0));
  work.getArg(1)->replaceAllUsesWith(step.getArg(1));
  work.getArg(2)->replaceAllUsesWith(ph.lane);
  step.setSubprogram(work.getSubprogram());
  work.setSubprogram(nullptr);
  // Inlined callees may have brought landing pads: the step unwinds as the body does.
  if (work.hasPersonalityFn()) step.setPersonalityFn(work.getPersonalityFn());
  for (size_t i = 0; i < prepared.frame.slots.size(); ++i) {
    AllocaInst* a = prepared.frame.slots[i].alloca;
    if (prepared.frame.slots[i].element_bytes != 0)
      spread_elements(*a, prepared.frame.slots[i].element_bytes, e.frame_lanes);
    a->replaceAllUsesWith(ph.slots[i]);
    a->eraseFromParent();
    prepared.frame.slots[i].alloca = nullptr;
  }
  return templates;
}

void store_at_lane(IRBuilder<>& b, Type* type, Value* table, Value* lane64, Value* value) {
  b.CreateStore(value, b.CreateInBoundsGEP(type, table, lane64));
}

// A sync call becomes the record of the lane's stop, a return the record that it is done;
// both then leave to the latch.
void rewrite_stops(PreparedBody& prepared, const StepEntry& e, const Placeholders& ph,
                   const std::vector<BasicBlock*>& templates) {
  for (const SyncPoint& s : prepared.syncs) {
    CallInst* call = s.call;
    IRBuilder<> b(call);
    Value* lane64 = b.CreateZExt(ph.lane, b.getInt64Ty(), "lane64");
    store_at_lane(b, b.getInt32Ty(), e.stop, lane64, b.getInt32(s.id));
    store_at_lane(b, b.getPtrTy(), e.site, lane64, site_argument(*call));
    Value* kind = nullptr;
    if (s.kind == EngineCall::SimdCollective) {
      store_at_lane(b, b.getPtrTy(), e.combine, lane64, call->getArgOperand(0));
      store_at_lane(b, b.getPtrTy(), e.in, lane64, call->getArgOperand(1));
      store_at_lane(b, b.getPtrTy(), e.out, lane64, call->getArgOperand(2));
      store_at_lane(b, b.getInt64Ty(), e.arg, lane64, call->getArgOperand(3));
      kind = call->getArgOperand(4);
    } else if (s.kind == EngineCall::Yield) {
      kind = b.getInt8(abi::kYield);
    } else {
      kind = b.getInt8(s.kind == EngineCall::ThreadgroupBarrier ? abi::kThreadgroupBarrier
                                                                : abi::kSimdgroupBarrier);
    }
    store_at_lane(b, b.getInt8Ty(), e.kind, lane64, kind);
    Instruction* branch = s.block->getTerminator();
    BranchInst::Create(ph.latch, branch);
    branch->eraseFromParent();
    call->eraseFromParent();
    s.block->setName("stop." + Twine(s.id));
  }
  // A kernel without sync points records no return: its runner calls the step once for all the
  // lanes and reads no stop (LaneLoopRunner::run_without_sync_points). The store was 4 bytes a lane
  // beside an element-wise kernel's 2 of output.
  const bool record_returns = !prepared.syncs.empty();
  for (BasicBlock* bb : templates) {
    auto* ret = dyn_cast<ReturnInst>(bb->getTerminator());
    if (ret == nullptr) continue;
    if (record_returns) {
      IRBuilder<> b(ret);
      Value* lane64 = b.CreateZExt(ph.lane, b.getInt64Ty(), "lane64");
      store_at_lane(b, b.getInt32Ty(), e.stop, lane64, b.getInt32(abi::kLaneDone));
    }
    BranchInst::Create(ph.latch, ret);
    ret->eraseFromParent();
  }
}

// The vectorization width a lane loop asks for: 32-bit lanes in a full vector register, 8 with
// AVX (256 bits), else 4.
unsigned lane_loop_vector_width(const Function& step) {
  if (lane_vector_width < 0) return 0;
  if (lane_vector_width > 0) return unsigned(lane_vector_width);
  const Attribute features = step.getFnAttribute("target-features");
  const StringRef f = features.isValid() ? features.getValueAsString() : StringRef();
  return f.contains("+avx") ? 8 : 4;
}

// A lane loop's id: its accesses are parallel (lanes between two sync points of a race-free
// kernel are independent), and it asks for `width` (0: the vectorizer's own choice). Why a
// width: LLVM 19's cost model, tuned for generic x86-64, vectorized swiglu's lane loop 4 wide
// and left rope's scalar, where 8 ran 1.6x and 2x faster (docs/performance.md, "Lane loops ask
// for a full vector"). A loop the vectorizer cannot vectorize legally stays scalar as before.
// A width also lets the vectorizer reorder a floating-point reduction of the loop; a lane loop
// has none (each iteration is another lane; what a lane sums stays in its own slot), and the
// mode and variant equivalence tests would see a reordered sum as different bits.
MDNode* parallel_loop_id(LLVMContext& ctx, MDNode* access_group, unsigned width) {
  SmallVector<Metadata*, 4> ops{nullptr};
  ops.push_back(
      MDNode::get(ctx, {MDString::get(ctx, "llvm.loop.parallel_accesses"), access_group}));
  ops.push_back(MDNode::get(ctx, {MDString::get(ctx, "llvm.loop.mustprogress")}));
  // A width alone, not llvm.loop.vectorize.enable: a loop that cannot be vectorized is then no
  // warning (-Wpass-failed).
  if (width > 1)
    ops.push_back(MDNode::get(
        ctx, {MDString::get(ctx, "llvm.loop.vectorize.width"),
              ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(ctx), width))}));
  MDNode* id = MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  return id;
}

void add_access_group(Instruction& i, MDNode* group) {
  if (!i.mayReadOrWriteMemory()) return;
  MDNode* old = i.getMetadata(LLVMContext::MD_access_group);
  i.setMetadata(LLVMContext::MD_access_group, old ? uniteAccessGroups(old, group) : group);
}

// The region of a loop's yield (across_lanes.h), with the slots of the loop's `last` and `next`
// (-1 when demotion left them elsewhere: no rounds then).
struct AcrossRegion {
  const AcrossLoop* loop;
  uint32_t cont;
  int last_slot;
  int next_slot;
  // Slots of integers and pointers the loop only reads (values from before it: a row's address,
  // its length): when every lane holds the same, the rounds read lane `first`'s, once, so that
  // the addresses computed from them stay affine in the lane.
  std::vector<int> invariant_slots;
};

struct LoopSpec {
  const Region& region;
  bool listed;         // lanes[i] rather than first + i
  BasicBlock* from;    // the block that enters the loop
  BasicBlock* done;    // where it exits
  bool one_d = false;  // for a threadgroup of one dimension (see specialise_one_d)
  const AcrossRegion* across = nullptr;  // the region is this loop's yield's
  Value* round = nullptr;                // a round (see adapt_across): the iterations done
  // In a round: each invariant slot's placeholder, and the value every lane holds there.
  std::vector<std::pair<Value*, Value*>> same_for_all = {};
};

// In the region of a loop's yield: a lane loop's lane goes on with its own iterations at the
// yield, unless it just entered the loop again (one iteration done: an outer loop brought it
// back), where it stops so that the next call runs the loop across lanes again. A round's copy
// runs one iteration: `done` is the round's, the exits are not taken (every lane has iterations
// left after this one), and the yield ends the lane.
void adapt_across(const LoopSpec& spec, ValueToValueMapTy& map, BasicBlock* latch,
                  const std::vector<BasicBlock*>& clones) {
  const AcrossLoop& a = *spec.across->loop;
  auto* back = cast<BasicBlock>(map[a.back]);
  Instruction* t = back->getTerminator();
  IRBuilder<> b(t);
  // A loop that tests its stores apart also branches straight to its header (where they are
  // not); here the lane goes to the latch or through the region's start instead.
  auto* tested = dyn_cast<BranchInst>(t);
  if (tested != nullptr && tested->isConditional())
    tested->getSuccessor(1)->removePredecessor(back);
  else tested = nullptr;
  if (spec.round != nullptr) {
    b.CreateBr(latch);
    auto* done = cast<PHINode>(map[a.done]);
    done->replaceAllUsesWith(spec.round);
    done->eraseFromParent();
    for (Instruction* w : a.wrap_free)
      if (auto at = map.find(w); at != map.end())
        if (auto* c = dyn_cast<Instruction>(at->second)) {
          c->setHasNoUnsignedWrap(true);
          c->setHasNoSignedWrap(true);
        }
    for (auto [placeholder, value] : spec.same_for_all) {
      auto at = map.find(placeholder);
      if (at == map.end()) continue;
      for (BasicBlock* c : clones)
        for (Instruction& inst : make_early_inc_range(*c))
          if (auto* load = dyn_cast<LoadInst>(&inst); load &&
                                                      load->getPointerOperand() == at->second &&
                                                      load->getType() == value->getType()) {
            load->replaceAllUsesWith(value);
            load->eraseFromParent();
          }
    }
    for (auto [exiting, stays] : a.stays) {
      auto* c = cast<BasicBlock>(map[exiting]);
      auto* br = cast<BranchInst>(c->getTerminator());
      br->getSuccessor(1 - stays)->removePredecessor(c);
      BranchInst::Create(br->getSuccessor(stays), br);
      br->eraseFromParent();
    }
  } else {
    Value* again = b.CreateICmpEQ(map[a.next], ConstantInt::get(a.next->getType(), 1), "entered");
    // A loop that tests its stores apart (across_lanes.h) yields on this entry only if they are.
    if (tested != nullptr) again = b.CreateAnd(again, tested->getCondition(), "entered.apart");
    b.CreateCondBr(again, t->getSuccessor(0), cast<BasicBlock>(map[spec.region.start]));
  }
  t->eraseFromParent();
}

// A clone's operand still naming a template's value: the region uses a value it does not define
// and that was not demoted. Never expected; checked so that it fails the kernel, not the compiler.
bool uses_template(const std::vector<BasicBlock*>& clones,
                   const SmallPtrSetImpl<BasicBlock*>& templates) {
  for (BasicBlock* c : clones)
    for (Instruction& inst : *c)
      for (Value* op : inst.operands()) {
        if (auto* def = dyn_cast<Instruction>(op); def && templates.contains(def->getParent()))
          return true;
        if (auto* target = dyn_cast<BasicBlock>(op); target && templates.contains(target))
          return true;
      }
  return false;
}

void erase_blocks(const std::vector<BasicBlock*>& blocks) {
  for (BasicBlock* bb : blocks) bb->dropAllReferences();
  for (BasicBlock* bb : blocks) bb->eraseFromParent();
}

// One lane loop over `spec.region`: header (lane, slot addresses), the region's clones, latch.
// Returns the header, or nullptr when a clone still uses a template (see uses_template).
BasicBlock* emit_loop(Function& step, const LoopSpec& spec, const StepEntry& e,
                      const FrameLayout& frame, const Rematerialized& remat, const Placeholders& ph,
                      const SmallPtrSetImpl<BasicBlock*>& templates,
                      EmittedLoop* emitted = nullptr) {
  LLVMContext& ctx = step.getContext();
  const std::string name = "r" + std::to_string(spec.region.cont) +
                           (spec.listed ? ".list" : (spec.one_d ? ".lanes1d" : ".lanes"));
  BasicBlock* header = BasicBlock::Create(ctx, name, &step);
  BasicBlock* latch = BasicBlock::Create(ctx, name + ".latch", &step);
  IRBuilder<> b(header);
  PHINode* i = b.CreatePHI(b.getInt32Ty(), 2, "i");
  i->addIncoming(b.getInt32(0), spec.from);
  Value* lane = nullptr;
  if (spec.listed) {
    Value* at =
        b.CreateInBoundsGEP(b.getInt16Ty(), step.getArg(5), b.CreateZExt(i, b.getInt64Ty()));
    lane = b.CreateZExt(b.CreateLoad(b.getInt16Ty(), at), b.getInt32Ty(), "lane");
  } else {
    lane = b.CreateAdd(step.getArg(3), i, "lane", /*HasNUW=*/true, /*HasNSW=*/true);
  }
  Value* lane64 = b.CreateZExt(lane, b.getInt64Ty(), "lane64");
  ValueToValueMapTy map;
  map[ph.lane] = lane;
  for (size_t s = 0; s < frame.slots.size(); ++s)
    map[ph.slots[s]] = b.CreateInBoundsGEP(
        b.getInt8Ty(), e.slot_base[s],
        b.CreateMul(lane64, b.getInt64(frame.slots[s].lane_stride()), "", true, true),
        frame.slots[s].name);
  map[ph.latch] = latch;
  for (Instruction* p : remat.per_lane) {
    Instruction* c = p->clone();
    c->setName(p->getName());
    b.Insert(c);
    RemapInstruction(c, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
    map[p] = c;
  }
  SmallPtrSet<BasicBlock*, 32> clones;
  std::vector<BasicBlock*> order;
  for (BasicBlock* t : spec.region.blocks) {
    BasicBlock* c = CloneBasicBlock(t, map, "." + name, &step);
    map[t] = c;
    clones.insert(c);
    order.push_back(c);
  }
  b.CreateBr(cast<BasicBlock>(map[spec.region.start]));
  for (BasicBlock* c : order)
    for (Instruction& inst : *c)
      RemapInstruction(&inst, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
  // Edges from blocks outside the region (reached only through another continuation) are gone.
  for (BasicBlock* c : order)
    for (PHINode& phi : c->phis())
      for (unsigned k = phi.getNumIncomingValues(); k-- > 0;)
        if (!clones.contains(phi.getIncomingBlock(k))) phi.removeIncomingValue(k, false);
  if (spec.across != nullptr) adapt_across(spec, map, latch, order);

  std::vector<BasicBlock*> all = order;
  all.push_back(header);
  if (spec.one_d && specialise_one_d(all) == 0) {  // no position read: the general loop serves
    all.push_back(latch);
    erase_blocks(all);
    return spec.from;
  }

  IRBuilder<> lb(latch);
  Value* next = lb.CreateAdd(i, lb.getInt32(1), "i.next", true, true);
  i->addIncoming(next, latch);
  BranchInst* back = lb.CreateCondBr(lb.CreateICmpULT(next, step.getArg(4)), header, spec.done);
  MDNode* group = MDNode::getDistinct(ctx, {});
  back->setMetadata(LLVMContext::MD_loop, parallel_loop_id(ctx, group, e.vector_width));
  for (Instruction& inst : *header) add_access_group(inst, group);
  for (BasicBlock* c : order)
    for (Instruction& inst : *c) add_access_group(inst, group);
  if (emitted != nullptr) *emitted = {header, latch, i, order};
  return uses_template(order, templates) ? nullptr : header;
}

// Puts a guard scan before the one-dimensional loop `loop` (entered from spec.from) and a copy
// of it without the guard, when its first branch is a guard (see "uniform guards" above).
// Returns the block to enter, or nullptr on an internal error.
// Whether the threadgroup has one dimension: its y and z sizes are 1 (read once per step).
Value* one_dimensional(IRBuilder<>& b, Function& step) {
  Value* y = abi::load_field(b, step.getArg(1), abi::kSizeY, b.getInt32Ty(), "size.y");
  Value* z = abi::load_field(b, step.getArg(1), abi::kSizeZ, b.getInt32Ty(), "size.z");
  return b.CreateAnd(b.CreateICmpEQ(y, b.getInt32(1)), b.CreateICmpEQ(z, b.getInt32(1)), "one_d");
}

BasicBlock* version_on_guard(Function& step, const LoopSpec& spec, const EmittedLoop& loop,
                             const StepEntry& e, const PreparedBody& prepared,
                             const Placeholders& ph,
                             const SmallPtrSetImpl<BasicBlock*>& templates) {
  std::optional<LaneGuard> g = find_lane_guard(loop);
  if (!g) return loop.header;
  // An empty slice: the condition is uniform (or cannot be recomputed): nothing to gain.
  const std::vector<Instruction*> slice = condition_slice(*g, loop);
  if (slice.empty()) return loop.header;
  const std::string name = "r" + std::to_string(spec.region.cont) + ".guard";
  const GuardScan scan = emit_guard_scan(step, spec.from, *g, slice, loop, name);
  LoopSpec free_spec = spec;
  free_spec.from = scan.exit;
  EmittedLoop free_loop;
  if (emit_loop(step, free_spec, e, prepared.frame, prepared.remat, ph, templates, &free_loop) ==
      nullptr)
    return nullptr;
  drop_guard(free_loop);
  loop.header->replacePhiUsesWith(spec.from, scan.exit);
  IRBuilder<> b(scan.exit);
  b.CreateCondBr(scan.all, free_loop.header, loop.header);
  return scan.header;
}

// Before the lane loops of a loop's yield, for contiguous lanes: a scan of the lanes' `next`
// (iterations done) and `last`, then, when every lane has done as many and each has iterations
// left after the next, that many rounds, each one lane loop over one iteration (adapt_across).
// Returns the block to enter; both the scan and the rounds end at `generic` (the lane loops).
// nullptr on an internal error.
BasicBlock* emit_rounds(Function& step, const Region& r, const AcrossRegion& a, BasicBlock* generic,
                        const StepEntry& e, const PreparedBody& prepared, const Placeholders& ph,
                        const SmallPtrSetImpl<BasicBlock*>& templates) {
  LLVMContext& ctx = step.getContext();
  const std::string name = "r" + std::to_string(r.cont) + ".across";
  Type* type = a.loop->next->getType();
  BasicBlock* enter = BasicBlock::Create(ctx, name, &step);
  BasicBlock* scan = BasicBlock::Create(ctx, name + ".scan", &step);
  BasicBlock* scanned = BasicBlock::Create(ctx, name + ".scanned", &step);
  BasicBlock* round = BasicBlock::Create(ctx, name + ".round", &step);
  BasicBlock* round_end = BasicBlock::Create(ctx, name + ".round.end", &step);
  IRBuilder<> b(enter);
  auto slot_at = [&](int slot, Value* lane64) {
    const FrameSlot& s = prepared.frame.slots[size_t(slot)];
    return b.CreateInBoundsGEP(b.getInt8Ty(), e.slot_base[size_t(slot)],
                               b.CreateMul(lane64, b.getInt64(s.lane_stride()), "", true, true));
  };
  // Lane `first`'s invariant values; the scan compares every lane's with them.
  std::vector<std::pair<Value*, Value*>> same_for_all = {};
  Value* first64 = b.CreateZExt(step.getArg(3), b.getInt64Ty());
  for (int slot : a.invariant_slots) {
    Value* placeholder = ph.slots[size_t(slot)];
    Type* loaded = nullptr;
    for (User* u : placeholder->users())
      if (auto* load = dyn_cast<LoadInst>(u)) loaded = load->getType();
    same_for_all.emplace_back(placeholder, b.CreateLoad(loaded, slot_at(slot, first64), "same"));
  }
  b.CreateBr(scan);

  b.SetInsertPoint(scan);
  PHINode* i = b.CreatePHI(b.getInt32Ty(), 2, "i");
  PHINode* least = b.CreatePHI(type, 2, "done.least");
  PHINode* most = b.CreatePHI(type, 2, "done.most");
  PHINode* left = b.CreatePHI(type, 2, "left");
  PHINode* same = b.CreatePHI(b.getInt1Ty(), 2, "same");
  same->addIncoming(b.getTrue(), enter);
  i->addIncoming(b.getInt32(0), enter);
  least->addIncoming(ConstantInt::getAllOnesValue(type), enter);
  most->addIncoming(ConstantInt::get(type, 0), enter);
  left->addIncoming(ConstantInt::getAllOnesValue(type), enter);
  Value* lane = b.CreateAdd(step.getArg(3), i, "lane", true, true);
  Value* lane64 = b.CreateZExt(lane, b.getInt64Ty(), "lane64");
  Value* done = b.CreateLoad(type, slot_at(a.next_slot, lane64), "done");
  Value* last = b.CreateLoad(type, slot_at(a.last_slot, lane64), "last");
  Value* same_next = same;
  for (auto [placeholder, value] : same_for_all) {
    auto it = std::find(ph.slots.begin(), ph.slots.end(), placeholder);
    Value* mine = b.CreateLoad(value->getType(), slot_at(int(it - ph.slots.begin()), lane64));
    same_next = b.CreateAnd(same_next, b.CreateICmpEQ(mine, value));
  }
  same->addIncoming(same_next, scan);
  Value* least_next = b.CreateBinaryIntrinsic(Intrinsic::umin, least, done);
  Value* most_next = b.CreateBinaryIntrinsic(Intrinsic::umax, most, done);
  // `last` may be 0 where the pass could not tell the count exactly (across_lanes.cpp): then
  // nothing is left for rounds.
  Value* left_next = b.CreateBinaryIntrinsic(
      Intrinsic::umin, left, b.CreateBinaryIntrinsic(Intrinsic::usub_sat, last, done));
  Value* i_next = b.CreateAdd(i, b.getInt32(1), "i.next", true, true);
  i->addIncoming(i_next, scan);
  least->addIncoming(least_next, scan);
  most->addIncoming(most_next, scan);
  left->addIncoming(left_next, scan);
  b.CreateCondBr(b.CreateICmpULT(i_next, step.getArg(4)), scan, scanned);

  b.SetInsertPoint(scanned);
  Value* lockstep = b.CreateICmpEQ(least_next, most_next, "lockstep");
  Value* some = b.CreateICmpNE(left_next, ConstantInt::get(type, 0));
  b.CreateCondBr(b.CreateAnd(b.CreateAnd(lockstep, some), same_next), round, generic);

  b.SetInsertPoint(round);
  PHINode* k = b.CreatePHI(type, 2, "round");
  k->addIncoming(ConstantInt::get(type, 0), scanned);
  Value* round_done = b.CreateAdd(least_next, k, "round.done", true);
  LoopSpec spec{r, false, round, round_end};
  spec.across = &a;
  spec.round = round_done;
  spec.same_for_all = same_for_all;
  BasicBlock* general = emit_loop(step, spec, e, prepared.frame, prepared.remat, ph, templates);
  spec.one_d = true;
  BasicBlock* one_d = emit_loop(step, spec, e, prepared.frame, prepared.remat, ph, templates);
  if (general == nullptr || one_d == nullptr) return nullptr;
  if (one_d == round) b.CreateBr(general);
  else b.CreateCondBr(one_dimensional(b, step), one_d, general);

  b.SetInsertPoint(round_end);
  Value* k_next = b.CreateAdd(k, ConstantInt::get(type, 1), "round.next", true);
  k->addIncoming(k_next, round_end);
  b.CreateCondBr(b.CreateICmpULT(k_next, left_next), round, generic);
  return enter;
}

// The slot `v` was demoted to (its value's store into an alloca of the frame), or -1.
int slot_of(const Instruction* v, const FrameLayout& frame) {
  for (const User* u : v->users()) {
    const auto* store = dyn_cast<StoreInst>(u);
    if (store == nullptr || store->getValueOperand() != v) continue;
    for (size_t s = 0; s < frame.slots.size(); ++s)
      if (frame.slots[s].alloca == store->getPointerOperand()) return int(s);
  }
  return -1;
}

// The slots of integers and pointers that the loop loads and never stores, and that nothing
// else than loads and stores of the whole value uses.
std::vector<int> invariant_slots(const AcrossLoop& a, const FrameLayout& frame) {
  SmallPtrSet<const BasicBlock*, 16> in_loop(a.blocks.begin(), a.blocks.end());
  std::vector<int> slots;
  for (size_t s = 0; s < frame.slots.size(); ++s) {
    const AllocaInst* alloca = frame.slots[s].alloca;
    bool read = false, plain = true;
    Type* type = nullptr;
    for (const User* u : alloca->users()) {
      if (const auto* load = dyn_cast<LoadInst>(u)) {
        plain = plain && (type == nullptr || type == load->getType()) &&
                (load->getType()->isIntegerTy() || load->getType()->isPointerTy());
        type = load->getType();
        read = read || in_loop.contains(load->getParent());
      } else if (const auto* store = dyn_cast<StoreInst>(u)) {
        plain =
            plain && store->getPointerOperand() == alloca && !in_loop.contains(store->getParent());
      } else {
        plain = false;
      }
    }
    if (read && plain) slots.push_back(int(s));
  }
  return slots;
}

// The regions of loops' yields; the loops' markers go (they only kept `last` in a slot).
std::vector<AcrossRegion> across_regions(const PreparedBody& prepared) {
  std::vector<AcrossRegion> regions;
  for (const AcrossLoop& a : prepared.across) {
    Value* last_reload = a.marker->getArgOperand(0);
    a.marker->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(last_reload);
    for (const SyncPoint& s : prepared.syncs)
      if (s.call == a.yield)
        regions.push_back({&a, s.id, slot_of(a.last, prepared.frame),
                           slot_of(a.next, prepared.frame), invariant_slots(a, prepared.frame)});
  }
  return regions;
}

}  // namespace

Function* emit_step(PreparedBody& prepared, std::optional<Failure>& failure) {
  Function* step = create_step(*prepared.body);
  LLVMContext& ctx = step->getContext();
  BasicBlock* entry = BasicBlock::Create(ctx, "entry", step);
  IRBuilder<> b(entry);
  StepEntry e = emit_entry(b, *step, prepared.frame);
  // Only a kernel without sync points asks for a width: its one lane loop is the whole kernel over
  // independent threads (element-wise, rope, lookups). Between sync points, lane loops are short
  // and often masked (a tree's level), and a full width ran slower there (softmax +3%, rms_norm
  // +5%, the multi-token mat-vec at batch 32 +12%, 2 threads): the cost model decides.
  if (prepared.syncs.empty()) e.vector_width = lane_loop_vector_width(*step);
  Placeholders ph = make_placeholders(*step, prepared.frame);
  const std::vector<AcrossRegion> across = across_regions(prepared);
  std::vector<BasicBlock*> templates = move_body(prepared, *step, e, ph);
  rewrite_stops(prepared, e, ph, templates);
  // Uniform values: once, here. Per-lane ones wait in the placeholder block to be cloned.
  for (Instruction* i : prepared.remat.uniform) i->moveBefore(*entry, entry->end());
  for (Instruction* i : prepared.remat.per_lane) i->moveBefore(ph.block->getTerminator());
  templates.push_back(ph.block);
  templates.push_back(ph.latch);
  SmallPtrSet<BasicBlock*, 32> template_set(templates.begin(), templates.end());

  BasicBlock* done = BasicBlock::Create(ctx, "done", step);
  ReturnInst::Create(ctx, done);
  BasicBlock* dispatch = BasicBlock::Create(ctx, "dispatch", step);
  b.CreateCondBr(b.CreateICmpEQ(step->getArg(4), b.getInt32(0)), done, dispatch);
  IRBuilder<> db(dispatch);
  SwitchInst* by_cont = db.CreateSwitch(step->getArg(2), done, unsigned(prepared.regions.size()));
  bool ok = true;
  for (const Region& r : prepared.regions) {
    BasicBlock* pick = BasicBlock::Create(ctx, "r" + Twine(r.cont), step);
    by_cont->addCase(db.getInt32(r.cont), pick);
    BasicBlock* pick_contiguous =
        BasicBlock::Create(ctx, "r" + Twine(r.cont) + ".contiguous", step);
    const AcrossRegion* own = nullptr;
    for (const AcrossRegion& a : across)
      if (a.cont == r.cont) own = &a;
    LoopSpec general{r, false, pick_contiguous, done, false, own};
    LoopSpec flat{r, false, pick_contiguous, done, true, own};
    BasicBlock* contiguous =
        emit_loop(*step, general, e, prepared.frame, prepared.remat, ph, template_set);
    EmittedLoop one_d_loop;
    BasicBlock* one_d =
        emit_loop(*step, flat, e, prepared.frame, prepared.remat, ph, template_set, &one_d_loop);
    if (one_d != nullptr && one_d != pick_contiguous)
      one_d = version_on_guard(*step, flat, one_d_loop, e, prepared, ph, template_set);
    BasicBlock* listed = emit_loop(*step, {r, true, pick, done, false, own}, e, prepared.frame,
                                   prepared.remat, ph, template_set);
    BasicBlock* enter_contiguous = pick_contiguous;
    if (own != nullptr && own->last_slot >= 0 && own->next_slot >= 0)
      enter_contiguous =
          emit_rounds(*step, r, *own, pick_contiguous, e, prepared, ph, template_set);
    ok = ok && contiguous != nullptr && one_d != nullptr && listed != nullptr &&
         enter_contiguous != nullptr;
    if (!ok) break;
    IRBuilder<> pb(pick);
    pb.CreateCondBr(pb.CreateIsNull(step->getArg(5)), enter_contiguous, listed);
    IRBuilder<> cb(pick_contiguous);
    if (one_d == pick_contiguous) {
      cb.CreateBr(contiguous);
    } else {
      cb.CreateCondBr(one_dimensional(cb, *step), one_d, contiguous);
    }
  }
  if (!ok) {
    failure =
        Failure{"", "internal error of the lane-loop pass: a value crosses a sync point undemoted"};
    std::vector<BasicBlock*> all;
    for (BasicBlock& bb : *step) all.push_back(&bb);
    erase_blocks(all);
    step->eraseFromParent();
    return nullptr;
  }
  erase_blocks(templates);
  scope_frame_accesses(*step, e.frame, e.slot_base);
  return step;
}

}  // namespace metalsim::lanes
