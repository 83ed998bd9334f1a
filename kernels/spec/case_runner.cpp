#include "kernels/spec/case_runner.h"

#include "kernels/spec/mode_comparison.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace metalsim::spec {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One output's bytes after the kernel ran, copied: the next run reuses nothing, but the copy
// must outlive the case.
struct OutputBytes {
  std::string name;
  std::vector<unsigned char> bytes;
};

std::vector<OutputBytes> read_outputs(const PreparedCase& c) {
  std::vector<OutputBytes> out;
  for (const auto& view : c.outputs()) {
    const auto* p = static_cast<const unsigned char*>(view.data);
    out.push_back({view.name, std::vector<unsigned char>(p, p + view.bytes)});
  }
  return out;
}

// Empty when the two runs wrote the same bytes; else where they first differ, in words.
std::string difference(const std::vector<OutputBytes>& a, const std::vector<OutputBytes>& b) {
  if (a.size() != b.size()) return "the runs exposed different outputs";
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i].bytes;
    const auto& y = b[i].bytes;
    for (size_t k = 0; k < std::min(x.size(), y.size()); ++k)
      if (x[k] != y[k]) return "output '" + a[i].name + "' differs from byte " + std::to_string(k);
    if (x.size() != y.size()) return "output '" + a[i].name + "' changed size";
  }
  return {};
}

std::vector<metalsim::SchedulePolicy> other_schedules(const metalsim::SchedulePolicy& main,
                                                      uint64_t seed) {
  std::vector<metalsim::SchedulePolicy> out;
  for (const metalsim::SchedulePolicy& p :
       {metalsim::SchedulePolicy{metalsim::ScheduleKind::in_order, 0},
        metalsim::SchedulePolicy{metalsim::ScheduleKind::reversed, 0},
        metalsim::SchedulePolicy{metalsim::ScheduleKind::random, seed}})
    if (!(p == main)) out.push_back(p);
  return out;
}

// Kernel, reference, comparison, with both times; the kernel's outputs copied into `outputs`
// (when given) before the reference runs.
CaseResult execute_keeping(PreparedCase& c, std::vector<OutputBytes>* outputs) {
  auto t0 = Clock::now();
  c.run_kernel();
  const double kernel = seconds_since(t0);
  if (outputs != nullptr) *outputs = read_outputs(c);
  t0 = Clock::now();
  c.run_reference();
  const double reference = seconds_since(t0);
  CaseResult result = c.compare();
  result.kernel_seconds = kernel;
  result.reference_seconds = reference;
  return result;
}

const report::Report* first_timeout(const std::vector<report::Report>& reports) {
  for (const report::Report& r : reports)
    if (r.check == report::CheckId::watchdog_timeout) return &r;
  return nullptr;
}

// --strict: a warning (barrier.exited) fails the case, and is its failure unless an error was
// filed (the engine stopped the command buffer at the warning: a later dispatch's outputs may be
// unwritten because of it).
void fail_on_warnings(CaseResult& r) {
  for (const report::Report& w : r.reports) {
    if (!w.is_warning()) continue;
    r.passed = false;
    if (!report::any_error(r.reports) && r.failure.rfind("harness error", 0) != 0)
      r.failure = std::string(report::check_name(w.check)) +
                  " (warning, a failure under --strict): " + w.message;
    return;
  }
}

}  // namespace

// ------------------------------ CaseRunner

struct CaseRunner::Run {
  CaseResult result;
  std::vector<OutputBytes> outputs;
};

CaseRunner::CaseRunner()
    : device_(NS::TransferPtr(MTL::CreateSystemDefaultDevice())),
      queue_(NS::TransferPtr(device_->newCommandQueue())),
      pipelines_(device_.get()) {}

CaseRunner& CaseRunner::shared() {
  static CaseRunner runner;
  return runner;
}

std::unique_ptr<CaseContext> CaseRunner::context(const metalsim::ExecutionOptions& options,
                                                 uint64_t seed) {
  return std::make_unique<CaseContext>(device_.get(), queue_.get(), pipelines_, options, seed);
}

CaseResult CaseRunner::execute(PreparedCase& c) { return execute_keeping(c, nullptr); }

CaseRunner::Run CaseRunner::run_once(const Case& c, const metalsim::ExecutionOptions& options) {
  Run run;
  try {
    std::unique_ptr<CaseContext> ctx = context(options, c.seed);
    std::unique_ptr<PreparedCase> prepared = c.spec->prepare_case(c.params, *ctx);
    run.result = execute_keeping(*prepared, &run.outputs);
  } catch (const InvalidCase& e) {
    run.result.failure = e.what();
  } catch (const std::exception& e) {
    run.result.passed = false;
    run.result.failure = std::string("harness error: ") + e.what();
  }
  return run;
}

