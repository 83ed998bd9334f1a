#pragma once
// What instrumented code calls and reads in the engine (simt/checks/access_check.h,
// simt/checks/access_shadow.h): names, flags and the shadow's granule, taken from the engine's
// own headers so that the two cannot drift.
#include <cstdint>

#include "simt/checks/access_check.h"
#include "simt/checks/access_shadow.h"

namespace metalsim::instrument::abi {

inline constexpr const char* kShadow = "__metalsim_access_shadow";           // uint8_t*
inline constexpr const char* kShadowMask = "__metalsim_access_shadow_mask";  // uint64_t
inline constexpr const char* kEvery = "__metalsim_access_every";             // uint32_t
inline constexpr const char* kAccess = "__metalsim_access";  // void(ptr, i64 bytes, i32 flags)
// void(ptr, i32 element bytes, i64 mask, i32 flags)
inline constexpr const char* kAccessMasked = "__metalsim_access_masked";
// i32(ptr start, i64 bytes, then (i64 step, i64 last) for each of 3 loops): 1 when plain
inline constexpr const char* kAccessRange = "__metalsim_access_range";
// i32(i64 start, (i64 step, i64 last) x 3, i64 lowest, i64 highest): 1 when a loop index stays
// in [lowest, highest]
inline constexpr const char* kIndexFits = "__metalsim_index_fits";
// {i64 lowest, i64 highest} (const void* first, i64 stride, u64 last, u32 bytes): the least and
// greatest of the values at first + k * stride, 0 <= k <= last (scev_interval.h).
inline constexpr const char* kValueBounds = "__metalsim_value_bounds";

inline constexpr unsigned kGranuleShift = checks::shadow::kGranuleShift;
inline constexpr uint64_t kGranule = checks::shadow::kGranule;
inline constexpr uint32_t kValidFrom = checks::shadow::kValidFrom;
inline constexpr uint32_t kWrite = checks::access::kWrite;
inline constexpr uint32_t kAtomic = checks::access::kAtomic;

}  // namespace metalsim::instrument::abi
