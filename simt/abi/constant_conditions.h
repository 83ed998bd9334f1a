#pragma once
// Conditions on function constants, as the argument-reads pass (simt/instrument/argument_reads.cpp)
// writes them and the engine (simt/engine/argument_reads.cpp) evaluates them with a pipeline's
// values: the branch conditions that hold wherever a kernel compiled before its constants were
// known (a build-time library) uses a binding. Each condition is a small expression over
// constants and function-constant reads, copied from the optimised IR: a table of nodes of
// kNodeWords words each, a node's operands earlier in the table. Header-only and free of the
// engine, so that the pass plugin includes it as the engine does.
#include <cstdint>

namespace metalsim::abi::conditions {

// word 0 of a node: op | width << 8 | (float result ? kFloat : 0) | predicate << 24; words 1-3:
// operands (node indices), or what the op says.
enum class Op : uint8_t {
  Int,       // an integer of `width` bits: word 1 its low 32 bits, word 2 its high; with
             // kFloat, a float or double of `width` bits: words 1, 2 the bits of its double
  Null,      // the null pointer
  Constant,  // engine::function_constant(word 1): the value's bytes, or null when not given
  Offset,    // node word 1, a pointer, plus word 2 bytes
  Load,      // `width` bits (an integer, or a float or double with kFloat) at pointer word 1
  ICmp,      // LLVM's integer predicate (CmpInst::Predicate) of nodes word 1, word 2: 1 bit
  FCmp,      // LLVM's float predicate of nodes word 1, word 2: 1 bit
  Add,       // the integer operations, of `width` bits, on nodes word 1 and word 2
  Sub,
  Mul,
  And,
  Or,
  Xor,
  Shl,
  LShr,
  AShr,
  Trunc,   // node word 1 to `width` bits
  ZExt,    // node word 1, of word 2 bits, to `width` bits
  SExt,    // likewise, sign-extended
  Select,  // node word 1 (1 bit) ? node word 2 : node word 3
  FPCast,  // node word 1, a float or double, to the float type of `width` bits
  SIToFP,  // node word 1, a signed integer of word 2 bits, to the float type of `width` bits
  UIToFP,  // likewise, unsigned
};

// LLVM's CmpInst::Predicate numbers (the pass checks them against LLVM's). Float predicates
// 0-15: ordered 1 OEQ, 2 OGT, 3 OGE, 4 OLT, 5 OLE, 6 ONE, 7 ORD; unordered 8 UNO, 9 UEQ, 10 UGT,
// 11 UGE, 12 ULT, 13 ULE, 14 UNE: bit 0 "equal", bit 1 "greater", bit 2 "less", bit 3
// "unordered".
enum Predicate : uint32_t {
  kFcmpFalse = 0,
  kFcmpTrue = 15,
  kIcmpEq = 32,  // then in order: ne, ugt, uge, ult, ule, sgt, sge, slt, sle
  kIcmpNe,
  kIcmpUgt,
  kIcmpUge,
  kIcmpUlt,
  kIcmpUle,
  kIcmpSgt,
  kIcmpSge,
  kIcmpSlt,
  kIcmpSle
};

inline constexpr uint32_t kNodeWords = 4;
inline constexpr uint32_t kFloat = 1U << 16;
inline constexpr uint32_t word0(Op op, uint32_t width, bool is_float = false,
                                uint32_t predicate = 0) {
  return uint32_t(op) | (width << 8) | (is_float ? kFloat : 0) | (predicate << 24);
}

// What an absent argument points at (host/src/dispatch_translation.cpp): this many bytes of
// read-only zeros per buffer index, so that a load the kernel makes from it and then does not use
// (Clang hoists a `constant T&`'s loads above the branch that uses them) reads 0.
inline constexpr uint32_t kAbsentBytes = 64 * 1024;

// The bytes of abi::BoundArgs that hold the buffer bindings (its first member, `buffers`: the
// engine checks it): only a buffer has such zeros when absent.
inline constexpr uint32_t kBufferBindingBytes = 31 * 8;

// In a read range's condition word: read whatever the constants (no condition known).
inline constexpr uint32_t kAlways = 0xffffffffU;
// An atom of a guard: node << 1 | the value (0 or 1) the node has wherever the use runs.

}  // namespace metalsim::abi::conditions
