// metalsim bench [KERNEL...]: each spec's bench cases, the kernel (emulated) in lane loops and on
// fibers against the fast native baseline (float, the same OpenMP threads) and the checking
// reference (native Eigen or scalar C++, mostly double, one thread), all timed in the same run:
// medians of several repetitions, outputs repoisoned between (kernels/spec/bench_loop.h, the loop
// bench/kernels_bench.cpp uses too; docs/performance.md).
#include <algorithm>
#include <cmath>
#include <memory>

#include <omp.h>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/output_table.h"
#include "host/cli/progress_bar.h"
#include "kernels/spec/bench_loop.h"

namespace metalsim::cli {
namespace {

struct BenchResult {
  spec::BenchTimes times;
  spec::CaseResult result;  // of the last automatic run (lane loops where the kernel has them)
};

BenchResult bench_case(const Case& r, const metalsim::ExecutionOptions& options, size_t reps,
                       bool reference) {
  BenchResult b;
  metalsim::ExecutionOptions plain = options;
  plain.checks.race = false;  // one schedule: a benchmark times a run, it does not compare runs
  plain.checks.init = false;  // auto runs lane loops only without the fibers-only checks
  try {
    auto ctx = spec::CaseRunner::shared().context(plain, r.seed);
    auto c = r.spec->prepare_case(r.params, *ctx);
    b.times = spec::time_case(*ctx, *c, {.reference = reference}, reps);
    if (reference) b.result = c->compare();
    else b.result.passed = true;  // nothing to compare against
  } catch (const std::exception& e) {
    b.result.failure = std::string("harness error: ") + e.what();
  }
  return b;
}

json seconds_or_null(double s) { return std::isfinite(s) ? json(s) : json(nullptr); }

}  // namespace

Action setup_bench(CLI::App& sub, Io& io) {
  struct Options {
    std::vector<std::string> patterns;
    RunFlags flags;
    size_t reps = 5;
    bool no_reference = false;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->patterns, "names, families or globs (default: all)");
  o->flags.add_to(sub, "none");
  sub.add_option("--reps", o->reps, "timed repetitions per case (the median is shown)")
      ->capture_default_str();
  sub.add_flag("--no-reference", o->no_reference,
               "time only the kernel and the baseline (no reference, no comparison)");
  sub.add_flag("--json", o->json, "one JSON object per case and line on stdout");
  return [o, &io] {
    const auto specs = select_specs(o->patterns);
    if (specs.empty() && !o->patterns.empty()) {
      io.err << "metalsim: no kernel matches\n";
      return kExitUsage;
    }
    std::vector<Case> cases;
    for (const KernelSpec* s : specs)
      for (const Params& p : s->bench_cases()) cases.push_back({s, s->complete(p), o->flags.seed});
    Table t({"case", "lane loops", "fibers", "baseline", "loops/base", "fibers/base", "reference",
             "result"});
    for (size_t c : {1, 2, 3, 4, 5, 6}) t.align_right(c);
    size_t failed = 0;
    ProgressBar bar(io.err, io.progress, cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& r = cases[i];
      bar.update(i, r.id());
      BenchResult b =
          bench_case(r, o->flags.options, std::max<size_t>(o->reps, 1), !o->no_reference);
      const spec::BenchMedians m = spec::medians(b.times);
      const double loops = m.loops, fibers = m.fibers, base = m.baseline, ref = m.reference;
      const Verdict v = spec::judge(*r.spec, r.params, b.result, o->flags.options.checks).verdict;
      failed += !spec::verdict_ok(v);
      const std::string result =
          b.result.passed ? "ok" : std::string(spec::verdict_name(v)) + ": " + b.result.failure;
      const std::string loops_label = b.times.lane_loops ? format_seconds(loops) : "(fibers)";
      if (o->json)
        write_json_line(io.out, {{"command", "bench"},
                                 {"id", r.id()},
                                 {"kernel", r.spec->name()},
                                 {"family", r.spec->family()},
                                 {"params", params_json(r.params)},
                                 {"checks", o->flags.options.checks.str()},
                                 {"threads", omp_get_max_threads()},
                                 {"reps", b.times.fibers.size()},
                                 {"lane_loops", b.times.lane_loops},
                                 {"loops_seconds", seconds_or_null(loops)},
                                 {"fibers_seconds", seconds_or_null(fibers)},
                                 {"baseline_seconds", seconds_or_null(base)},
                                 {"reference_seconds", seconds_or_null(ref)},
                                 {"loops_vs_baseline", seconds_or_null(loops / base)},
                                 {"fibers_vs_baseline", seconds_or_null(fibers / base)},
                                 {"loops_samples", b.times.loops},
                                 {"fibers_samples", b.times.fibers},
                                 {"baseline_samples", b.times.baseline},
                                 {"reference_samples", b.times.reference},
                                 {"status", std::string(spec::verdict_name(v))},
                                 {"failure", b.result.failure}});
      auto or_dash = [](double x, std::string text) { return std::isfinite(x) ? text : "-"; };
      t.add({r.id(), loops_label, format_seconds(fibers), or_dash(base, format_seconds(base)),
             or_dash(loops / base, format_ratio(loops / base)),
             or_dash(fibers / base, format_ratio(fibers / base)), or_dash(ref, format_seconds(ref)),
             result});
    }
    bar.finish();
    if (!o->json) {
      if (cases.empty()) io.out << "no bench cases\n";
      else t.print(io.out);
    }
    return failed == 0 ? kExitOk : kExitFailed;
  };
}

}  // namespace metalsim::cli
