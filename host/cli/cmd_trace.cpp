// metalsim trace KERNEL --param=... --out FILE.json: a Chrome/Perfetto trace of one run.
//
// The host side (prepare, the command buffer, the reference, the comparison) on one track, and
// every threadgroup on its worker's track (ExecutionOptions::on_threadgroup).
#include <chrono>
#include <fstream>
#include <memory>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/trace_writer.h"

namespace metalsim::cli {
namespace {

constexpr int kHostPid = 1, kWorkersPid = 2;

// Each threadgroup a worker ran becomes a complete event on that worker's track, with the kernel
// variant that ran it (checked or fast: docs/architecture.md).
void install_threadgroup_hook(metalsim::ExecutionOptions& options, TraceWriter& writer) {
  options.on_threadgroup = [&writer](const metalsim::ThreadgroupEvent& e) {
    writer.complete("threadgroup " + std::to_string(e.linear_threadgroup), "threadgroup",
                    kWorkersPid, int(e.worker) + 1, e.begin_ns, e.end_ns,
                    {{"position", {e.position.x, e.position.y, e.position.z}},
                     {"variant", std::string(metalsim::kernel_variant_name(e.variant))}});
  };
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
    Case r;
    if (!build_single_case(o->kernel, sub.remaining(), o->flags.seed, r, io.err)) return kExitUsage;
    TraceWriter trace;
    trace.process_name(kHostPid, "metalsim host");
    trace.thread_name(kHostPid, 1, "host");
    trace.process_name(kWorkersPid, "threadgroups by worker");
    metalsim::ExecutionOptions options = o->flags.options;
    options.checks.race = false;  // one run under one schedule
    install_threadgroup_hook(options, trace);
    const json args = {{"id", r.id()},
                       {"seed", r.seed},
                       {"schedule", options.schedule.str()},
                       {"checks", options.checks.str()},
                       {"mode", std::string(metalsim::execution_mode_name(options.mode))},
                       {"workers", options.workers}};
    CaseOutcome outcome;
    outcome.subject = r;
    outcome.options = options;
    try {
      auto ctx = spec::CaseRunner::shared().context(options, r.seed);
      uint64_t t0 = TraceWriter::now_ns();
      auto c = r.spec->prepare_case(r.params, *ctx);
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
    outcome.judgement = spec::judge(*r.spec, r.params, outcome.result, options.checks);
    std::ofstream file(o->out);
    trace.write(file);
    if (!file) {
      io.err << "metalsim: cannot write " << o->out << "\n";
      return kExitUsage;
    }
    print_case(io.out, outcome);
    io.out << "trace      " << o->out << " (" << trace.events().size()
           << " events, per threadgroup)\n";
    return spec::verdict_ok(outcome.verdict()) ? kExitOk : kExitFailed;
  };
}

}  // namespace metalsim::cli
