#include "simt/lanes/state_abi.h"

namespace metalsim::lanes::abi {

using namespace llvm;

Value* field_address(IRBuilder<>& b, Value* state, uint64_t offset, const Twine& name) {
  return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state, offset, name + ".addr");
}

LoadInst* load_field(IRBuilder<>& b, Value* state, uint64_t offset, Type* type, const Twine& name) {
  return b.CreateLoad(type, field_address(b, state, offset, name), name);
}

}  // namespace metalsim::lanes::abi
