// metalsim bench [KERNEL...]: each spec's bench cases, kernel (emulated) against reference
// (native Eigen or scalar C++) time: medians of several repetitions, outputs repoisoned between.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/output_table.h"
#include "host/cli/progress_bar.h"

namespace metalsim::cli {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <class F>
double time_it(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct BenchResult {
  std::vector<double> kernel, reference;
  spec::CaseResult result;
  std::string error;
};

BenchResult bench_case(const Case& r, const engine::ExecutionOptions& options, size_t reps) {
  BenchResult b;
  engine::ExecutionOptions plain = options;
  plain.checks.race = false;  // one schedule: a benchmark times a run, it does not compare runs
  try {
    auto ctx = spec::CaseRunner::shared().context(plain, r.seed);
    auto c = r.spec->prepare(r.params, *ctx);
    c->run_kernel();  // warm-up: pipelines, stacks, caches
    c->run_reference();
    for (size_t i = 0; i < reps; ++i) {
      c->repoison();
      b.kernel.push_back(time_it([&] { c->run_kernel(); }));
      b.reference.push_back(time_it([&] { c->run_reference(); }));
    }
    b.result = c->compare();
  } catch (const std::exception& e) {
    b.error = std::string("harness error: ") + e.what();
    b.result.failure = b.error;
  }
  return b;
}

}  // namespace

Action setup_bench(CLI::App& sub, Io& io) {
  struct Options {
    std::vector<std::string> patterns;
    RunFlags flags;
    size_t reps = 5;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->patterns, "names, families or globs (default: all)");
  o->flags.add_to(sub, "none");
  sub.add_option("--reps", o->reps, "timed repetitions per case (the median is shown)")
      ->capture_default_str();
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
    Table t({"case", "kernel", "reference", "emulated/native", "result"});
    for (size_t c : {1, 2, 3}) t.align_right(c);
    size_t failed = 0;
    ProgressBar bar(io.err, io.progress, cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& r = cases[i];
      bar.update(i, r.id());
      BenchResult b = bench_case(r, o->flags.options, std::max<size_t>(o->reps, 1));
      const double k = median(b.kernel), ref = median(b.reference);
      const double ratio = ref > 0 ? k / ref : std::nan("");
      const Verdict v = spec::judge(*r.spec, r.params, b.result, o->flags.options.checks).verdict;
      failed += !spec::verdict_ok(v);
      const std::string result =
          b.result.passed ? "ok" : std::string(spec::verdict_name(v)) + ": " + b.result.failure;
      if (o->json)
        write_json_line(io.out,
                        {{"command", "bench"},
                         {"id", r.id()},
                         {"kernel", r.spec->name()},
                         {"family", r.spec->family()},
                         {"params", params_json(r.params)},
                         {"checks", o->flags.options.checks.str()},
                         {"mode", std::string(engine::execution_mode_name(o->flags.options.mode))},
                         {"reps", b.kernel.size()},
                         {"kernel_seconds", k},
                         {"reference_seconds", ref},
                         {"ratio", std::isfinite(ratio) ? json(ratio) : json(nullptr)},
                         {"kernel_samples", b.kernel},
                         {"reference_samples", b.reference},
                         {"status", std::string(spec::verdict_name(v))},
                         {"failure", b.result.failure}});
      t.add({r.id(), format_seconds(k), format_seconds(ref), format_ratio(ratio), result});
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
