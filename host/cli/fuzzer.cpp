#include "host/cli/fuzzer.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "kernels/spec/memory_budget.h"

namespace metalsim::cli {
namespace {

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Log-uniform over [lo, hi], so small and large sizes are both common.
int64_t log_uniform(DrawSource& draws, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  const double span = double(hi - lo) + 2.0;  // offset so that lo itself is reachable
  const double x = std::exp(std::log(span) * draws.unit());
  return std::clamp(lo - 1 + int64_t(x), lo, hi);
}

template <class T>
const T& pick(const std::vector<T>& from, DrawSource& draws) {
  return from[size_t(draws.below(from.size()))];
}

int64_t random_value(spec::ParamDef def, int64_t limit, DrawSource& draws) {
  if (!def.choices.empty()) return pick(def.choices, draws);
  if (limit > 0) def.max = std::max(def.min, std::min(def.max, limit));
  // A favoured value when the draw is under 0.6: with bytes, an exhausted input (0) is one.
  if (draws.unit() < 0.6) return pick(boundary_values(def), draws);
  return log_uniform(draws, def.min, def.max);
}

// In [1, 999999], as InputGenerator::integer(1, 999999) draws it.
uint64_t random_seed(DrawSource& draws) { return 1 + draws.below(999999); }

metalsim::SchedulePolicy random_schedule(DrawSource& draws) {
  const double r = draws.unit();
  if (r < 0.5) return {metalsim::ScheduleKind::in_order, 0};
  if (r < 0.7) return {metalsim::ScheduleKind::reversed, 0};
  return {metalsim::ScheduleKind::random, random_seed(draws)};
}

enum class Fit { fits, over_budget, over_size };

Fit fit(const KernelSpec& spec, const Params& p, const DrawLimits& limits) {
  if (limits.max_bytes == 0 && limits.size_bytes == 0) return Fit::fits;
  // The size cap first: a draw over it would not be taken whatever the machine's budget.
  if (limits.size_bytes != 0 && case_size_bytes(spec, p) > limits.size_bytes) return Fit::over_size;
  if (limits.max_bytes != 0 && spec::case_memory_bytes(spec, p, limits.options) > limits.max_bytes)
    return Fit::over_budget;
  return Fit::fits;
}

bool is_valid(const KernelSpec& spec, const Params& p) {
  std::string why;
  return spec.valid(p, &why);
}

// Smaller values worth trying for one parameter, smallest first.
std::vector<int64_t> smaller_values(const spec::ParamDef& def, int64_t v) {
  std::vector<int64_t> c;
  if (!def.choices.empty()) {
    c = def.choices;
  } else {
    c = boundary_values(def);
    c.push_back(def.min);
    c.push_back(v / 2);
    c.push_back(v - 1);
  }
  std::erase_if(
      c, [&](int64_t x) { return x >= v || x < def.min || (def.choices.empty() && x > def.max); });
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

}  // namespace

// ------------------------------ generation

std::vector<int64_t> boundary_values(const spec::ParamDef& def) {
  if (!def.choices.empty()) return def.choices;
  std::vector<int64_t> v = {def.min, def.max, 1};
  for (int64_t b : def.boundaries) {
    v.push_back(b - 1);
    v.push_back(b);
    v.push_back(b + 1);
  }
  std::erase_if(v, [&](int64_t x) { return x < def.min || x > def.max; });
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.empty()) v.push_back(def.fallback);
  return v;
}

uint64_t case_size_bytes(const KernelSpec& spec, const Params& params) {
  const spec::Footprint f = spec.footprint(params);
  return f.device + f.host;
}

DrawLimits ramped(DrawLimits limits, size_t k) {
  constexpr uint64_t kFirstCaseBytes = 16ull << 20;
  constexpr int64_t kFirstCaseValue = 64;
  const int s = std::countr_zero(uint64_t(k) + 1);
  if (s < 20) limits.size_bytes = kFirstCaseBytes << s;
  if (s < 10) {
    const int64_t value = kFirstCaseValue << (2 * s);
    limits.limit = limits.limit > 0 ? std::min(limits.limit, value) : value;
  }
  return limits;
}

uint64_t ByteDraws::read(size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i, ++pos_) v = (v << 8) | (pos_ < size_ ? data_[pos_] : 0);
  return v;
}

