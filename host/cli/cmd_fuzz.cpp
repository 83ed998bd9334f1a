// metalsim fuzz KERNEL... | --all: random valid cases biased to boundaries and schedules, in lane
// loops by default; each failure replayed on fibers with every check on, shrunk to a minimal case,
// printed as the `metalsim run` command that reproduces it and saved to --corpus.
// metalsim fuzz --replay DIR reruns a corpus as a regression test.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "host/cli/case_file_cli.h"
#include "host/cli/commands.h"
#include "host/cli/fuzzer.h"
#include "host/cli/output_json.h"
#include "host/cli/output_junit.h"
#include "host/cli/output_table.h"
#include "host/cli/progress_bar.h"
#include "kernels/spec/memory_budget.h"
#include "simt/engine/execution_mode.h"

namespace metalsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::vector<std::string> patterns;
  bool all = false;
  size_t cases = 0;
  double time = 0;
  RunFlags flags;
  CaseFileFlags file;
  std::string shard = "0/1";
  std::string corpus;
  std::string replay;
  std::string shrink = "kind";
  size_t max_shrink_runs = 200;
  int64_t limit = 0;
  std::string max_memory;
  std::string max_replay_memory = "16M";
  bool json = false;
  std::string junit;
};

std::string corpus_name(const Case& c, const metalsim::ExecutionOptions& options) {
  std::string name = c.id() + "_seed" + std::to_string(c.seed) + "_" + options.schedule.str();
  std::string out;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_') out += ch;
    else if (ch == '(' || ch == ',' || ch == ':') out += '_';
  }
  return out + ".json";
}

json corpus_entry(const CaseOutcome& found, const ShrinkResult& s, uint64_t fuzz_seed,
                  size_t index) {
  const Case& r = s.minimal;
  json entry = {
      {"kernel", r.spec->name()},
      {"params", params_json(r.params)},
      {"id", r.id()},
      {"seed", r.seed},
      {"schedule", s.options.schedule.str()},
      {"checks", s.options.checks.str()},
      {"mode", std::string(metalsim::execution_mode_name(s.options.mode))},
      {"strict", s.options.strict},
      {"expectation", r.spec->expectation() == spec::Expectation::known_bug ? "known_bug" : "pass"},
      {"failure_kind", spec::failure_kind(s.outcome.result)},
      {"failure", s.outcome.result.failure},
      {"repro", spec::repro_command(r, s.options)},
      {"found_as",
       {{"id", found.subject.id()},
        {"seed", found.subject.seed},
        {"schedule", found.options.schedule.str()},
        {"fuzz_seed", fuzz_seed},
        {"case_index", index},
        {"shrink_runs", s.runs}}}};
  // A user's kernel: the case file itself, so that --replay needs no other file than the .metal.
  if (const auto* file = dynamic_cast<const CaseFileSpec*>(r.spec))
    entry["case_file"] = case_file_record(*file);
  return entry;
}

// Reads one corpus entry back into a case and its options; false (with a message) when it cannot.
bool read_entry(const fs::path& path, Case& c, metalsim::ExecutionOptions& options,
                std::ostream& err) {
  try {
    std::ifstream file(path);
    const json j = json::parse(file);
    c.spec = j.contains("case_file") ? load_case_file_record(j.at("case_file"), err)
                                     : spec::SpecRegistry::find(j.at("kernel").get<std::string>());
    if (c.spec == nullptr && j.contains("case_file")) return false;  // said why
    if (c.spec == nullptr) {
      err << "metalsim: " << path.string() << ": no kernel named '"
          << j.at("kernel").get<std::string>() << "'\n";
      return false;
    }
    Params p;
    for (const auto& [k, v] : j.at("params").items()) p[k] = v.get<int64_t>();
    c.params = c.spec->complete(p);
    c.seed = j.at("seed").get<uint64_t>();
    if (!metalsim::SchedulePolicy::parse(j.at("schedule").get<std::string>(), options.schedule) ||
        !metalsim::CheckSet::parse(j.at("checks").get<std::string>(), options.checks) ||
        !metalsim::parse_execution_mode(j.value("mode", std::string("auto")), options.mode)) {
      err << "metalsim: " << path.string() << ": bad schedule, checks or mode\n";
      return false;
    }
    // A failure found under --strict (a warning) replays strict; --strict replays every entry so.
    options.strict = options.strict || j.value("strict", false);
    return true;
  } catch (const std::exception& e) {
    err << "metalsim: " << path.string() << ": " << e.what() << "\n";
    return false;
  }
}

