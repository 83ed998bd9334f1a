// metalsim trace KERNEL --param=... --out FILE.json: a Chrome/Perfetto trace of one run.
//
// Today the trace is at dispatch granularity, from the host side: prepare, the command buffer
// (encode, commit, wait), the reference and the comparison. When the engine offers a
// per-threadgroup hook (ExecutionOptions::on_threadgroup, see docs/cli.md), each threadgroup
// becomes a complete event on its worker's track with no change here.
#include <chrono>
#include <fstream>
#include <memory>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/trace_writer.h"

namespace metalsim::cli {
namespace {

constexpr int kHostPid = 1, kWorkersPid = 2;

// Installs a per-threadgroup callback when ExecutionOptions has one:
//   struct ThreadgroupEvent { uint32_t worker; uint64_t linear_threadgroup; Size3 position;
//                             uint64_t begin_ns, end_ns; };  // steady_clock nanoseconds
//   std::function<void(const ThreadgroupEvent&)> on_threadgroup;
template <class Execution>
bool install_threadgroup_hook(Execution& options, TraceWriter& writer) {
  if constexpr (requires { options.on_threadgroup; }) {
    options.on_threadgroup = [&writer](const auto& e) {
      writer.complete("threadgroup " + std::to_string(e.linear_threadgroup), "threadgroup", kWorkersPid,
                      int(e.worker) + 1, e.begin_ns, e.end_ns,
                      {{"position", {e.position.x, e.position.y, e.position.z}}});
    };
    return true;
  } else {
    (void)options;
    (void)writer;
    return false;
  }
}

}  // namespace

Action setup_trace(CLI::App& sub, Io& io) {
  struct Options {
    std::string kernel;
    RunFlags flags;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->kernel, "a kernel name or a case id")->required();
  o->flags.add_to(sub, "sync,init,mem");
  sub.add_option("--out", o->out, "the trace file (JSON array of trace events)")->required();
  sub.allow_extras();
  return [o, &io, &sub] {
    CaseRequest r;
    if (!build_single_case(o->kernel, sub.remaining(), o->flags, r, io.err)) return kExitUsage;
    TraceWriter trace;
    trace.process_name(kHostPid, "metalsim host");
    trace.thread_name(kHostPid, 1, "host");
    spec::RunOptions options;
    options.seed = r.seed;
    options.execution.schedule = r.schedule;
    options.execution.checks = r.checks;
    options.execution.checks.race = false;
    options.execution.workers = r.workers;
    options.execution.watchdog_seconds = r.watchdog_seconds;
    const bool per_threadgroup = install_threadgroup_hook(options.execution, trace);
    if (per_threadgroup) trace.process_name(kWorkersPid, "threadgroups by worker");
    const json args = {{"id", r.id()}, {"seed", r.seed}, {"schedule", r.schedule.str()},
                       {"checks", checks_str(r.checks)}, {"workers", r.workers}};
    CaseOutcome outcome;
    outcome.request = r;
    try {
      uint64_t t0 = TraceWriter::now_ns();
      auto c = r.spec->prepare(r.params, options);
      uint64_t t1 = TraceWriter::now_ns();
      trace.complete("prepare", "host", kHostPid, 1, t0, t1, args);
      c->run_kernel();
      uint64_t t2 = TraceWriter::now_ns();
      trace.complete("dispatch " + r.spec->name(), "dispatch", kHostPid, 1, t1, t2, args);
      c->run_reference();
      uint64_t t3 = TraceWriter::now_ns();
      trace.complete("reference", "reference", kHostPid, 1, t2, t3);
      outcome.result = c->compare();
      trace.complete("compare", "host", kHostPid, 1, t3, TraceWriter::now_ns(),
                     {{"passed", outcome.result.passed}, {"failure", outcome.result.failure}});
      outcome.result.kernel_seconds = double(t2 - t1) / 1e9;
      outcome.result.reference_seconds = double(t3 - t2) / 1e9;
    } catch (const std::exception& e) {
      outcome.result.failure = std::string("harness error: ") + e.what();
    }
    outcome.verdict = judge(*r.spec, outcome.result.passed);
    std::ofstream file(o->out);
    trace.write(file);
    if (!file) {
      io.err << "metalsim: cannot write " << o->out << "\n";
      return kExitUsage;
    }
    print_case(io.out, outcome);
    io.out << "trace      " << o->out << " (" << trace.events().size() << " events, "
           << (per_threadgroup ? "per threadgroup" : "dispatch granularity: the engine has no threadgroup hook yet")
           << ")\n";
    return verdict_ok(outcome.verdict) ? kExitOk : kExitFailed;
  };
}

}  // namespace metalsim::cli
