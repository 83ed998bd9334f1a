#include "simt/instrument/shadow_span.h"

#include <llvm/IR/Intrinsics.h>

#include "simt/instrument/access_abi.h"

namespace metalsim::instrument {

using namespace llvm;

ShadowGlobals load_shadow_globals(IRBuilder<>& b, Module& m, bool race) {
  auto* nosanitize = MDNode::get(m.getContext(), {});
  auto load = [&](const char* name, Type* type) {
    LoadInst* l = b.CreateLoad(type, m.getOrInsertGlobal(name, type), name);
    l->setMetadata(LLVMContext::MD_nosanitize, nosanitize);
    return l;
  };
  Value* shadow = load(abi::kShadow, b.getPtrTy());
  Value* mask = load(abi::kShadowMask, b.getInt64Ty());
  Value* every = race ? b.CreateICmpNE(load(abi::kEvery, b.getInt32Ty()), b.getInt32(0), "every")
                      : static_cast<Value*>(b.getFalse());
  return {shadow, mask, every};
}

Value* span_plain(IRBuilder<>& b, const ShadowGlobals& g, Value* lowest, Value* end,
                  uint64_t max_bytes) {
  const uint64_t shift = abi::kGranuleShift;
  // Granules the span can touch at most, from any offset in its first: the words to read.
  const uint64_t most = (max_bytes + 2 * abi::kGranule - 2) / abi::kGranule;
  const uint64_t words = (most + 7) / 8;
  Value* first = b.CreateLShr(lowest, shift);
  Value* granules = b.CreateAdd(
      b.CreateSub(b.CreateLShr(b.CreateSub(end, b.getInt64(1)), shift), first), b.getInt64(1));
  Value* at = b.CreateGEP(b.getInt8Ty(), g.shadow, b.CreateAnd(first, g.mask));
  auto* nosanitize = MDNode::get(b.getContext(), {});
  // Word w at min(8 w, granules - 8): where the span has 8 granules or more, every word lies
  // within them (the last overlapping the one before), so no word needs a mask and together
  // they cover the span. Where it has fewer, every word is the first, masked to the span's
  // granules (little-endian: the first granule's byte is the lowest).
  Value* last_word =
      b.CreateBinaryIntrinsic(Intrinsic::smax, b.CreateSub(granules, b.getInt64(8)), b.getInt64(0));
  Value* any = b.getInt64(0);
  for (uint64_t w = 0; w < words; ++w) {
    Value* offset = w == 0 ? b.getInt64(0)
                           : b.CreateBinaryIntrinsic(Intrinsic::umin, b.getInt64(8 * w), last_word);
    LoadInst* word =
        b.CreateAlignedLoad(b.getInt64Ty(), b.CreateGEP(b.getInt8Ty(), at, offset), Align(1));
    word->setMetadata(LLVMContext::MD_nosanitize, nosanitize);
    any = b.CreateOr(any, word);
  }
  Value* bits = b.CreateShl(granules, b.getInt64(3));
  Value* low_bytes = b.CreateSelect(b.CreateICmpUGE(granules, b.getInt64(8)), b.getInt64(~0ULL),
                                    b.CreateSub(b.CreateShl(b.getInt64(1), bits), b.getInt64(1)));
  any = b.CreateAnd(any, low_bytes);
  return b.CreateICmpEQ(any, b.getInt64(0));
}

}  // namespace metalsim::instrument