std::vector<fs::path> corpus_files(const std::string& dir, std::error_code& ec) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

int replay(const Options& o, Io& io) {
  std::error_code ec;
  const std::vector<fs::path> files = corpus_files(o.replay, ec);
  if (ec) {
    io.err << "metalsim: cannot read corpus " << o.replay << ": " << ec.message() << "\n";
    return kExitUsage;
  }
  Table t({"entry", "case", "result"});
  std::vector<JunitCase> junit;
  size_t passed = 0, failed = 0, unreadable = 0;
  ProgressBar bar(io.err, io.progress, files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    Case c;
    metalsim::ExecutionOptions options = o.flags.options;
    if (!read_entry(files[i], c, options, io.err)) {
      ++unreadable;
      continue;
    }
    bar.update(i, c.id());
    const CaseOutcome out = run_case(c, options);
    const bool known = c.spec->expectation() == spec::Expectation::known_bug;
    const char* result =
        known ? (out.result.passed ? "known bug NOT reproduced" : "known bug reproduced")
              : (out.result.passed ? "fixed" : "STILL FAILS");
    (spec::verdict_ok(out.verdict()) ? passed : failed)++;
    t.add({files[i].filename().string(), c.id(),
           std::string(result) + (out.result.passed ? "" : ": " + out.result.failure)});
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
                             << (unreadable ? ", " + std::to_string(unreadable) + " unreadable"
                                            : "")
                             << "\n";
  if (unreadable) return kExitUsage;
  return failed == 0 ? kExitOk : kExitFailed;
}

// The first failure of a kind, shown in full; later ones of the kind are only counted.
struct KindRecord {
  size_t first_case = 0;
  std::string repro;  // the minimal case's, or the failing run's where none was shrunk
  size_t more = 0;    // failures of this kind after the first, not printed
};

// What fuzzing one spec found.
struct SpecTally {
  const KernelSpec* spec = nullptr;
  size_t cases = 0, failures = 0;
  size_t stopped = 0;             // cases stopped at the --time deadline (not counted as cases)
  std::set<std::string> minimal;  // distinct minimal repro commands
  std::map<std::string, KindRecord> kinds;  // failure kind -> its first failure
};

using Clock = std::chrono::steady_clock;

// One campaign: its options, checked, and what it has counted so far.
struct Campaign {
  Campaign(const Options& options, Io& streams, bool fixed)
      : o(options), io(streams), fixed_schedule(fixed) {}
  const Options& o;
  Io& io;
  bool fixed_schedule;
  Shard shard;
  size_t cases_per_spec = 0;
  std::optional<Clock::time_point> end;  // --time: the campaign's end
  uint64_t max_bytes = 0;                // the memory budget of one case
  uint64_t replay_bytes = 0;             // --max-replay-memory
  std::vector<SpecTally> tallies;        // one per spec, in name order
  std::vector<JunitCase> junit;
  ProgressBar* bar = nullptr;
  size_t passed = 0, failed = 0;
  size_t failing_cases = 0;  // every failure, a known bug's too (the progress line's)
  size_t over_budget = 0;    // draws thrown away as over the memory budget
  size_t stopped = 0;        // cases the watchdog stopped at the campaign's deadline
  size_t warned = 0;         // cases that passed with warnings (barrier.exited)

  std::ostream& text() const { return o.json ? io.err : io.out; }
};

// The memory budget of one case: --max-memory, else half of the memory available now.
bool memory_budget(const std::string& text, uint64_t& out) {
  if (!text.empty()) return spec::parse_bytes(text, out) && out > 0;
  out = spec::available_memory_bytes() / 2;
  if (out == 0) out = 4ull << 30;  // no /proc/meminfo: a modest default
  return true;
}

// A usage error in words, or "" when the options make a campaign.
std::string campaign_problem(const Options& o, Shard& shard) {
  if (!Shard::parse(o.shard, shard)) return "bad --shard '" + o.shard + "' (i/N with 0 <= i < N)";
  if (o.shrink != "kind" && o.shrink != "all" && o.shrink != "none")
    return "--shrink takes kind, all or none";
  if (!o.all && o.patterns.empty()) return "fuzz needs KERNEL... or --all";
  return {};
}

// With --time, a case's preparation, reference and comparison (which no watchdog can stop) must
// end near the deadline too: a case draws at most this many bytes per second left. Measured on
// the 2-core machine, the slowest specs prepare, check and compare about 40 MB a second.
constexpr uint64_t kBytesPerSecondLeft = 32ull << 20;

uint64_t time_capped_budget(uint64_t max_bytes, std::optional<Clock::time_point> deadline) {
  if (!deadline) return max_bytes;
  const double left =
      std::max(0.0, std::chrono::duration<double>(*deadline - Clock::now()).count());
  return std::min<uint64_t>(max_bytes,
                            uint64_t(left * double(kBytesPerSecondLeft)) + (128ull << 20));
}

// --time: every dispatch of a case (the run, the other schedules, initcheck's runs, the shrink's
// runs) ends at the deadline plus a second's grace: an absolute limit, not one per dispatch.
metalsim::ExecutionOptions with_deadline(metalsim::ExecutionOptions options,
                                         Clock::time_point deadline) {
  const auto limit = deadline + std::chrono::seconds(1);
  options.watchdog_deadline_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(limit.time_since_epoch()).count());
  return options;
}

