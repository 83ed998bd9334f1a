#pragma once
// KernelSpec: one kernel (variant) of a family, as every consumer sees it. Tests, `metalsim
// check/run/fuzz/bench` and the benchmarks all go through this one interface, so a kernel's
// parameter space, inputs, host dispatch, reference and tolerance are written once.
//
// A case is a spec name plus integer parameters; its id reads like a call and pastes back as a
// filter or a reproduction: `softmax(cols=4097,rows=3,tg=256)`.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "simt/base/execution_options.h"
#include "simt/report/report.h"

namespace metalsim::spec {

using Params = std::map<std::string, int64_t>;

// One parameter: its range, or its only allowed values, and the boundary values that fuzzing
// and sweeps favour (1, tile-1, tile, tile+1, the largest allowed ...).
struct ParamDef {
  std::string name;
  int64_t min = 1;
  int64_t max = 1;
  std::vector<int64_t> choices;     // non-empty: only these values are allowed
  std::vector<int64_t> boundaries;  // favoured values (within the range)
  int64_t fallback = 1;             // used when a case leaves the parameter out
  std::string help;
};

// How close is close enough, for one output, with the reason written down once per family.
struct Tolerance {
  double abs = 0;  // |got - ref| <= abs + rel * scale, where scale is max |ref| over the output
  double rel = 0;
  std::string why;
};

struct CaseResult {
  bool passed = false;
  double max_error = 0;                 // worst |got - ref| / (abs + rel * scale): <= 1 passes
  size_t elements = 0;                  // output elements compared
  size_t unwritten = 0;                 // still holding the poison bit pattern
  size_t non_finite = 0;                // NaN or inf where the reference is finite
  std::string worst;                    // where the worst error is, in words
  std::vector<report::Report> reports;  // from the command buffer and the harness
  std::string failure;                  // why it failed, in one line
  double kernel_seconds = 0;
  double reference_seconds = 0;
};

class CaseContext;  // case_context.h: the device, buffers and dispatches of one run

// A case with inputs generated and outputs poisoned; kernel and reference can be run (and
// timed) separately, then compared.
class PreparedCase {
 public:
  virtual ~PreparedCase() = default;
  virtual void run_kernel() = 0;     // dispatches; keeps the command buffer's reports
  virtual void run_reference() = 0;  // the Eigen (or scalar) reference
  virtual CaseResult compare() = 0;  // after both ran
  virtual void repoison() {}         // before timing the kernel again
  // The fast native baseline (float, vectorized loops or Eigen, on the same OpenMP threads as the
  // kernel), for benchmarks only: the same math written for speed, where the reference is written
  // to be checked against. False when the spec has none. Writes only the baseline's own memory.
  virtual bool run_baseline() { return false; }