void CaseRunner::check_schedules(const Case& c, const metalsim::ExecutionOptions& options,
                                 const Run& main, CaseOutcome& out) {
  for (const metalsim::SchedulePolicy& other : other_schedules(options.schedule, c.seed)) {
    metalsim::ExecutionOptions again_options = options;
    again_options.schedule = other;
    again_options.checks.race = false;  // the engine's race check ran with the main run
    const Run again = run_once(c, again_options);
    // A rerun the watchdog stopped has incomplete outputs: no comparison, and the timeout is the
    // case's (a fuzz campaign's deadline counts it as stopped, not as a race).
    if (const report::Report* timeout = first_timeout(again.result.reports)) {
      out.result.reports.push_back(*timeout);
      out.result.passed = false;
      if (out.result.failure.empty()) out.result.failure = "watchdog.timeout: " + timeout->message;
      return;
    }
    const std::string diff = difference(main.outputs, again.outputs);
    if (diff.empty()) continue;
    out.race =
        "results under " + options.schedule.str() + " and " + other.str() + " differ: " + diff;
    report::Report report;
    report.check = report::CheckId::race_schedule;
    report.kernel = c.spec->name();
    report.message = out.race + " (reproduce with --schedule " + other.str() + ")";
    out.result.reports.push_back(report);
    out.result.passed = false;
    if (out.result.failure.empty()) out.result.failure = "race.schedule: " + out.race;
    return;
  }
}

// The case on fibers and in lane loops (mode_comparison.h): outputs and checks filed must agree.
void CaseRunner::check_modes(const Case& c, const metalsim::ExecutionOptions& options,
                             const Run& main, CaseOutcome& out) {
  const ModeRuns m = mode_runs(options);
  const Run fibers = m.reuse == ModeRuns::Reuse::as_fibers ? main : run_once(c, m.fibers);
  const Run loops = m.reuse == ModeRuns::Reuse::as_loops ? main : run_once(c, m.loops);
  std::string diff = report_difference(fibers.result, loops.result);
  if (diff.empty() && !abandoned(fibers.result) && !abandoned(loops.result))
    diff = difference(fibers.outputs, loops.outputs);
  if (diff.empty()) return;
  out.mode_divergence = "fibers and lane loops (in-order) differ: " + diff;
  report::Report report;
  report.check = report::CheckId::mode_divergent;
  report.kernel = c.spec->name();
  report.message = out.mode_divergence + " (reproduce with --mode fibers and --mode loops)";
  out.result.reports.push_back(report);
  out.result.passed = false;
  if (out.result.failure.empty()) out.result.failure = "mode.divergent: " + out.mode_divergence;
}

CaseOutcome CaseRunner::run(const Case& c, const metalsim::ExecutionOptions& options,
                            bool compare_modes) {
  CaseOutcome out;
  out.subject = c;
  out.options = options;
  const auto t0 = Clock::now();
  const Run main = run_once(c, options);
  out.result = main.result;
  if (options.strict) fail_on_warnings(out.result);
  const bool valid = main.result.failure.rfind("invalid case", 0) != 0;
  // A main run the watchdog stopped has incomplete outputs: the timeout is its report, and no
  // other schedule's outputs are compared with them (a false race.schedule otherwise).
  const bool complete = first_timeout(main.result.reports) == nullptr;
  if (options.checks.race && valid && complete) check_schedules(c, options, main, out);
  if (compare_modes && valid) check_modes(c, options, main, out);
  out.seconds = seconds_since(t0);
  out.judgement = judge(*c.spec, c.params, out.result, options.checks);
  return out;
}

CaseResult run_case(const KernelSpec& spec, const Params& params,
                    const metalsim::ExecutionOptions& options, uint64_t seed) {
  return CaseRunner::shared().run({&spec, spec.complete(params), seed}, options).result;
}

// ------------------------------ text

std::string repro_command(const Case& c, const metalsim::ExecutionOptions& o) {
  std::string cmd = "metalsim run " + c.spec->run_arguments(c.params) + " --seed " +
                    std::to_string(c.seed) + " --schedule " + o.schedule.str() + " --checks " +
                    o.checks.str() + " --mode " +
                    std::string(metalsim::execution_mode_name(o.mode));
  if (o.strict) cmd += " --strict";
  return cmd;
}

}  // namespace metalsim::spec
