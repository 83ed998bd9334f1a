#pragma once
// An inline test of the access shadow (simt/checks/access_shadow.h) over a short span of bytes,
// shared by the hoisted range tests (loop_ranges.h) and the grouped tests of neighbouring
// accesses (access_pass.cpp): whether every granule that [lowest, end) touches has shadow 0,
// read as at most kSpanWords unaligned 8-byte words of shadow, overlapping where the span does not
// fill them (shadow_span.cpp says how). No call: a few instructions per word.
#include <cstdint>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Value.h>

namespace metalsim::instrument {

// The widest span the test reads: 8 words of shadow cover 64 granules, which a span of up to
// 992 bytes touches from any offset in its first granule. (4 words, 480 bytes, left a row of 128
// floats, head dimension 128, to a call of the engine per lane and loop: 1 M calls in one
// decode-attention dispatch.) A span of a constant size reads only the words it needs. The shadow
// has a page of slack past its end, and the zero shadow 64 bytes, for the widest read.
inline constexpr uint64_t kSpanWords = 8;
inline constexpr uint64_t kMaxSpanBytes = (8 * kSpanWords - 2) * 16;

// What every test of one function reads of the engine, loaded once where the builder stands
// (the function's entry; marked nosanitize). `race` off (the pass's switch, to measure its cost):
// `every` is false and __metalsim_access_every is not read.
struct ShadowGlobals {
  llvm::Value* shadow;  // ptr: __metalsim_access_shadow
  llvm::Value* mask;    // i64: __metalsim_access_shadow_mask
  llvm::Value* every;   // i1: a racecheck dispatch runs
};
ShadowGlobals load_shadow_globals(llvm::IRBuilder<>& b, llvm::Module& m, bool race);

// i1: the shadow of every granule of [lowest, end) is 0. `lowest` and `end` are i64 addresses
// with end - lowest at most `max_bytes` (<= kMaxSpanBytes), which the caller guarantees or tests.
llvm::Value* span_plain(llvm::IRBuilder<>& b, const ShadowGlobals& g, llvm::Value* lowest,
                        llvm::Value* end, uint64_t max_bytes);

}  // namespace metalsim::instrument