  // The kernel's output buffers as run_kernel() left them: two runs (schedules) of a race-free
  // kernel agree byte for byte, so the race check compares these.
  struct OutputView {
    std::string name;
    const void* data;
    size_t bytes;
  };
  virtual std::vector<OutputView> outputs() const = 0;
};

// What a case holds in memory, known before it is prepared: the case runner refuses a case that
// cannot fit, and the fuzzer draws only cases under its budget. An estimate, on the high side.
struct Footprint {
  uint64_t device = 0;  // every buffer the case binds (inputs, outputs, tables)
  uint64_t host = 0;    // the spec's own copies: inputs kept for the reference, the reference
  bool known() const { return device + host > 0; }
};

// What running the kernel is expected to show. `_as_documented` kernels reproduce a known
// bug of their source document: docs/findings.md records what the tools report on them.
enum class Expectation { pass, known_bug };

// One recorded finding of a known_bug spec: the case that shows it and the kind of failure it
// must show there (failure_kind in verdict.h: a check id such as "bounds.threadgroup", or
// "mismatch", "unwritten", "non_finite"). A failure of another kind is not the finding.
struct Finding {
  Params params;
  std::string kind;
  std::string what;  // the defect, in words (docs/findings.md has the full record)
};

// What preparing a case the spec's valid() refuses throws: "invalid case <id>: <why>", naming
// the spec, the parameters and the broken rule.
class InvalidCase : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class KernelSpec {
 public:
  virtual ~KernelSpec() = default;
  virtual std::string name() const = 0;     // "softmax", "softmax_as_documented"
  virtual std::string family() const = 0;   // "softmax": the stem of .metal/_ref/_spec files
  virtual std::string summary() const = 0;  // one line for `metalsim list`
  virtual std::vector<ParamDef> params() const = 0;
  // Constraints between parameters; `why` says what is wrong.
  virtual bool valid(const Params& p, std::string* why) const = 0;
  // The boundary sweep `metalsim check` and the tests run.
  virtual std::vector<Params> sweep() const = 0;
  // Model-scale shapes for benchmarks.
  virtual std::vector<Params> bench_cases() const { return {}; }
  // A spec that names a known bug expects to show it: known_bug by default.
  virtual Expectation expectation() const {
    return known_bug().empty() ? Expectation::pass : Expectation::known_bug;
  }
  virtual std::string known_bug() const { return {}; }  // the bug, in words; empty: none
  // For Expectation::known_bug: each recorded finding with its case; the sweep of a known-bug
  // spec is these cases (finding_cases()).
  virtual std::vector<Finding> findings() const { return {}; }
  // Bytes the case `p` (completed) will hold; {} when the spec cannot say.
  virtual Footprint footprint(const Params& p) const {
    (void)p;
    return {};
  }
  // What follows `metalsim run` to reproduce the case `p` (completed), shell-quoted: the case
  // id by default; a spec read from a case file names the file (host/cli/case_file_spec.h).
  virtual std::string run_arguments(const Params& p) const;

  // The one way a case is prepared, for the case runner, the program, the fuzzer, the benchmarks
  // and the tests alike (kernels/spec/prepare_case.cpp): throws InvalidCase when valid() refuses
  // `p` (completed), std::runtime_error when the case cannot fit in the memory available now,
  // else returns prepare(p, ctx).
  std::unique_ptr<PreparedCase> prepare_case(const Params& p, CaseContext& ctx) const;

  // `p` with every parameter present (defaults filled in).
  Params complete(const Params& p) const;
  // The recorded finding whose case is `p` (completed), if any.
  std::optional<Finding> finding_for(const Params& p) const;
  // The cases of findings(), for sweep() of a known-bug spec.
  std::vector<Params> finding_cases() const;

 protected:
  // Generates inputs (from ctx.seed()), poisons outputs, makes buffers through `ctx`, which
  // outlives the returned case. Called only by prepare_case(), so `p` is valid: no spec checks
  // valid() again.
  virtual std::unique_ptr<PreparedCase> prepare(const Params& p, CaseContext& ctx) const = 0;
};

// A spec whose name, family and summary are given when it is made, as most are.
class NamedSpec : public KernelSpec {
 public:
  NamedSpec(std::string name, std::string family, std::string summary)
      : name_(std::move(name)), family_(std::move(family)), summary_(std::move(summary)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return family_; }
  std::string summary() const override { return summary_; }

 private:
  std::string name_, family_, summary_;
};

std::string case_id(const std::string& spec, const Params& p);
// Parses "name(a=1,b=2)" or "name"; false on malformed text.
bool parse_case_id(const std::string& text, std::string& spec, Params& p);

class SpecRegistry {
 public:
  static void add(std::unique_ptr<KernelSpec> spec);
  static const KernelSpec* find(const std::string& name);
  static std::vector<const KernelSpec*> all();  // sorted by name
};

// Registers a spec from a static initialiser: `METALSIM_REGISTER_SPEC(SoftmaxSpec);`.
// Spec libraries are OBJECT libraries so the linker keeps these.
#define METALSIM_REGISTER_SPEC(Type) METALSIM_REGISTER_SPEC_AS(Type, Type)

// Registers one variant of a spec class, made with the constructor's arguments; `id` names the
// registration (unique in its file): `METALSIM_REGISTER_SPEC_AS(softmax, SoftmaxSpec, false);`.
#define METALSIM_REGISTER_SPEC_AS(id, Type, ...)                              \
  static const bool metalsim_registered_##id = [] {                           \
    ::metalsim::spec::SpecRegistry::add(std::make_unique<Type>(__VA_ARGS__)); \
    return true;                                                              \
  }()

}  // namespace metalsim::spec
