#pragma once
// A metalsim spec or case file as a libFuzzer target: the part the project's compiler builds.
// libfuzzer_main.cpp, compiled by clang with -fsanitize=fuzzer, calls it from
// LLVMFuzzerInitialize and LLVMFuzzerTestOneInput. Only plain types cross between the two, so
// the two compilers need agree on nothing but the C calling convention of these two functions.
#include <cstddef>
#include <cstdint>

namespace metalsim::libfuzzer {

// What kind of failure a finding is. The driver aborts from one function per class, so that an
// engine which groups crashes by their stack (ClusterFuzzLite, OSS-Fuzz) files each class apart.
enum class FindingClass : int {
  none = 0,
  bounds,        // bounds.*, stack.overflow, kernel.fault
  race,          // race.*, mode.divergent
  sync,          // barrier.*, simd.partial, sync.deadlock
  init,          // uninit.*
  wrong_result,  // mismatch, unwritten, non_finite
  other,         // api.*, limit.*, kernel.exception, watchdog.timeout, harness
};

// What one input did. `features`: small numbers that stand for the case's shape (each
// parameter's value class, pairs of them, the schedule, how far the result was from its
// tolerance); the driver marks them as coverage, so libFuzzer keeps inputs that reach new
// corners of the parameter space.
struct InputResult {
  static constexpr size_t kMaxFeatures = 128;
  uint32_t features[kMaxFeatures];
  size_t feature_count = 0;
  FindingClass finding = FindingClass::none;
};

// Reads the target and its options from the arguments libFuzzer leaves alone (those starting
// with "--") and the environment; prints why and exits 2 when they name no target or a bad one.
void initialize(int argc, char** argv);

// Maps the bytes to a case (fuzzer.h's draw_case over ByteDraws), runs it with the checks and,
// on a finding, prints the case, its reports and the `metalsim run` command that reproduces it.
InputResult run_input(const uint8_t* data, size_t size);

}  // namespace metalsim::libfuzzer
