#pragma once
// Fuzzing: random valid cases biased to boundaries, and shrinking a failure to a minimal case.
//
// Case k of a campaign depends only on (spec, seed, k): generating it needs no earlier case,
// so shards and time-bounded runs see the same cases a plain run does.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "host/cli/case_selection.h"
#include "kernels/spec/inputs.h"

namespace metalsim::cli {

struct FuzzCase {
  size_t index = 0;
  Params params;      // completed and valid
  uint64_t seed = 1;  // inputs
  metalsim::SchedulePolicy schedule;
  size_t over_budget = 0;  // draws of this index thrown away as over the memory budget
  bool found = true;       // false: no draw fitted (params is a sweep case instead)
};

// Where a campaign draws from: parameters no larger than `limit` (> 0; choices exempt), cases
// whose memory (case_memory_bytes under `options`) fits in `max_bytes` (> 0; draws over it are
// counted as over the budget) and whose own size (case_size_bytes) fits in `size_bytes` (> 0; a
// size cap, not a limit of the machine: draws over it are drawn again without being counted).
struct DrawLimits {
  int64_t limit = 0;
  uint64_t max_bytes = 0;
  metalsim::ExecutionOptions options;
  uint64_t size_bytes = 0;
};

// A case's own bytes: its buffers and the spec's host copies (its footprint), without the
// run's fixed cost (the process's baseline, each worker's stacks and arena: over 100 MiB on two
// cores, which a size cap of a few MiB must not count). 0 when the spec gives no footprint.
uint64_t case_size_bytes(const KernelSpec& spec, const Params& params);

// Case k's limits in a campaign (--cases or --time), with s the trailing zero bits of k + 1:
// a size cap of 16 MiB << s (none once s reaches 20) and parameter values at most 64 << 2s
// (within `limit`; none once s reaches 10). Half the cases are at most 16 MiB with values up to
// 64, a quarter 32 MiB and 256, ..., case 31 the first with values up to 65,536: small cases
// first and large ones rarely, so every kernel finishes cases early in a short campaign,
// failures shrink from small cases, and a case of minutes (softmax's 65,536 rows of 1,023
// threads took 47 s on two cores, whatever its bytes) stays rare.
DrawLimits ramped(DrawLimits limits, size_t k);

// Where a case's random choices come from. A campaign draws them from a seeded generator
// (RandomDraws); a libFuzzer target reads them from its input bytes (ByteDraws), so both map to
// cases through the same parameter definitions and the same draw_case.
class DrawSource {
 public:
  virtual ~DrawSource() = default;
  virtual uint64_t below(uint64_t n) = 0;  // in [0, n) (0 when n is 1)
  virtual double unit() = 0;               // in [0, 1)
};

// The campaign's draws: exactly the generator's own sequence (next_u64() % n, uniform(0, 1)),
// so a seed gives the cases it always gave.
class RandomDraws : public DrawSource {
 public:
  explicit RandomDraws(spec::InputGenerator& rng) : rng_(&rng) {}
  // Draws even when n is 1: a spec with one choice keeps the sequence it always had.
  uint64_t below(uint64_t n) override { return rng_->next_u64() % std::max<uint64_t>(n, 1); }
  double unit() override { return rng_->uniform(0.0, 1.0); }

 private:
  spec::InputGenerator* rng_;
};

// The draws of a byte string (a libFuzzer input): below(n) reads just enough bytes for n values
// (big-endian, then modulo n), unit() reads two bytes. Past the end every read is 0: the empty
// input is the smallest case (each parameter at its least favoured value, input seed 1,
// in-order), and bytes a mutation appends only refine the last choices.
class ByteDraws : public DrawSource {
 public:
  ByteDraws(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t below(uint64_t n) override;
  double unit() override;
  size_t consumed() const { return pos_; }

 private:
  uint64_t read(size_t bytes);
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// One case drawn from `draws`: the parameters (redrawn up to 200 times while valid() or the
// limits refuse them, then a sweep case: `index` picks which), the input seed, the schedule.
FuzzCase draw_case(const KernelSpec& spec, DrawSource& draws, const DrawLimits& limits,
                   size_t index = 0);

class CaseGenerator {
 public:
  CaseGenerator(const KernelSpec& spec, uint64_t seed, DrawLimits limits = {})
      : spec_(&spec), seed_(seed), limits_(std::move(limits)) {}
  FuzzCase generate(size_t index) const;

 private:
  const KernelSpec* spec_;
  uint64_t seed_;
  DrawLimits limits_;
};

// The values a parameter is pushed towards: its boundaries and their neighbours, 1, min and
// max (or its choices), sorted, within range.
std::vector<int64_t> boundary_values(const spec::ParamDef& def);

struct ShrinkResult {
  Case minimal;
  metalsim::ExecutionOptions options;  // the minimal case's (schedule shrunk to in-order if it can)
  CaseOutcome outcome;                 // of the minimal case
  size_t runs = 0;                     // cases run while shrinking
};

// Still fails in the same way (failure_kind): the default test while shrinking.
bool same_failure(const CaseOutcome& original, const CaseOutcome& candidate);

// Drives each parameter in turn to smaller and boundary values while the failure persists
// (`still_fails`), then the schedule to in-order and the input seed to 1; repeats until
// nothing changes or `max_runs` cases have run.
using CaseRunFn = std::function<CaseOutcome(const Case&, const metalsim::ExecutionOptions&)>;
// `deadline`: no shrink step starts after it (fuzz --time).
ShrinkResult shrink(const CaseOutcome& failing, size_t max_runs, const CaseRunFn& run = run_case,
                    std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

}  // namespace metalsim::cli