bool stopped_by_watchdog(const CaseOutcome& out) {
  for (const auto& r : out.result.reports)
    if (r.check == report::CheckId::watchdog_timeout) return true;
  return false;
}

void print_reports(std::ostream& text, const spec::CaseResult& result) {
  for (size_t i = 0; i < std::min<size_t>(result.reports.size(), 3); ++i) {
    std::istringstream lines(result.reports[i].format());
    for (std::string l; std::getline(lines, l);) text << "    " << l << "\n";
  }
}

// The replay on fibers with every check is bounded: a known bug's large cases took 60 to 100 s
// each on the 2-core machine. Cases over --max-replay-memory are not replayed (the shrunk case,
// replayed instead where there is one, is nearly always small), and a replay stops after this
// long.
constexpr auto kReplayTime = std::chrono::seconds(10);

// Why the replay of `c` is skipped ("" when it is not): the size cap.
std::string replay_skipped(const Case& c, uint64_t max_bytes) {
  const uint64_t bytes = case_size_bytes(*c.spec, c.params);
  if (bytes <= max_bytes) return "";
  return "skipped: the case needs " + spec::format_bytes(bytes) + ", over the replay's " +
         spec::format_bytes(max_bytes) + " (--max-replay-memory)";
}

// Runs `subject` on fibers with every check, within kReplayTime (and the --time deadline);
// fills `status` ("skipped: ...", "stopped ...", the failure, or "passed").
std::optional<CaseOutcome> bounded_replay(const Campaign& cp, const Case& subject,
                                          const metalsim::ExecutionOptions& options,
                                          std::optional<Clock::time_point> deadline,
                                          std::string& status) {
  status = replay_skipped(subject, cp.replay_bytes);
  if (!status.empty()) return std::nullopt;
  Clock::time_point stop = Clock::now() + kReplayTime;
  if (deadline) stop = std::min(stop, *deadline);
  CaseOutcome again = run_case(subject, with_deadline(options, stop));
  status = stopped_by_watchdog(again)
               ? "stopped at its time limit (" + std::to_string(kReplayTime.count()) +
                     " s, or the --time deadline)"
           : again.result.passed ? "passed"
                                 : again.result.failure;
  return again;
}

