#pragma once
// The planted-bug table: one row per planted kernel (tests/check/planted/*.metal), with the
// report it must produce. Lines are never written here: the row names the marker comment
// (`// PLANT: <kernel>`, `// PLANT2: <kernel>` for the other site) and the test finds its line by
// scanning the .metal file, so the expectation follows the file.
//
// Check ids are strings, not CheckId enumerators, so rows can name checks that the table in
// simt/report/check_id.h does not have yet; such rows are skipped with the reason.
#include <cstdint>
#include <fstream>
#include <string>

#include "simt/abi/geometry.h"
#include "simt/report/check_id.h"

namespace metalsim::testing::planted {

// How the finding is made: the engine or the host files it (a report on the command buffer),
// the test compares schedules (race.schedule, always available), the test poisons outputs
// (uninit.output), or the race check does (race.threadgroup / race.device: the shadow racecheck
// of the access-check pass in builds with it, ThreadSanitizer in the tsan preset).
enum class Finder : uint8_t { engine, schedules, poison, race };

struct Expectation {
  const char* kernel;
  const char* check;  // "bounds.device"
  Finder finder;
  const char* file;             // the .metal file under tests/check/planted
  const char* bug;              // in words, for docs/checks_planted.md
  bool has_lane;                // the report names a thread
  metalsim::Size3 threadgroup;  // threadgroup_position_in_grid
  metalsim::Size3 thread;       // thread_position_in_threadgroup
  bool has_line;                // the report names the PLANT line
  uint32_t line_slack;          // the reported line may be up to this many lines after the marker
  bool other_line;              // the report also names the PLANT2 line (other_site)
  const char* memory;           // substring of Report::memory, or nullptr
  int64_t offset;               // Report::offset in bytes (negative: before the binding), or
                                // kAnyOffset
  // Report::severity(): "error" (the command buffer ends in error) or "warning" (barrier.exited:
  // the dispatch completes, the report kept; an error under ExecutionOptions::strict).
  const char* severity = "error";
};

inline constexpr int64_t kAnyOffset = -1;

constexpr metalsim::Size3 tg0{0, 0, 0};
constexpr metalsim::Size3 any{0, 0, 0};

// clang-format off
inline constexpr Expectation kTable[] = {
  // 1. bounds.device: 64 floats (256 bytes); 2 threadgroups of 32.
  {"planted_oob_device_read", "bounds.device", Finder::engine, "bounds_device.metal",
   "reads in[gid + 1]: the last thread reads one element past the end",
   true, {1, 0, 0}, {31, 0, 0}, true, 0, false, "buffer(0)", 256},
  {"planted_oob_in_header", "bounds.device", Finder::engine, "kernel_in_header.h",
   "the same read in a template kernel's body in a header that the .metal file instantiates "
   "(MLX's way): the report names the header's line",
   true, {1, 0, 0}, {31, 0, 0}, true, 0, false, "buffer(0)", 256},
  {"planted_oob_device_write", "bounds.device", Finder::engine, "bounds_device.metal",
   "2-D store with row pitch width + 1: row 3 runs past the end",
   true, tg0, {13, 3, 0}, true, 0, false, "buffer(0)", 256},
  // Byte-precise (the access shadow, docs/checks.md): a 101-float buffer bound at offset 4,
  // 4 threadgroups of 25 threads.
  {"planted_oob_offset_read", "bounds.device", Finder::engine, "bounds_device.metal",
   "a 101-float buffer bound at byte offset 4 (100 floats); the last thread reads in[gid + 1], "
   "4 bytes past the buffer's end and 12 before its guard page",
   true, {3, 0, 0}, {24, 0, 0}, true, 0, false, "buffer(0)", 400},
  {"planted_oob_before_offset", "bounds.device", Finder::engine, "bounds_device.metal",
   "the same binding; thread 0 reads in[-1], the buffer's first 4 bytes, before the bound offset "
   "(under strict: they are the buffer's, which Metal allows)",
   true, tg0, {0, 0, 0}, true, 0, false, "buffer(0)", -4},
  {"planted_oob_bytes_read", "bounds.device", Finder::engine, "bounds_device.metal",
   "setBytes of 3 floats (12 bytes); thread 3 of 4 reads coeffs[3]",
   true, tg0, {3, 0, 0}, true, 0, false, "buffer(0)", 12},
  {"planted_oob_packed_read", "bounds.device", Finder::engine, "bounds_device.metal",
   "setBytes of two packed_float3 (24 bytes) read by 3 threads: thread 1's 12-byte load crosses "
   "into the partial last granule and is allowed, thread 2's is past the end",
   true, tg0, {2, 0, 0}, true, 0, false, "buffer(0)", 24},
  // Loops whose range test the access-check pass hoists (docs/checks.md): the same 101-float
  // buffer at offset 4; the range fails at its far end and the per-access tests name the access.
  {"planted_oob_loop_last", "bounds.device", Finder::engine, "bounds_loops.metal",
   "4 threads each sum their 25 floats with i <= n: thread 3's last iteration reads in[100], "
   "4 bytes past the end",
   true, tg0, {3, 0, 0}, true, 0, false, "buffer(0)", 400},
  {"planted_oob_strided_far_end", "bounds.device", Finder::engine, "bounds_loops.metal",
   "32 threads stride over 100 floats with i <= n: thread 4 reads in[100] at its stride's far end",
   true, tg0, {4, 0, 0}, true, 0, false, "buffer(0)", 400},
  {"planted_oob_strided_store", "bounds.device", Finder::engine, "bounds_loops.metal",
   "32 threads scale 100 floats in place with i <= n, a loop that stores and runs across lanes: "
   "thread 4 writes data[100] at its stride's far end",
   true, tg0, {4, 0, 0}, true, 0, false, "buffer(0)", 400},
  {"planted_oob_nested_last_row", "bounds.device", Finder::engine, "bounds_loops.metal",
   "4 threads each sum 5 rows of 5 floats with row <= rows: thread 3's last row starts at "
   "in[100]",
   true, tg0, {3, 0, 0}, true, 0, false, "buffer(0)", 400},
  {"planted_oob_rounds_last", "bounds.device", Finder::engine, "bounds_loops.metal",
   "one simdgroup sums 100 floats in rounds of 32 with a simd_sum each, up to and with index "
   "100: lane 4 reads in[100] in the last round",
   true, tg0, {4, 0, 0}, true, 0, false, "buffer(0)", 400},
  // 2. bounds.threadgroup: 64 floats of threadgroup memory, threadgroups of 64.
  {"planted_oob_tg_region", "bounds.threadgroup", Finder::engine, "bounds_threadgroup.metal",
   "scratch[tid + 1] in a 256-byte [[threadgroup(0)]] region",
   true, tg0, {63, 0, 0}, true, 0, false, "threadgroup(0)", 256},
  {"planted_oob_tg_array", "bounds.threadgroup", Finder::engine, "bounds_threadgroup.metal",
   "sentinel at tile[(tid + 1) * 128] in a kernel-scope threadgroup float tile[8192] (32 KiB)",
   true, tg0, {63, 0, 0}, true, 0, false, "threadgroup variable 'tile'", 32768},
  {"planted_oob_tg_small_array", "bounds.threadgroup", Finder::engine, "bounds_threadgroup.metal",
   "tile[tid * 2] in a kernel-scope threadgroup float tile[64]: each kernel-scope variable ends at a guard page",
   true, tg0, {32, 0, 0}, true, 0, false, "threadgroup variable 'tile'", 256},
  {"planted_oob_tg_odd_array", "bounds.threadgroup", Finder::engine, "bounds_threadgroup.metal",
   "small[min(tid, 5)] in a kernel-scope threadgroup float small[5] (20 bytes): thread 5 reads "
   "the 4 bytes past its end, inside its last 16-byte granule",
   true, tg0, {5, 0, 0}, true, 0, false, "threadgroup variable 'small'", 20},
  // bounds.private: float local[8] in each of 16 threads (bounds_private.metal). Lane loops name
  // the lanes that were running, not the thread.
  {"planted_private_write_past_end", "bounds.private", Finder::engine, "bounds_private.metal",
   "local[min(tid, 8)] = 1 in a float local[8]: threads 8..15 write one past the end",
   true, tg0, {8, 0, 0}, true, 0, false, "thread array 'local'", kAnyOffset},
  {"planted_private_read_past_end", "bounds.private", Finder::engine, "bounds_private.metal",
   "out = local[min(tid, 8)]: threads 8..15 read one past the end",
   true, tg0, {8, 0, 0}, true, 0, false, "thread array 'local'", kAnyOffset},
  {"planted_private_negative_index", "bounds.private", Finder::engine, "bounds_private.metal",
   "local[tid % 8 - 1] = 2: thread 0 writes local[-1]",
   true, tg0, {0, 0, 0}, true, 0, false, "thread array 'local'", kAnyOffset},
  {"planted_private_loop_past_end", "bounds.private", Finder::engine, "bounds_private.metal",
   "for (i = 0; i <= 8; ++i) local[i] = ...: every thread writes local[8] (MLX's layer_norm; at "
   "-O2 the store is deleted as undefined behaviour)",
   true, tg0, {0, 0, 0}, true, 0, false, "thread array 'local'", kAnyOffset},
  // bounds.texture: 16x4 RGBA32Float textures, one threadgroup of 16x4.
  {"planted_texture_read_past_width", "bounds.texture", Finder::engine, "bounds_texture.metal",
   "src.read(gid.x + 1, gid.y): the last column reads one pixel past the width",
   true, tg0, {15, 0, 0}, true, 0, false, "texture(0) 'src'", kAnyOffset},
  {"planted_texture_write_past_height", "bounds.texture", Finder::engine, "bounds_texture.metal",
   "a vertical flip writing row h - y: row 0 writes one row past the height",
   true, tg0, {0, 0, 0}, true, 0, false, "texture(1) 'dst'", kAnyOffset},
  // 3. race on threadgroup memory (missing barrier): schedules, then TSan.
  {"planted_race_tg_reverse", "race.schedule", Finder::schedules, "race_threadgroup.metal",
   "tile[tid] = in; out = tile[n - 1 - tid] with no barrier between",
   true, tg0, {0, 0, 0}, false, 0, false, "buffer(1)", 0},
  {"planted_race_tg_reduce", "race.schedule", Finder::schedules, "race_threadgroup.metal",
   "tree reduction without the barrier inside the loop",
   true, tg0, {0, 0, 0}, false, 0, false, "buffer(1)", 0},
  // The shadow racecheck (one worker, in order): thread 32 reads tile[31] (marker) after thread
  // 31 wrote it (and writes tile[32], which thread 31 read: a second report).
  {"planted_race_tg_reverse", "race.threadgroup", Finder::race, "race_threadgroup.metal",
   "tile[tid] = in; out = tile[n - 1 - tid] with no barrier between",
   true, tg0, {32, 0, 0}, true, 0, true, "threadgroup variable 'tile'", 31 * 4},
  {"planted_race_tg_reduce", "race.threadgroup", Finder::race, "race_threadgroup.metal",
   "tree reduction without the barrier inside the loop",
   // The loop line (marker) or its body: the optimiser merges the two. Thread 1 adds into
   // sums[1] after thread 0 read it (s = 1).
   true, tg0, {1, 0, 0}, true, 1, false, "threadgroup variable 'sums'", 4},
  {"planted_race_tg_write_write", "race.threadgroup", Finder::race, "race_threadgroup.metal",
   "pairs[tid] = ...; pairs[(tid + 1) % n] = ... with no barrier: threads 0 and 1 both write pairs[1]",
   true, tg0, {1, 0, 0}, true, 0, true, "threadgroup variable 'pairs'", 4},
  // A kernel's body in a header (MLX's way): the report names the header's line.
  {"planted_race_in_header", "race.threadgroup", Finder::race, "kernel_in_header.h",
   "a template kernel in a header stores each thread's pair at tile[min(tid, 7)]: threads 7 and 8 "
   "both write tile[7]",
   true, tg0, {8, 0, 0}, true, 0, false, "threadgroup variable 'tile'", 7 * 8},
  // 4. two threadgroups write one device element: schedules, then TSan.
  {"planted_race_device_same_element", "race.schedule", Finder::schedules, "race_device.metal",
   "every threadgroup stores its index into out[0]",
   false, tg0, any, false, 0, false, "buffer(0)", 0},
  {"planted_race_device_ticket", "race.schedule", Finder::schedules, "race_device.metal",
   "non-atomic counter[0] = counter[0] + 1 shared by all threadgroups",
   false, tg0, any, false, 0, false, "buffer(1)", 0},
  {"planted_race_device_same_element", "race.device", Finder::race, "race_device.metal",
   "every threadgroup stores its index into out[0]",
   true, {1, 0, 0}, {0, 0, 0}, true, 0, false, "buffer(0)", 0},
  {"planted_race_device_ticket", "race.device", Finder::race, "race_device.metal",
   "non-atomic counter[0] = counter[0] + 1 shared by all threadgroups",
   // The read (marker) or the write after it, whichever TSan sees second.
   true, {1, 0, 0}, {0, 0, 0}, true, 1, false, "buffer(0)", 0},
  {"planted_race_device_same_value", "race.device", Finder::race, "race_device.metal",
   "every threadgroup sets flag[0] = 1: the same result in every order (no schedule shows it)",
   true, {1, 0, 0}, {0, 0, 0}, true, 0, true, "buffer(0)", 0},
  {"planted_race_device_lanes", "race.device", Finder::race, "race_device.metal",
   "data[gid] = ...; out[gid] = data[neighbour] with no barrier: thread 1 writes what thread 0 read",
   true, tg0, {1, 0, 0}, true, 0, true, "buffer(0)", 4},
  // race.dispatch (issue 28 item 3): two dispatches Metal may overlap, the producer writing mid
  // and the consumer reading it, no barrier between; run in order, the consumer's read (thread 0
  // of threadgroup 0) conflicts with the producer's write (PLANT2). Controls, the reversed order
  // and lane loops: planted_dispatch_test.cpp.
  {"planted_dispatch_consumer", "race.dispatch", Finder::race, "race_dispatch.metal",
   "a concurrent encoder's producer writes mid, its consumer reads it, no memoryBarrier between",
   true, tg0, {0, 0, 0}, true, 0, true, "buffer(0) 'mid'", 0},
  {"planted_icb_consumer", "race.dispatch", Finder::race, "race_dispatch.metal",
   "an indirect command buffer's producer command writes mid, the next command reads it, no setBarrier",
   true, tg0, {0, 0, 0}, true, 0, true, "buffer(0) 'mid'", 0},
  // 5. barrier.exited: a portability warning (Apple GPUs run such kernels to their end): the
  // report names the first thread waiting at the barrier, and the dispatch completes.
  {"planted_barrier_after_return", "barrier.exited", Finder::engine, "barrier_exited.metal",
   "if (gid >= n) return; before a threadgroup_barrier (n = 48, threadgroup of 64)",
   true, tg0, {0, 0, 0}, true, 0, false, nullptr, -1, "warning"},
  {"planted_barrier_return_in_loop", "barrier.exited", Finder::engine, "barrier_exited.metal",
   "odd threads return in the third pass of a loop ending in a barrier",
   true, tg0, {0, 0, 0}, true, 0, false, nullptr, -1, "warning"},
  // 6. barrier.divergent: both barrier lines.
  {"planted_divergent_if_else", "barrier.divergent", Finder::engine, "barrier_divergent.metal",
   "a threadgroup_barrier in each arm of if (tid < 16)",
   true, tg0, {0, 0, 0}, true, 0, true, nullptr, -1},
  {"planted_divergent_data", "barrier.divergent", Finder::engine, "barrier_divergent.metal",
   "a barrier inside if (in[gid] > 0) and another after it",
   true, tg0, {0, 0, 0}, true, 0, true, nullptr, -1},
  // 7. simd.partial: simdgroup_matrix operations reached by part of the simdgroup.
  {"planted_simd_partial_multiply", "simd.partial", Finder::engine, "simd_partial.metal",
   "simdgroup_multiply inside if (lane < 16)",
   true, tg0, {0, 0, 0}, true, 0, false, nullptr, -1},
  {"planted_simd_partial_load", "simd.partial", Finder::engine, "simd_partial.metal",
   "simdgroup_load inside if (flags[lane] != 0), flags set for lanes 4..31",
   true, tg0, {4, 0, 0}, true, 0, false, nullptr, -1},
  // 8. uninit.threadgroup (initcheck).
  {"planted_uninit_tg_partial_fill", "uninit.threadgroup", Finder::engine, "uninit_threadgroup.metal",
   "threads 0..15 fill tile[64]; every thread reads tile[tid]",
   true, tg0, {16, 0, 0}, true, 0, false, nullptr, -1},
  {"planted_uninit_tg_region_accumulate", "uninit.threadgroup", Finder::engine, "uninit_threadgroup.metal",
   "acc[tid] += in[gid] on a [[threadgroup(0)]] region never cleared",
   true, tg0, {0, 0, 0}, true, 0, false, nullptr, -1},
  // 8b. Reports made inside metalsim's MSL headers (kThroughLibrary): the PLANT line is the
  // kernel's call of the library. The lane is the one the engine ran the collective's combine
  // for, not asserted.
  {"planted_uninit_simdgroup_load", "uninit.threadgroup", Finder::engine, "through_library.metal",
   "threads 0..31 fill half of a threadgroup float tile[64]; simdgroup_load reads all of it",
   false, tg0, any, true, 0, false, nullptr, -1},
  {"planted_oob_simdgroup_load", "bounds.device", Finder::engine, "through_library.metal",
   "simdgroup_load of an 8x8 block from element 8 of a 64-float buffer",
   false, tg0, any, true, 0, false, "buffer(0)", 256},
  {"planted_race_simdgroup_load", "race.threadgroup", Finder::race, "through_library.metal",
   "simdgroup 0 fills a tile that simdgroup 1 reads with simdgroup_load, no barrier between",
   true, tg0, {32, 0, 0}, true, 0, true, "threadgroup variable 'tile'", 0},
  // 9. uninit.output: the offset is the first unwritten element's byte offset.
  {"planted_uninit_output_guard", "uninit.output", Finder::poison, "uninit_output.metal",
   "if (gid < n - 1): out[n - 1] is never written",
   false, tg0, any, false, 0, false, "buffer(1)", 63 * 4},
  {"planted_uninit_output_stride", "uninit.output", Finder::poison, "uninit_output.metal",
   "writes out[2 * gid] only: every odd element is never written",
   false, tg0, any, false, 0, false, "buffer(1)", 1 * 4},
  // 10. limit.threadgroup_memory (validation at commit: no thread).
  {"planted_limit_tg_dynamic", "limit.threadgroup_memory", Finder::engine, "limit_threadgroup_memory.metal",
   "setThreadgroupMemoryLength(40960, 0)",
   false, tg0, any, false, 0, false, nullptr, -1},
  {"planted_limit_tg_static", "limit.threadgroup_memory", Finder::engine, "limit_threadgroup_memory.metal",
   "threadgroup float big[6144] (24 KiB) plus a 12 KiB [[threadgroup(0)]] region",
   false, tg0, any, false, 0, false, nullptr, -1},
  // 11, 12. API misuse (validation at commit: no thread, no line).
  {"planted_api_copy", "api.unbound_buffer", Finder::engine, "api_binding.metal",
   "[[buffer(1)]] never set",
   false, tg0, any, false, 0, false, nullptr, -1},
  {"planted_api_scale", "api.unbound_buffer", Finder::engine, "api_binding.metal",
   "setThreadgroupMemoryLength for [[threadgroup(0)]] never called",
   false, tg0, any, false, 0, false, nullptr, -1},
  {"planted_api_copy", "api.offset", Finder::engine, "api_binding.metal",
   "setBuffer(out, 512, 1) on a 256-byte buffer",
   false, tg0, any, false, 0, false, nullptr, -1},
  {"planted_api_scale", "api.offset", Finder::engine, "api_binding.metal",
   "setBuffer(in, 4, 0) for a device float4* (16-byte alignment)",
   false, tg0, any, false, 0, false, nullptr, -1},
  // 13. stack.overflow.
  {"planted_stack_recursion", "stack.overflow", Finder::engine, "stack_overflow.metal",
   "unbounded recursion with a 512-byte frame on thread 5",
   // The fault lands anywhere in the recursing function, from its prologue (line of the
   // marker) to its body.
   true, tg0, {5, 0, 0}, true, 5, false, nullptr, -1},
  {"planted_stack_big_array", "stack.overflow", Finder::engine, "stack_overflow.metal",
   "a 384 KiB local array in every thread (the stack is 256 KiB): thread 0, the first to run, "
   "overflows (the marker is on the signature; the fault lands between it and the array's loop)",
   true, tg0, {0, 0, 0}, true, 6, false, nullptr, -1},
  // 13b. kernel.fault: a division by zero (SIGFPE). Lane loops do not know which lane of the
  // loop trapped, so the row asks for the line only.
  {"planted_divide_by_zero", "kernel.fault", Finder::engine, "kernel_fault.metal",
   "(tid + 100) % divisors[tid] with divisors[9] = 0",
   false, tg0, any, true, 0, false, nullptr, -1},
  // 14. watchdog.timeout (watchdog 0.3 s).
  {"planted_watchdog_spin", "watchdog.timeout", Finder::engine, "watchdog.metal",
   "thread 3 spins on a flag nobody sets",
   true, tg0, {3, 0, 0}, true, 0, false, nullptr, -1},
  {"planted_watchdog_step", "watchdog.timeout", Finder::engine, "watchdog.metal",
   "for (i = 0; i != 9; i += 2) on thread 7",
   true, tg0, {7, 0, 0}, true, 0, false, nullptr, -1},
};
// clang-format on

// Rows whose report is made inside metalsim's MSL headers: the report must name the PLANT line
// (the kernel's call) and, as a second line, this header of simt/include.
struct ThroughLibrary {
  const char* kernel;
  const char* header;
};

inline constexpr ThroughLibrary kThroughLibrary[] = {
    {"planted_uninit_simdgroup_load", "simdgroup_matrix.h"},
    {"planted_oob_simdgroup_load", "simdgroup_matrix.h"},
    {"planted_race_simdgroup_load", "simdgroup_matrix.h"},
};

// The header a report of `kernel` must name, or nullptr.
inline const char* library_header(const std::string& kernel) {
  for (const ThroughLibrary& t : kThroughLibrary)
    if (kernel == t.kernel) return t.header;
  return nullptr;
}

// bounds.private rows: the element index each report must name.
struct PrivateIndex {
  const char* kernel;
  int64_t index;
};

inline constexpr PrivateIndex kPrivateIndex[] = {
    {"planted_private_write_past_end", 8},
    {"planted_private_read_past_end", 8},
    {"planted_private_negative_index", -1},
    {"planted_private_loop_past_end", 8},
};

// The line of `// <marker>: <kernel>` in the planted .metal file, 0 if absent.
inline uint32_t marker_line(const std::string& file, const std::string& kernel,
                            const std::string& marker = "PLANT") {
  std::ifstream in(std::string(METALSIM_PLANTED_DIR) + "/" + file);
  const std::string needle = "// " + marker + ": " + kernel;
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    const size_t at = line.find(needle);
    if (at == std::string::npos) continue;
    const size_t end = at + needle.size();
    if (end == line.size() || line[end] == ' ') return n;  // not a prefix of a longer name
  }
  return 0;
}

}  // namespace metalsim::testing::planted
