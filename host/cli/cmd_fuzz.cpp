// metalsim fuzz KERNEL... | --all: random valid cases biased to boundaries and schedules; each
// failure shrunk to a minimal case, printed as the `metalsim run` command that reproduces it
// and saved to --corpus. metalsim fuzz --replay DIR reruns a corpus as a regression test.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "host/cli/commands.h"
#include "host/cli/fuzzer.h"
#include "host/cli/output_json.h"
#include "host/cli/output_junit.h"
#include "host/cli/output_table.h"
#include "host/cli/progress_bar.h"

namespace metalsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> patterns;
  bool all = false;
  size_t cases = 0;
  double time = 0;
  RunFlags flags;
  std::string shard = "0/1";
  std::string corpus;
  std::string replay;
  std::string shrink = "kind";
  size_t max_shrink_runs = 200;
  int64_t limit = 0;
  bool json = false;
  std::string junit;
};

std::string corpus_name(const CaseRequest& r) {
  std::string name = r.id() + "_seed" + std::to_string(r.seed) + "_" + r.schedule.str();
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') out += c;
    else if (c == '(' || c == ',' || c == ':') out += '_';
  }
  return out + ".json";
}

json corpus_entry(const CaseOutcome& found, const ShrinkResult& s, uint64_t fuzz_seed, size_t index) {
  const CaseRequest& r = s.minimal;
  return {{"kernel", r.spec->name()},
          {"params", params_json(r.params)},
          {"id", r.id()},
          {"seed", r.seed},
          {"schedule", r.schedule.str()},
          {"checks", checks_str(r.checks)},
          {"race_seed", r.race_seed},
          {"expectation", r.spec->expectation() == spec::Expectation::known_bug ? "known_bug" : "pass"},
          {"failure_kind", failure_kind(s.outcome.result)},
          {"failure", s.outcome.result.failure},
          {"repro", repro_command(r)},
          {"found_as", {{"id", found.request.id()},
                        {"seed", found.request.seed},
                        {"schedule", found.request.schedule.str()},
                        {"fuzz_seed", fuzz_seed},
                        {"case_index", index},
                        {"shrink_runs", s.runs}}}};
}

// Reads one corpus entry back into a request; false (with a message) when it cannot.
bool read_entry(const fs::path& path, CaseRequest& r, std::ostream& err) {
  try {
    std::ifstream file(path);
    const json j = json::parse(file);
    r.spec = spec::SpecRegistry::find(j.at("kernel").get<std::string>());
    if (r.spec == nullptr) {
      err << "metalsim: " << path.string() << ": no kernel named '" << j.at("kernel").get<std::string>() << "'\n";
      return false;
    }
    Params p;
    for (const auto& [k, v] : j.at("params").items()) p[k] = v.get<int64_t>();
    r.params = r.spec->complete(p);
    r.seed = j.at("seed").get<uint64_t>();
    r.race_seed = j.value("race_seed", r.seed);
    if (!engine::SchedulePolicy::parse(j.at("schedule").get<std::string>(), r.schedule) ||
        !check::CheckSet::parse(j.at("checks").get<std::string>(), r.checks)) {
      err << "metalsim: " << path.string() << ": bad schedule or checks\n";
      return false;
    }
    return true;
  } catch (const std::exception& e) {
    err << "metalsim: " << path.string() << ": " << e.what() << "\n";
    return false;
  }
}