uint64_t ByteDraws::below(uint64_t n) {
  if (n <= 1) return 0;
  // Just enough bytes for n - 1: a choice among a few values is one byte a mutation can flip.
  const size_t bytes = size_t(std::bit_width(n - 1) + 7) / 8;
  return read(bytes) % n;
}

double ByteDraws::unit() { return double(read(2)) / 65536.0; }

FuzzCase draw_case(const KernelSpec& spec, DrawSource& draws, const DrawLimits& limits,
                   size_t index) {
  FuzzCase c;
  c.index = index;
  c.found = false;
  const auto defs = spec.params();
  for (int attempt = 0; attempt < 200 && !c.found; ++attempt) {
    Params p;
    for (const auto& d : defs) p[d.name] = random_value(d, limits.limit, draws);
    p = spec.complete(p);
    if (!is_valid(spec, p)) continue;
    const Fit f = fit(spec, p, limits);
    c.over_budget += f == Fit::over_budget;
    if (f != Fit::fits) continue;
    c.params = std::move(p);
    c.found = true;
  }
  if (!c.found) {  // a constrained space: fall back to the boundary sweep
    const auto sweep = spec.sweep();
    c.params = spec.complete(sweep.empty() ? Params{} : sweep[index % sweep.size()]);
  }
  c.seed = random_seed(draws);
  c.schedule = random_schedule(draws);
  return c;
}

FuzzCase CaseGenerator::generate(size_t index) const {
  spec::InputGenerator rng(seed_ ^ fnv1a(spec_->name()) ^
                           (uint64_t(index) * 0xd1b54a32d192ed03ull));
  RandomDraws draws(rng);
  return draw_case(*spec_, draws, limits_, index);
}

// ------------------------------ shrinking

bool same_failure(const CaseOutcome& original, const CaseOutcome& candidate) {
  return !candidate.result.passed &&
         spec::failure_kind(candidate.result) == spec::failure_kind(original.result);
}

ShrinkResult shrink(const CaseOutcome& failing, size_t max_runs, const CaseRunFn& run,
                    std::optional<std::chrono::steady_clock::time_point> deadline) {
  ShrinkResult s{failing.subject, failing.options, failing, 0};
  const KernelSpec& spec = *failing.subject.spec;
  // Runs the trial; keeps it when the failure persists.
  auto attempt = [&](const Case& trial, const metalsim::ExecutionOptions& options) {
    if (s.runs >= max_runs || !is_valid(spec, trial.params)) return false;
    if (deadline && std::chrono::steady_clock::now() >= *deadline) return false;
    CaseOutcome o = run(trial, options);
    ++s.runs;
    if (!same_failure(failing, o)) return false;
    s.minimal = trial;
    s.options = options;
    s.outcome = std::move(o);
    return true;
  };
  for (bool changed = true; changed && s.runs < max_runs;) {
    changed = false;
    for (const auto& def : spec.params()) {
      const int64_t v = s.minimal.params.at(def.name);
      for (int64_t candidate : smaller_values(def, v)) {
        Case trial = s.minimal;
        trial.params[def.name] = candidate;
        if (attempt(trial, s.options)) {
          changed = true;
          break;
        }
      }
    }
    if (s.options.schedule.kind != metalsim::ScheduleKind::in_order) {
      metalsim::ExecutionOptions in_order = s.options;
      in_order.schedule = {metalsim::ScheduleKind::in_order, 0};
      changed = attempt(s.minimal, in_order) || changed;
    }
    if (s.minimal.seed != 1) {
      Case trial = s.minimal;
      trial.seed = 1;
      changed = attempt(trial, s.options) || changed;
    }
  }
  return s;
}

}  // namespace metalsim::cli