// A failure found in lane loops (`subject`: the failing case or its shrunk case), run again on
// fibers with every check on: fibers name the thread, compare schedules and locate
// uninitialised reads, which lane loops cannot. When the replay fails, its reports (which name
// the thread) are printed instead of the lane loops'; skipped, stopped or passing, the lane
// loops' reports of the failing case follow it.
void replay_on_fibers(const Campaign& cp, const CaseOutcome& found, const Case& subject,
                      const metalsim::ExecutionOptions& subject_options,
                      std::optional<Clock::time_point> deadline, std::ostream& text, json& line) {
  metalsim::ExecutionOptions options = subject_options;
  options.mode = metalsim::ExecutionMode::fibers;
  options.checks = metalsim::CheckSet::all();
  std::string status;
  const std::optional<CaseOutcome> again = bounded_replay(cp, subject, options, deadline, status);
  text << "  on fibers with --checks all (" << subject.id() << "): " << status << "\n";
  if (again) line["fibers_replay"] = case_json("fuzz", *again);
  const bool named = again && !again->result.passed && !stopped_by_watchdog(*again);
  if (named) {
    print_reports(text, again->result);
  } else {
    line["fibers_replay_status"] = status;
    text << "  in lane loops (case " << found.subject.id() << "):\n";
    print_reports(text, found.result);
  }
  if (!again || !again->result.passed)
    text << "  explain on fibers: " << spec::repro_command(subject, options) << "\n";
}

// Shrinks a failure, prints the repro, saves it to the corpus; adds what it did to `line`.
ShrinkResult shrink_failure(Campaign& cp, const CaseOutcome& out, size_t k, SpecTally& tally,
                            std::ostream& text, json& line,
                            std::optional<Clock::time_point> deadline) {
  ShrinkResult s = shrink(out, cp.o.max_shrink_runs, run_case, deadline);
  const std::string repro = spec::repro_command(s.minimal, s.options);
  tally.minimal.insert(repro);
  text << "  shrunk in " << s.runs << " runs to " << s.minimal.id() << ": "
       << s.outcome.result.failure << "\n";
  text << "  reproduce: " << repro << "\n";
  line["shrunk"] = {{"id", s.minimal.id()},
                    {"seed", s.minimal.seed},
                    {"schedule", s.options.schedule.str()},
                    {"runs", s.runs},
                    {"failure", s.outcome.result.failure},
                    {"repro", repro}};
  if (cp.o.corpus.empty()) return s;
  const fs::path path = fs::path(cp.o.corpus) / corpus_name(s.minimal, s.options);
  std::ofstream(path) << corpus_entry(out, s, cp.o.flags.seed, k).dump(2) << "\n";
  text << "  saved: " << path.string() << "\n";
  line["corpus"] = path.string();
  return s;
}

// Prints a failure in full: what failed, its repro, its shrunk case and, found in lane loops,
// the replay on fibers that names the thread. Returns the repro that later failures of its kind
// are counted against.
std::string print_failure(Campaign& cp, const CaseOutcome& out, size_t k, SpecTally& tally,
                          json& line, std::optional<Clock::time_point> deadline) {
  std::ostream& text = cp.text();
  const Case& c = out.subject;
  const bool known = c.spec->expectation() == spec::Expectation::known_bug;
  text << (known ? "known bug " : "FAIL ") << "case " << k << ": " << c.id() << " seed " << c.seed
       << " schedule " << out.options.schedule.str() << ": " << out.result.failure << "\n";
  const bool in_loops = !engine::runs_on_fibers(out.options);
  std::string repro = spec::repro_command(c, out.options);
  // The failing run's own command first: it reproduces the failure whatever the replay finds.
  if (in_loops) text << "  reproduce: " << repro << "\n";
  std::optional<ShrinkResult> s;
  if (cp.o.shrink != "none") s = shrink_failure(cp, out, k, tally, text, line, deadline);
  if (s) repro = spec::repro_command(s->minimal, s->options);
  if (in_loops)
    replay_on_fibers(cp, out, s ? s->minimal : c, s ? s->options : out.options, deadline, text,
                     line);
  return repro;
}