int replay(const Options& o, Io& io) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(o.replay, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  if (ec) {
    io.err << "metalsim: cannot read corpus " << o.replay << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  std::sort(files.begin(), files.end());
  Table t({"entry", "case", "result"});
  std::vector<JunitCase> junit;
  size_t passed = 0, failed = 0, unreadable = 0;
  ProgressBar bar(io.err, io.progress, files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    CaseRequest r;
    if (!read_entry(files[i], r, io.err)) {
      ++unreadable;
      continue;
    }
    if (o.flags.workers != 0) r.workers = o.flags.workers;
    bar.update(i, r.id());
    const CaseOutcome out = run_case(r);
    const bool known = r.spec->expectation() == spec::Expectation::known_bug;
    const char* result = known ? (out.result.passed ? "known bug NOT reproduced" : "known bug reproduced")
                               : (out.result.passed ? "fixed" : "STILL FAILS");
    (verdict_ok(out.verdict) ? passed : failed)++;
    t.add({files[i].filename().string(), r.id(), std::string(result) +
                                                     (out.result.passed ? "" : ": " + out.result.failure)});
    if (o.json) write_json_line(io.out, case_json("fuzz-replay", out));
    junit.push_back(junit_case(out));
  }
  bar.finish();
  if (!o.json) t.print(io.out);
  if (!o.junit.empty() && !write_junit_file(o.junit, "metalsim fuzz --replay", junit)) {
    io.err << "metalsim: cannot write " << o.junit << "\n";
    return kExitUsage;
  }
  (o.json ? io.err : io.out) << passed << " passed, " << failed << " failed"
                             << (unreadable ? ", " + std::to_string(unreadable) + " unreadable" : "") << "\n";
  if (unreadable) return kExitUsage;
  return failed == 0 ? kExitOk : kExitFailed;
}

// What fuzzing one spec found.
struct SpecTally {
  const KernelSpec* spec = nullptr;
  size_t cases = 0, failures = 0;
  std::set<std::string> minimal;  // distinct minimal repro commands
};

int fuzz(const Options& o, Io& io, bool fixed_schedule) {
  CaseRequest base;
  Shard shard;
  if (!o.flags.fill(base, io.err)) return kExitUsage;
  if (!Shard::parse(o.shard, shard)) {
    io.err << "metalsim: bad --shard '" << o.shard << "' (i/N with 0 <= i < N)\n";
    return kExitUsage;
  }
  if (o.shrink != "kind" && o.shrink != "all" && o.shrink != "none") {
    io.err << "metalsim: --shrink takes kind, all or none\n";
    return kExitUsage;
  }
  if (!o.all && o.patterns.empty()) {
    io.err << "metalsim: fuzz needs KERNEL... or --all\n";
    return kExitUsage;
  }
  const auto specs = select_specs(o.all ? std::vector<std::string>{} : o.patterns);
  if (specs.empty() && !o.all) {
    io.err << "metalsim: no kernel matches\n";
    return kExitUsage;
  }
  if (!o.corpus.empty()) fs::create_directories(o.corpus);
  const size_t cases = o.cases > 0 ? o.cases : (o.time > 0 ? SIZE_MAX : 100);
  const double per_spec = specs.empty() ? 0 : o.time / double(specs.size());

  std::vector<SpecTally> tallies;
  std::vector<JunitCase> junit;
  size_t passed = 0, failed = 0;
  for (const KernelSpec* spec : specs) {
    SpecTally tally;
    tally.spec = spec;
    std::map<std::string, std::string> shrunk_kinds;  // failure kind -> minimal repro
    const CaseGenerator gen(*spec, base.seed, o.limit);
    const auto start = std::chrono::steady_clock::now();
    ProgressBar bar(io.err, io.progress, cases == SIZE_MAX ? 0 : (cases + shard.count - 1 - shard.index) / shard.count);
    for (size_t k = 0; k < cases; ++k) {
      if (o.time > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > per_spec)
        break;
      if (!shard.owns(k)) continue;
      const FuzzCase fc = gen.generate(k);
      CaseRequest req = base;
      req.spec = spec;
      req.params = fc.params;
      req.seed = fc.seed;
      req.race_seed = fc.seed;
      if (!fixed_schedule) req.schedule = fc.schedule;
      bar.update(tally.cases, req.id());
      CaseOutcome out = run_case(req);
      // A random case that misses a known bug is no failure: fuzzing need not hit it every time.
      if (out.verdict == Verdict::known_bug_not_reproduced) out.verdict = Verdict::pass;
      ++tally.cases;
      (verdict_ok(out.verdict) ? passed : failed)++;
      junit.push_back(junit_case(out));
      json line = case_json("fuzz", out);
      line["case_index"] = k;
      if (out.result.passed) {
        if (o.json) write_json_line(io.out, line);
        continue;
      }
      ++tally.failures;
      const std::string kind = failure_kind(out.result);
      bar.finish();
      std::ostream& text = o.json ? io.err : io.out;
      text << (spec->expectation() == spec::Expectation::known_bug ? "known bug " : "FAIL ") << "case " << k
           << ": " << req.id() << " seed " << req.seed << " schedule " << req.schedule.str() << ": "
           << out.result.failure << "\n";
      const bool do_shrink = o.shrink == "all" || (o.shrink == "kind" && !shrunk_kinds.contains(kind));
      if (!do_shrink) {
        if (shrunk_kinds.contains(kind)) text << "  same kind (" << kind << ") as " << shrunk_kinds[kind] << "\n";
        if (o.json) write_json_line(io.out, line);
        continue;
      }
      const ShrinkResult s = shrink(out, o.max_shrink_runs);
      const std::string repro = repro_command(s.minimal);
      shrunk_kinds[kind] = repro;
      tally.minimal.insert(repro);
      text << "  shrunk in " << s.runs << " runs to " << s.minimal.id() << ": " << s.outcome.result.failure << "\n";
      text << "  reproduce: " << repro << "\n";
      line["shrunk"] = {{"id", s.minimal.id()}, {"seed", s.minimal.seed},
                        {"schedule", s.minimal.schedule.str()}, {"runs", s.runs},
                        {"failure", s.outcome.result.failure}, {"repro", repro}};
      if (!o.corpus.empty()) {
        const fs::path path = fs::path(o.corpus) / corpus_name(s.minimal);
        std::ofstream(path) << corpus_entry(out, s, base.seed, k).dump(2) << "\n";
        text << "  saved: " << path.string() << "\n";
        line["corpus"] = path.string();
      }
      if (o.json) write_json_line(io.out, line);
    }
    bar.finish();
    tallies.push_back(std::move(tally));
  }

  std::ostream& summary = o.json ? io.err : io.out;
  Table t({"kernel", "cases", "failures", "minimal repros", "status"});
  t.align_right(1);
  t.align_right(2);
  t.align_right(3);
  for (const auto& s : tallies) {
    const bool bug = s.spec->expectation() == spec::Expectation::known_bug;
    const std::string status = bug ? (s.failures ? "known bug reproduced" : "known bug not hit")
                                   : (s.failures ? "FAIL" : "pass");
    t.add({s.spec->name(), std::to_string(s.cases), std::to_string(s.failures),
           std::to_string(s.minimal.size()), status});
  }
  if (!tallies.empty()) {
    summary << "\n";
    t.print(summary);
  }
  if (!o.junit.empty() && !write_junit_file(o.junit, "metalsim fuzz", junit)) {
    io.err << "metalsim: cannot write " << o.junit << "\n";
    return kExitUsage;
  }
  summary << passed << " passed, " << failed << " failed (seed " << base.seed << ", shard " << shard.str() << ")\n";
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Action setup_fuzz(CLI::App& sub, Io& io) {
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->patterns, "names, families or globs");
  sub.add_flag("--all", o->all, "every registered spec");
  sub.add_option("--cases", o->cases, "cases per kernel (default 100; unlimited with --time)");
  sub.add_option("--time", o->time, "seconds for the whole campaign, shared among the kernels");
  o->flags.add_to(sub, "sync,init,mem");
  sub.get_option("--seed")->description("campaign seed: case k of a kernel depends only on (seed, k)");
  sub.get_option("--schedule")->description("run every case under this schedule")->default_str("random per case");
  sub.add_option("--shard", o->shard, "i/N: run cases k with k % N == i")->capture_default_str();
  sub.add_option("--corpus", o->corpus, "save each shrunk failure as DIR/<case>.json");
  sub.add_option("--replay", o->replay, "rerun the corpus in DIR as a regression test");
  sub.add_option("--shrink", o->shrink, "kind: the first failure of each kind per kernel; all; none")
      ->capture_default_str();
  sub.add_option("--max-shrink-runs", o->max_shrink_runs, "cases run while shrinking one failure")
      ->capture_default_str();
  sub.add_option("--limit", o->limit, "draw no parameter above this value (choices exempt; 0: each one's max)");
  sub.add_flag("--json", o->json, "one JSON object per case and line on stdout");
  sub.add_option("--junit", o->junit, "also write JUnit XML, one testcase per case, to FILE");
  CLI::App* app = &sub;
  return [o, &io, app] {
    if (!o->replay.empty()) return replay(*o, io);
    return fuzz(*o, io, app->get_option("--schedule")->count() > 0);
  };
}

}  // namespace metalsim::cli
