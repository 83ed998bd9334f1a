// metalsim check [FILTER...]: every spec over its boundary sweep against its reference with the
// checks on, and on fibers and in lane loops alike (mode.divergent); a table per kernel, the
// failures with their repro commands, and `N passed, M failed`. A case file (FILE.json, or
// FILE.metal with --case and the case-file options) is checked over its "sweep" the same way.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

#include "host/cli/case_file_cli.h"
#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/output_junit.h"
#include "host/cli/output_table.h"
#include "host/cli/progress_bar.h"

namespace metalsim::cli {
namespace {

// One row of the table: a kernel's cases folded together.
struct KernelRow {
  const KernelSpec* spec = nullptr;
  size_t cases = 0, ok = 0, bugs_reproduced = 0;
  double worst = std::nan("");
  double seconds = 0;
};

std::string row_status(const KernelRow& r) {
  if (r.spec->expectation() == spec::Expectation::known_bug) {
    if (r.ok == r.cases) return "known bug reproduced";
    return "known bug NOT reproduced (" + std::to_string(r.cases - r.ok) + " of " +
           std::to_string(r.cases) + " cases passed)";
  }
  if (r.ok == r.cases) return "pass";
  return "FAIL (" + std::to_string(r.cases - r.ok) + " of " + std::to_string(r.cases) + ")";
}

void print_failure(std::ostream& out, const CaseOutcome& o) {
  out << spec::verdict_name(o.verdict()) << "  " << o.subject.id() << ": "
      << (o.result.failure.empty() ? "passed" : o.result.failure) << "\n";
  if (!o.judgement.why.empty()) out << "    expected: " << o.judgement.why << "\n";
  const size_t shown = std::min<size_t>(o.result.reports.size(), 3);
  for (size_t i = 0; i < shown; ++i) {
    std::istringstream lines(o.result.reports[i].format());
    for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
  }
  if (o.result.reports.size() > shown)
    out << "    ... " << o.result.reports.size() - shown << " more reports\n";
  out << "  reproduce: " << spec::repro_command(o.subject, o.options) << "\n";
}

// A passing case's warnings (barrier.exited), each report in full.
void print_warnings(std::ostream& out, const CaseOutcome& o) {
  out << "warning  " << o.subject.id() << "\n";
  for (const report::Report& r : o.result.reports) {
    if (!r.is_warning()) continue;
    std::istringstream lines(r.format());
    for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
  }
  out << "  reproduce: " << spec::repro_command(o.subject, o.options) << "\n";
}

}  // namespace

Action setup_check(CLI::App& sub, Io& io) {
  struct Options {
    std::vector<std::string> filters;
    CaseFileFlags file;
    RunFlags flags;
    bool json = false;
    std::string junit;
    std::string shard = "0/1";
    bool skip_known_bugs = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("FILTER", o->filters,
                 "spec names, families, globs, case ids or case files (default: all)");
  o->file.add_to(sub, false);
  // The tsan build cannot recover from a kernel's memory fault, and several documented kernels
  // fault: racecheck over the corrected kernels leaves them out (scripts/test.sh).
  sub.add_flag("--skip-known-bugs", o->skip_known_bugs,
               "leave out the _as_documented kernels (known bugs)");
  o->flags.add_to(sub, "sync,init,mem");
  sub.add_flag("--json", o->json,
               "one JSON object per case and line on stdout, instead of the table");
  sub.add_option("--junit", o->junit, "also write JUnit XML, one testcase per case, to FILE");
  sub.add_option("--shard", o->shard, "i/N: run cases k with k % N == i")->capture_default_str();
  return [o, &io] {
    Shard shard;
    if (!Shard::parse(o->shard, shard)) {
      io.err << "metalsim: bad --shard '" << o->shard << "' (i/N with 0 <= i < N)\n";
      return kExitUsage;
    }
    bool loaded = true;  // case files among the filters
    const Selection sel = select_sweep_or_case_files(o->filters, o->file, io.err, loaded);
    if (!loaded) return kExitUsage;
    for (const auto& f : sel.unmatched)
      io.err << "metalsim: no kernel or case matches '" << f << "'\n";
    if (!sel.unmatched.empty()) return kExitUsage;

    std::vector<size_t> mine;
    for (size_t k = 0; k < sel.cases.size(); ++k) {
      const bool known_bug = sel.cases[k].spec->expectation() == spec::Expectation::known_bug;
      if (shard.owns(k) && !(o->skip_known_bugs && known_bug)) mine.push_back(k);
    }
    std::vector<CaseOutcome> outcomes;
    std::vector<KernelRow> rows;
    std::map<const KernelSpec*, size_t> row_of;
    ProgressBar bar(io.err, io.progress, mine.size());
    for (size_t n = 0; n < mine.size(); ++n) {
      const Case c{sel.cases[mine[n]].spec, sel.cases[mine[n]].params, o->flags.seed};
      bar.update(n, c.id());
      // With --mode auto, every case on fibers and in lane loops too: their outputs must be
      // bit-identical. --mode fibers or loops runs that mode alone.
      const bool compare_modes = o->flags.options.mode == metalsim::ExecutionMode::automatic;
      CaseOutcome out = spec::CaseRunner::shared().run(c, o->flags.options, compare_modes);
      if (o->json) write_json_line(io.out, case_json("check", out));
      auto [it, added] = row_of.emplace(c.spec, rows.size());
      if (added) rows.emplace_back().spec = c.spec;
      KernelRow& row = rows[it->second];
      ++row.cases;
      row.ok += spec::verdict_ok(out.verdict());
      if (out.result.elements > 0 && !(out.result.max_error <= row.worst))
        row.worst = out.result.max_error;
      row.seconds += out.seconds;
      outcomes.push_back(std::move(out));
    }
    bar.finish();

    size_t passed = 0, failed = 0;
    for (const auto& out : outcomes) (spec::verdict_ok(out.verdict()) ? passed : failed)++;
    std::ostream& summary = o->json ? io.err : io.out;
    if (!o->json) {
      Table t({"kernel", "cases", "worst error", "checks", "time", "status"});
      t.align_right(1);
      t.align_right(2);
      t.align_right(4);
      for (const auto& r : rows)
        t.add({r.spec->name(), std::to_string(r.cases), format_ratio(r.worst),
               o->flags.options.checks.str(), format_seconds(r.seconds), row_status(r)});
      t.print(io.out);
      bool header = false;
      for (const auto& out : outcomes) {
        if (spec::verdict_ok(out.verdict())) continue;
        if (!header) io.out << "\nfailures:\n";
        header = true;
        print_failure(io.out, out);
      }
      header = false;
      for (const auto& out : outcomes) {
        if (!spec::verdict_ok(out.verdict()) || report::count_warnings(out.result.reports) == 0)
          continue;
        if (!header) io.out << "\nwarnings (the cases passed; --strict makes warnings failures):\n";
        header = true;
        print_warnings(io.out, out);
      }
    }
    size_t warned = 0;
    for (const auto& out : outcomes)
      warned += spec::verdict_ok(out.verdict()) && report::count_warnings(out.result.reports) > 0;
    bool header = false;
    for (const auto& r : rows) {
      if (r.spec->expectation() != spec::Expectation::known_bug || r.ok == 0) continue;
      if (!header) summary << "\nknown bugs reproduced (counted as passed):\n";
      header = true;
      summary << "  " << r.spec->name() << " (" << r.ok << " cases): " << r.spec->known_bug()
              << "\n";
    }
    if (!o->junit.empty()) {
      std::vector<JunitCase> cases;
      for (const auto& out : outcomes) cases.push_back(junit_case(out));
      if (!write_junit_file(o->junit, "metalsim check", cases)) {
        io.err << "metalsim: cannot write " << o->junit << "\n";
        return kExitUsage;
      }
    }
    summary << (header || !o->json ? "\n" : "") << passed << " passed, " << failed << " failed"
            << (warned > 0 ? " (" + std::to_string(warned) + " passed with warnings)" : "") << "\n";
    return failed == 0 ? kExitOk : kExitFailed;
  };
}

}  // namespace metalsim::cli