// Runs case k of `spec`; the first failure of each kind (every failure with --shrink all) is
// printed in full, later ones only counted. A case that ran into the deadline is not counted.
void fuzz_one(Campaign& cp, const FuzzCase& fc, SpecTally& tally,
              std::optional<Clock::time_point> deadline) {
  const Case c{tally.spec, fc.params, fc.seed};
  metalsim::ExecutionOptions options = cp.o.flags.options;
  if (!cp.fixed_schedule && engine::runs_on_fibers(options)) options.schedule = fc.schedule;
  if (deadline) options = with_deadline(options, *deadline);
  cp.bar->update(cp.passed + cp.failed, c.id(), cp.failing_cases);
  CaseOutcome out = run_case(c, options);
  if (deadline && Clock::now() >= *deadline && stopped_by_watchdog(out)) {
    ++cp.stopped;
    ++tally.stopped;
    return;
  }
  // A random case that misses a known bug is no failure: fuzzing need not hit it every time.
  if (out.verdict() == Verdict::known_bug_not_reproduced) out.judgement = {Verdict::pass, {}};
  ++tally.cases;
  (spec::verdict_ok(out.verdict()) ? cp.passed : cp.failed)++;
  cp.warned += spec::verdict_ok(out.verdict()) && report::count_warnings(out.result.reports) > 0;
  cp.junit.push_back(junit_case(out));
  json line = case_json("fuzz", out);
  line["case_index"] = fc.index;
  if (!out.result.passed) {
    ++tally.failures;
    ++cp.failing_cases;
    const std::string kind = spec::failure_kind(out.result);
    const auto seen = tally.kinds.find(kind);
    if (seen != tally.kinds.end() && cp.o.shrink != "all") {
      ++seen->second.more;
    } else {
      cp.bar->finish();
      const std::string repro = print_failure(cp, out, fc.index, tally, line, deadline);
      if (seen == tally.kinds.end()) tally.kinds[kind] = {fc.index, repro, 0};
    }
  }
  if (cp.o.json) write_json_line(cp.io.out, line);
}

// Draws and runs case k of a spec, when this shard owns it and a draw fits the budget.
void run_index(Campaign& cp, SpecTally& tally, size_t k,
               std::optional<Clock::time_point> deadline) {
  if (!cp.shard.owns(k)) return;
  const DrawLimits limits =
      ramped({cp.o.limit, time_capped_budget(cp.max_bytes, deadline), cp.o.flags.options}, k);
  const FuzzCase fc = CaseGenerator(*tally.spec, cp.o.flags.seed, limits).generate(k);
  cp.over_budget += fc.over_budget;
  if (!fc.found && fc.over_budget > 0) return;  // nothing of this index fits the budget
  fuzz_one(cp, fc, tally, deadline);
}

// --cases alone: each kernel's cases in turn.
void fuzz_in_turn(Campaign& cp) {
  for (SpecTally& tally : cp.tallies)
    for (size_t k = 0; k < cp.cases_per_spec; ++k) run_index(cp, tally, k, std::nullopt);
}

// In the first round of a --time campaign every kernel gets at least this long for its case,
// even past the campaign's end: a kernel whose case overran (the watchdog's second of grace,
// the teardown) must not leave the kernels after it in name order without a case.
constexpr auto kFirstRoundSlice = std::chrono::milliseconds(500);

