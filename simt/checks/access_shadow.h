#pragma once
// Byte-precise bounds: the shadow that kernels compiled with the access-check pass
// (simt/instrument, docs/checks.md) read before every load and store. One shadow byte describes
// one 16-byte granule of the address space:
//
//   0                     every byte of the granule may be accessed
//   1..15                 only the first N bytes may be (the last granule of an odd-sized buffer
//                         or threadgroup variable)
//   kValidFrom | N        only the bytes from N on may be (a binding that starts inside it)
//   kBeforeBinding        none: bytes of a bound buffer before its bound offset (per dispatch)
//   kUnused               none: memory around buffers and threadgroup memory that nothing owns
//
// The pass's fast path loads the shadow of the granule an access starts in and of the next one
// (and of the one it ends in when it is longer than a granule) and calls the engine
// (access_check.cpp) only when one is not 0. Buffers' contents and threadgroup memory are 16-byte
// aligned, so the shadow is 0 wherever a kernel may read or write but in the last granule of an
// odd-sized buffer or variable, in the first of a binding at an odd offset, and around them.
//
// The shadow covers the 47-bit user address space (8 TiB reserved with MAP_NORESERVE: only the
// pages written or read are backed). Where that reservation fails (ThreadSanitizer's fixed
// memory layout, a limit on virtual memory) the mask is 0 and every access reads one zero word:
// bounds are then the guard pages' alone, and unavailable_reason() says why.
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" {
// Read by instrumented kernels at function entry (names in simt/instrument/access_abi.h).
extern uint8_t* __metalsim_access_shadow;
extern uint64_t __metalsim_access_shadow_mask;
}

namespace metalsim::checks::shadow {

inline constexpr unsigned kGranuleShift = 4;
inline constexpr size_t kGranule = size_t(1) << kGranuleShift;
inline constexpr uint8_t kValidFrom = 0x40;
inline constexpr uint8_t kBeforeBinding = 0xFE;
inline constexpr uint8_t kUnused = 0xFF;

// Reserves the shadow on first use (every function below calls it); true when it is active.
bool active();
// "" when active, else why not.
std::string unavailable_reason();

// [begin, begin + bytes) may be accessed: whole granules become 0, a partial last granule the
// count of its bytes that may be (its tail may not). `begin` is granule-aligned.
void mark_valid(const void* begin, size_t bytes);
// Every granule that [begin, begin + bytes) touches becomes `value`.
void mark(const void* begin, size_t bytes, uint8_t value);
// The granule holding `address` (not granule-aligned): its bytes from `address` on may be
// accessed, those before it not.
void mark_valid_from(const void* address);

// The shadow byte of the granule holding `address`, and setting it (0 when the shadow is not
// active; setting it then does nothing): for those who save a granule's mark and restore it.
uint8_t granule_value(const void* address);
void set_granule_value(const void* address, uint8_t value);

// Whether the shadow of every granule that [address, address + bytes) touches is 0 (true when
// the shadow is not active: the fast path then never calls the engine either).
bool plain(const void* address, size_t bytes);

// Whether the shadow allows every byte of [address, address + bytes): plain(), or exactly where a
// granule is partial (a range that ends in an odd-sized buffer's last granule).
bool allows(const void* address, size_t bytes);

// The first byte of [address, address + bytes) that the shadow does not allow (address + bytes
// when there is none).
const char* first_inaccessible(const void* address, size_t bytes);

}  // namespace metalsim::checks::shadow
