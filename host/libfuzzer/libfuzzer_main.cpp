// The libFuzzer entry points of metalsim-libfuzzer, compiled by clang with
// -fsanitize=fuzzer-no-link (host/libfuzzer/CMakeLists.txt). Everything else (the spec registry,
// the case runner, the mapping of bytes to a case) is the project's own build, reached through
// fuzz_target.h.
//
// Coverage: the kernels and the engine are built by the project's compiler without libFuzzer's
// instrumentation, so the edges of this file alone would tell libFuzzer almost nothing. Each
// input's features (fuzz_target.h: parameter classes and their pairs, schedule, distance to the
// tolerance, failure kind) are counted in libFuzzer's extra counters instead, a section libFuzzer
// reads after every input as it reads its own edge counters.
#include <cstdint>
#include <cstdlib>

#include "host/libfuzzer/fuzz_target.h"

namespace {

constexpr size_t kCounters = 1 << 16;
__attribute__((section("__libfuzzer_extra_counters"), used)) uint8_t extra_counters[kCounters];

void count(const metalsim::libfuzzer::InputResult& r) {
  for (size_t i = 0; i < r.feature_count; ++i) {
    uint8_t& c = extra_counters[r.features[i] % kCounters];
    if (c < 255) ++c;
  }
}

// One function per finding class, never inlined: an engine that groups crashes by their top
// frames (ClusterFuzzLite, OSS-Fuzz) then files a bounds finding apart from a race.
[[noreturn]] __attribute__((noinline)) void metalsim_finding_bounds() { std::abort(); }
[[noreturn]] __attribute__((noinline)) void metalsim_finding_race() { std::abort(); }
[[noreturn]] __attribute__((noinline)) void metalsim_finding_sync() { std::abort(); }
[[noreturn]] __attribute__((noinline)) void metalsim_finding_init() { std::abort(); }
[[noreturn]] __attribute__((noinline)) void metalsim_finding_wrong_result() { std::abort(); }
[[noreturn]] __attribute__((noinline)) void metalsim_finding_other() { std::abort(); }

void report(metalsim::libfuzzer::FindingClass finding) {
  using metalsim::libfuzzer::FindingClass;
  switch (finding) {
    case FindingClass::none: return;
    case FindingClass::bounds: metalsim_finding_bounds();
    case FindingClass::race: metalsim_finding_race();
    case FindingClass::sync: metalsim_finding_sync();
    case FindingClass::init: metalsim_finding_init();
    case FindingClass::wrong_result: metalsim_finding_wrong_result();
    case FindingClass::other: metalsim_finding_other();
  }
  metalsim_finding_other();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  metalsim::libfuzzer::initialize(*argc, *argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const metalsim::libfuzzer::InputResult r = metalsim::libfuzzer::run_input(data, size);
  count(r);
  report(r.finding);
  return 0;
}
