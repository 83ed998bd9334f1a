#include "simt/lanes/one_d_loops.h"

#include <utility>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include "simt/lanes/state_abi.h"

namespace metalsim::lanes {

using namespace llvm;

namespace {

// Which table of thread_position_in_threadgroup `load` reads an entry of (0, 1, 2 for x, y, z),
// with the entry's index; -1 when it reads something else. The tables' bases are loads of the
// state's fields, made once in the step's entry.
int local_table_entry(LoadInst& load, Value*& index) {
  auto* at = dyn_cast<GetElementPtrInst>(load.getPointerOperand());
  if (at == nullptr || at->getNumIndices() != 1 || !at->getSourceElementType()->isIntegerTy(16) ||
      !load.getType()->isIntegerTy(16))
    return -1;
  auto* base = dyn_cast<LoadInst>(at->getPointerOperand());
  if (base == nullptr) return -1;
  auto* field = dyn_cast<GetElementPtrInst>(base->getPointerOperand());
  Function* step = load.getFunction();
  if (field == nullptr || field->getPointerOperand() != step->getArg(1) ||
      field->getNumIndices() != 1 || !field->getSourceElementType()->isIntegerTy(8))
    return -1;
  auto* offset = dyn_cast<ConstantInt>(field->getOperand(1));
  if (offset == nullptr) return -1;
  index = at->getOperand(1);
  const uint64_t off = offset->getZExtValue();
  if (off == abi::kLocalX) return 0;
  if (off == abi::kLocalY) return 1;
  if (off == abi::kLocalZ) return 2;
  return -1;
}

}  // namespace

unsigned specialise_one_d(const std::vector<BasicBlock*>& blocks) {
  std::vector<std::pair<LoadInst*, int>> reads;
  std::vector<Value*> indices;
  for (BasicBlock* bb : blocks)
    for (Instruction& inst : *bb) {
      auto* load = dyn_cast<LoadInst>(&inst);
      Value* index = nullptr;
      const int table = load != nullptr ? local_table_entry(*load, index) : -1;
      if (table < 0) continue;
      reads.emplace_back(load, table);
      indices.push_back(index);
    }
  for (size_t k = 0; k < reads.size(); ++k) {
    auto [load, table] = reads[k];
    // The entries are widened where they are used: widen the index instead, so that the
    // position stays an affine function of the loop's counter (no 16-bit wrap in between).
    auto position = [&](IRBuilder<>& b, Type* type) -> Value* {
      return table == 0 ? b.CreateZExtOrTrunc(indices[k], type, "local_x.1d")
                        : ConstantInt::get(type, 0);
    };
    for (User* u : make_early_inc_range(load->users()))
      if (auto* widen = dyn_cast<ZExtInst>(u)) {
        IRBuilder<> b(widen);
        widen->replaceAllUsesWith(position(b, widen->getType()));
        widen->eraseFromParent();
      }
    IRBuilder<> b(load);
    load->replaceAllUsesWith(position(b, load->getType()));
    load->eraseFromParent();
  }
  return unsigned(reads.size());
}

}  // namespace metalsim::lanes