// --time: round robin, case k of every kernel before case k + 1 of any; each case may take the
// time left divided by the kernels still to run in this round.
void fuzz_round_robin(Campaign& cp) {
  const size_t n = cp.tallies.size();
  for (size_t k = 0; k < cp.cases_per_spec; ++k) {
    if (!cp.shard.owns(k)) continue;
    const bool first_round = k == cp.shard.index;
    for (size_t i = 0; i < n; ++i) {
      const Clock::time_point now = Clock::now();
      if (!first_round && now >= *cp.end) return;
      Clock::time_point deadline = now + (std::max(*cp.end, now) - now) / int64_t(n - i);
      if (first_round) deadline = std::max(deadline, now + kFirstRoundSlice);
      run_index(cp, cp.tallies[i], k, deadline);
    }
  }
}

// Failures of a kind already shown, one line per kind.
void print_repeats(const Campaign& cp, std::ostream& out) {
  bool any = false;
  for (const auto& s : cp.tallies)
    for (const auto& [kind, record] : s.kinds) {
      if (record.more == 0) continue;
      out << s.spec->name() << ": " << record.more << " more " << kind
          << (record.more == 1 ? " failure" : " failures") << " not printed (shown: case "
          << record.first_case << "; reproduce: " << record.repro << ")\n";
      any = true;
    }
  if (any) out << "\n";
}

void print_tallies(const Campaign& cp, std::ostream& out) {
  Table t({"kernel", "cases", "failures", "minimal repros", "stopped", "status"});
  for (size_t c : {1, 2, 3, 4}) t.align_right(c);
  for (const auto& s : cp.tallies) {
    const bool bug = s.spec->expectation() == spec::Expectation::known_bug;
    const std::string status = bug ? (s.failures ? "known bug reproduced" : "known bug not hit")
                                   : (s.failures ? "FAIL" : "pass");
    t.add({s.spec->name(), std::to_string(s.cases), std::to_string(s.failures),
           std::to_string(s.minimal.size()), std::to_string(s.stopped), status});
  }
  if (cp.tallies.empty()) return;
  out << "\n";
  print_repeats(cp, out);
  t.print(out);
}

// The cases a kernel's campaign runs on this shard (0: unbounded, --time).
size_t owned_cases(const Campaign& cp) {
  const size_t n = cp.cases_per_spec;
  if (n == SIZE_MAX) return 0;
  return (n + cp.shard.count - 1 - cp.shard.index) / cp.shard.count;
}

// A progress line drawn only after the first seconds: a short campaign prints none.
constexpr auto kProgressQuiet = std::chrono::seconds(2);

