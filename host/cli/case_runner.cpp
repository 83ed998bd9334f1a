#include "host/cli/case_runner.h"

#include <fnmatch.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

namespace metalsim::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One output's bytes after the kernel ran, with its name for the race report.
struct OutputBytes {
  std::string name;
  std::vector<unsigned char> bytes;
};

// The kernel's outputs as it left them (PreparedCase::outputs), copied: the next run reuses
// nothing, but the copy must outlive this case.
std::vector<OutputBytes> read_outputs(const spec::PreparedCase& c) {
  std::vector<OutputBytes> out;
  for (const auto& view : c.outputs()) {
    const auto* p = static_cast<const unsigned char*>(view.data);
    out.push_back({view.name, std::vector<unsigned char>(p, p + view.bytes)});
  }
  return out;
}

// The run of one case under one schedule.
struct Run {
  spec::CaseResult result;
  std::vector<OutputBytes> outputs;  // empty: the spec does not expose them
};

Run run_once(const CaseRequest& req, const engine::SchedulePolicy& schedule) {
  Run run;
  spec::RunOptions options;
  options.seed = req.seed;
  options.execution.schedule = schedule;
  options.execution.checks = req.checks;
  options.execution.checks.race = false;  // the engine has no race check: schedules are ours
  options.execution.workers = req.workers;
  options.execution.watchdog_seconds = req.watchdog_seconds;
  std::string why;
  if (!req.spec->valid(req.params, &why)) {
    run.result.failure = "invalid case " + req.id() + ": " + why;
    return run;
  }
  try {
    std::unique_ptr<spec::PreparedCase> c = req.spec->prepare(req.params, options);
    auto t0 = Clock::now();
    c->run_kernel();
    const double kernel = seconds_since(t0);
    run.outputs = read_outputs(*c);
    t0 = Clock::now();
    c->run_reference();
    const double reference = seconds_since(t0);
    run.result = c->compare();
    run.result.kernel_seconds = kernel;
    run.result.reference_seconds = reference;
  } catch (const std::exception& e) {
    run.result.passed = false;
    run.result.failure = std::string("harness error: ") + e.what();
  }
  return run;
}

// What compare() saw, for when raw outputs are not available: equal outputs give equal text.
std::string result_fingerprint(const spec::CaseResult& r) {
  char error[64];
  std::snprintf(error, sizeof error, "%a", r.max_error);
  std::string text = std::string(r.passed ? "passed" : "failed") + " error " + error +
                     " unwritten " + std::to_string(r.unwritten) + " non-finite " +
                     std::to_string(r.non_finite) + " worst '" + r.worst + "'";
  for (const auto& rep : r.reports) text += " " + std::string(check::check_name(rep.check));
  return text;
}

// What compare() saw, in words.
std::string describe(const spec::CaseResult& r) {
  if (r.passed) {
    char error[32];
    std::snprintf(error, sizeof error, "%.3g", r.max_error);
    return std::string("passed, error ") + error + "x tolerance";
  }
  return "failed: " + r.failure;
}

// Empty when the two runs agree; else where they differ, in words.
std::string difference(const Run& a, const Run& b) {
  if (!a.outputs.empty() && a.outputs.size() == b.outputs.size()) {
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      const auto& x = a.outputs[i].bytes;
      const auto& y = b.outputs[i].bytes;
      const size_t n = std::min(x.size(), y.size());
      for (size_t k = 0; k < n; ++k)
        if (x[k] != y[k])
          return "output '" + a.outputs[i].name + "' differs from byte " + std::to_string(k);
      if (x.size() != y.size()) return "output '" + a.outputs[i].name + "' changed size";
    }
    return {};
  }
  if (result_fingerprint(a.result) == result_fingerprint(b.result)) return {};
  return "the comparison with the reference differs (" + describe(a.result) + " / " + describe(b.result) + ")";
}

}  // namespace

// ------------------------------ verdicts

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "FAIL";
    case Verdict::known_bug_reproduced: return "known bug reproduced";
    case Verdict::known_bug_not_reproduced: return "known bug NOT reproduced";
  }
  return "?";
}

bool verdict_ok(Verdict v) { return v == Verdict::pass || v == Verdict::known_bug_reproduced; }