int fuzz(const Options& o, Io& io, bool fixed_schedule) {
  Campaign cp(o, io, fixed_schedule);
  if (const std::string problem = campaign_problem(o, cp.shard); !problem.empty()) {
    io.err << "metalsim: " << problem << "\n";
    return kExitUsage;
  }
  bool loaded = true;  // case files (FILE.json, FILE.metal) among the patterns
  const auto specs =
      o.all ? select_specs({}) : select_specs_or_case_files(o.patterns, o.file, io.err, loaded);
  if (!loaded) return kExitUsage;
  if (specs.empty() && !o.all) {
    io.err << "metalsim: no kernel matches\n";
    return kExitUsage;
  }
  if (!o.corpus.empty()) fs::create_directories(o.corpus);
  if (!memory_budget(o.max_memory, cp.max_bytes)) {
    io.err << "metalsim: bad --max-memory '" << o.max_memory << "' (bytes, or with K, M or G)\n";
    return kExitUsage;
  }
  if (!spec::parse_bytes(o.max_replay_memory, cp.replay_bytes)) {
    io.err << "metalsim: bad --max-replay-memory '" << o.max_replay_memory
           << "' (bytes, or with K, M or G)\n";
    return kExitUsage;
  }
  cp.cases_per_spec = o.cases > 0 ? o.cases : (o.time > 0 ? SIZE_MAX : 100);
  cp.tallies.resize(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) cp.tallies[i].spec = specs[i];
  ProgressBar bar(io.err, io.progress, specs.size() * owned_cases(cp), kProgressQuiet);
  cp.bar = &bar;
  if (o.time > 0) {
    bar.set_time_limit(o.time);
    cp.end = Clock::now() +
             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.time));
    fuzz_round_robin(cp);
  } else {
    fuzz_in_turn(cp);
  }
  bar.finish();

  std::ostream& summary = cp.text();
  print_tallies(cp, summary);
  if (!o.junit.empty() && !write_junit_file(o.junit, "metalsim fuzz", cp.junit)) {
    io.err << "metalsim: cannot write " << o.junit << "\n";
    return kExitUsage;
  }
  if (cp.over_budget > 0)
    summary << cp.over_budget << " draws over the memory budget of "
            << spec::format_bytes(cp.max_bytes) << " per case skipped (--max-memory)\n";
  if (cp.stopped > 0)
    summary << cp.stopped << (cp.stopped == 1 ? " case" : " cases")
            << " stopped at the --time deadline (not counted; column 'stopped')\n";
  if (cp.warned > 0)
    summary << cp.warned << (cp.warned == 1 ? " case" : " cases")
            << " passed with warnings (--strict makes warnings failures; --json lists them)\n";
  summary << cp.passed << " passed, " << cp.failed << " failed (seed " << o.flags.seed << ", shard "
          << cp.shard.str() << ")\n";
  return cp.failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Action setup_fuzz(CLI::App& sub, Io& io) {
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->patterns, "names, families, globs, or case files (FILE.json)");
  o->file.add_to(sub, false);
  sub.add_flag("--all", o->all, "every registered spec");
  sub.add_option("--cases", o->cases, "cases per kernel (default 100; unlimited with --time)");
  sub.add_option("--time", o->time, "seconds for the whole campaign, shared among the kernels");
  // Lane loops by default (auto, in-order: the checks they support); each failure is replayed
  // on fibers with every check on.
  o->flags.add_to(sub, "sync,mem");
  sub.get_option("--seed")->description(
      "campaign seed: case k of a kernel depends only on (seed, k)");
  sub.get_option("--schedule")
      ->description("run every case under this schedule")
      ->default_str("in-order in lane loops, random per case on fibers");
  sub.add_option("--shard", o->shard, "i/N: run cases k with k % N == i")->capture_default_str();
  sub.add_option("--corpus", o->corpus, "save each shrunk failure as DIR/<case>.json");
  sub.add_option("--replay", o->replay, "rerun the corpus in DIR as a regression test");
  sub.add_option("--shrink", o->shrink,
                 "kind: the first failure of each kind per kernel; all; none")
      ->capture_default_str();
  sub.add_option("--max-shrink-runs", o->max_shrink_runs, "cases run while shrinking one failure")
      ->capture_default_str();
  sub.add_option("--max-memory", o->max_memory,
                 "memory one case may need, e.g. 2G (default: half of the memory available)");
  sub.add_option("--max-replay-memory", o->max_replay_memory,
                 "replay on fibers with every check only cases needing at most this much (0: none)")
      ->capture_default_str();
  sub.add_option("--limit", o->limit,
                 "draw no parameter above this value (choices exempt; 0: each one's max)");
  sub.add_flag("--json", o->json, "one JSON object per case and line on stdout");
  sub.add_option("--junit", o->junit, "also write JUnit XML, one testcase per case, to FILE");
  CLI::App* app = &sub;
  return [o, &io, app] {
    if (!o->replay.empty()) return replay(*o, io);
    return fuzz(*o, io, app->get_option("--schedule")->count() > 0);
  };
}

}  // namespace metalsim::cli