Verdict judge(const KernelSpec& spec, bool passed) {
  if (spec.expectation() == spec::Expectation::known_bug)
    return passed ? Verdict::known_bug_not_reproduced : Verdict::known_bug_reproduced;
  return passed ? Verdict::pass : Verdict::fail;
}

// ------------------------------ run_case

CaseOutcome run_case(const CaseRequest& request) {
  CaseOutcome out;
  out.request = request;
  const auto t0 = Clock::now();
  Run main = run_once(request, request.schedule);
  if (request.checks.race && main.result.failure.rfind("invalid case", 0) != 0) {
    std::vector<engine::SchedulePolicy> others = {{engine::ScheduleKind::in_order, 0},
                                                  {engine::ScheduleKind::reversed, 0},
                                                  {engine::ScheduleKind::random, request.race_seed}};
    for (const auto& other : others) {
      if (other.str() == request.schedule.str()) continue;
      const Run again = run_once(request, other);
      const std::string diff = difference(main, again);
      if (diff.empty()) continue;
      out.race = "result under " + request.schedule.str() + " and " + other.str() + " differ: " + diff;
      check::Report report;
      report.check = check::CheckId::race_schedule;
      report.kernel = request.spec->name();
      report.message = out.race + " (reproduce with --schedule " + other.str() + ")";
      main.result.reports.push_back(report);
      main.result.passed = false;
      if (main.result.failure.empty()) main.result.failure = "race.schedule: " + out.race;
      break;
    }
  }
  out.result = std::move(main.result);
  out.seconds = seconds_since(t0);
  out.verdict = judge(*request.spec, out.result.passed);
  return out;
}

// ------------------------------ text

std::string checks_str(const check::CheckSet& c) {
  std::string s;
  auto add = [&](bool on, const char* word) {
    if (!on) return;
    if (!s.empty()) s += ",";
    s += word;
  };
  add(c.sync, "sync");
  add(c.init, "init");
  add(c.mem, "mem");
  add(c.race, "race");
  return s.empty() ? "none" : s;
}

std::string shell_quote(std::string_view text) {
  std::string q = "'";
  for (char ch : text) {
    if (ch == '\'') q += "'\\''";
    else q += ch;
  }
  return q + "'";
}

std::string repro_command(const CaseRequest& r) {
  return "metalsim run " + shell_quote(r.id()) + " --seed " + std::to_string(r.seed) +
         " --schedule " + r.schedule.str() + " --checks " + checks_str(r.checks);
}

std::string failure_kind(const spec::CaseResult& r) {
  if (r.passed) return {};
  if (!r.reports.empty()) return std::string(check::check_name(r.reports.front().check));
  if (r.failure.rfind("harness error", 0) == 0) return "harness";
  if (r.failure.rfind("invalid case", 0) == 0) return "invalid";
  if (r.unwritten > 0) return "unwritten";
  if (r.non_finite > 0) return "non_finite";
  return "error";
}

// ------------------------------ selection

bool spec_matches(const KernelSpec& spec, const std::string& pattern) {
  const std::string name = spec.name();
  return pattern == name || pattern == spec.family() ||
         fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::vector<const KernelSpec*> select_specs(const std::vector<std::string>& patterns) {
  std::vector<const KernelSpec*> out;
  for (const KernelSpec* s : spec::SpecRegistry::all()) {
    bool take = patterns.empty();
    for (const auto& p : patterns) take = take || spec_matches(*s, p);
    if (take) out.push_back(s);
  }
  return out;
}

Selection select_sweep(const std::vector<std::string>& filters) {
  Selection sel;
  if (filters.empty()) {
    for (const KernelSpec* s : spec::SpecRegistry::all())
      for (const Params& p : s->sweep()) sel.cases.push_back({s, s->complete(p)});
    return sel;
  }
  for (const std::string& f : filters) {
    std::string name;
    Params params;
    const KernelSpec* exact = nullptr;
    if (f.find('(') != std::string::npos && spec::parse_case_id(f, name, params) &&
        (exact = spec::SpecRegistry::find(name)) != nullptr) {
      sel.cases.push_back({exact, exact->complete(params)});
      continue;
    }
    const auto specs = select_specs({f});
    if (specs.empty()) sel.unmatched.push_back(f);
    for (const KernelSpec* s : specs)
      for (const Params& p : s->sweep()) sel.cases.push_back({s, s->complete(p)});
  }
  return sel;
}

}  // namespace metalsim::cli
