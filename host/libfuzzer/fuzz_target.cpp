#include "host/libfuzzer/fuzz_target.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "host/cli/case_file_cli.h"
#include "host/cli/commands.h"
#include "host/cli/fuzzer.h"
#include "kernels/spec/memory_budget.h"
#include "simt/engine/execution_mode.h"

namespace metalsim::libfuzzer {
namespace {

namespace fs = std::filesystem;
using cli::Case;
using cli::CaseOutcome;
using cli::KernelSpec;

// A binary named metalsim_fuzz_<target> fuzzes <target>: an engine that runs every fuzz target
// binary in a folder (ClusterFuzzLite, OSS-Fuzz) passes no arguments of ours.
constexpr std::string_view kProgramPrefix = "metalsim_fuzz_";

struct Target {
  std::string name;  // a spec, or a case file (FILE.json)
  std::string program;
  const KernelSpec* spec = nullptr;
  cli::CaseFileFlags file;
  metalsim::ExecutionOptions options;
  cli::DrawLimits limits;
  int64_t limit = 256;
  std::string max_case_bytes = "16M";
  size_t shrink_runs = 64;
  bool known_bugs = false;
  bool print_cases = false;
};

Target& target() {
  static Target t;
  return t;
}

[[noreturn]] void usage_error(const std::string& why) {
  std::cerr << "metalsim-libfuzzer: " << why << "\n"
            << "  name a target: --target=SPEC or --target=FILE.json [--kernel=NAME], "
               "METALSIM_FUZZ_TARGET, or a program named "
            << kProgramPrefix << "SPEC\n"
            << "  options: --checks=C --mode=M --workers=N --strict --limit=V "
               "--max-case-bytes=B --shrink-runs=N --known-bugs --print-cases (see docs/cli.md)\n";
  std::exit(2);
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

// The target a program name implies: metalsim_fuzz_<name>, a case file <name>.json beside the
// program when there is one, else the spec <name>.
std::string target_from_program(const std::string& program) {
  const fs::path path(program);
  const std::string base = path.filename().string();
  if (!base.starts_with(kProgramPrefix)) return "";
  const std::string name = base.substr(kProgramPrefix.size());
  const fs::path beside = path.parent_path() / (name + ".json");
  std::error_code ec;
  return fs::exists(beside, ec) ? beside.string() : name;
}

// The arguments of ours: libFuzzer ignores those that start with "--" (and says so).
std::vector<std::string> our_arguments(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]).starts_with("--")) args.emplace_back(argv[i]);
  return args;
}

void parse_arguments(Target& t, int argc, char** argv) {
  CLI::App app("metalsim-libfuzzer");
  app.allow_windows_style_options(false);
  app.add_option("--target", t.name, "a spec name or a case file (FILE.json)");
  t.file.add_to(app, false);
  app.add_option_function<std::string>("--checks", [&t](const std::string& text) {
    if (!metalsim::CheckSet::parse(text, t.options.checks))
      usage_error("--checks: '" + text + "' is not a list of sync,init,mem,race, all or none");
  });
  app.add_option_function<std::string>("--mode", [&t](const std::string& text) {
    if (!metalsim::parse_execution_mode(text, t.options.mode))
      usage_error("--mode: '" + text + "' is not fibers, loops or auto");
  });
  app.add_option("--workers", t.options.workers);
  app.add_flag("--strict", t.options.strict);
  app.add_option("--limit", t.limit);
  app.add_option("--max-case-bytes", t.max_case_bytes);
  app.add_option("--shrink-runs", t.shrink_runs);
  app.add_flag("--known-bugs", t.known_bugs);
  app.add_flag("--print-cases", t.print_cases);
  std::vector<std::string> args = our_arguments(argc, argv);
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector in reverse order
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    usage_error(e.what());
  }
}

// The spec the target names, loaded (a case file is compiled now, once).
const KernelSpec* load_spec(const Target& t) {
  if (cli::is_case_file_target(t.name)) {
    const KernelSpec* spec = cli::load_case_file_spec(t.name, t.file, {}, std::cerr);
    if (spec == nullptr) usage_error("cannot load the case file " + t.name);
    return spec;
  }
  const KernelSpec* spec = spec::SpecRegistry::find(t.name);
  if (spec == nullptr) usage_error("no spec named '" + t.name + "' (metalsim list names them)");
  return spec;
}

// Draws as `metalsim fuzz` draws its first cases: values at most --limit (256 by default, small
// enough that an input runs in milliseconds to a second) and bytes of its own at most
// --max-case-bytes, within half the memory available.
void set_limits(Target& t) {
  uint64_t size_bytes = 0;
  if (!spec::parse_bytes(t.max_case_bytes, size_bytes) || size_bytes == 0)
    usage_error("--max-case-bytes: '" + t.max_case_bytes + "' is not bytes (with K, M or G)");
  const uint64_t available = spec::available_memory_bytes() / 2;
  t.limits = {t.limit, available > 0 ? available : 4ull << 30, t.options, size_bytes};
}

// ------------------------------ features

// A value's class: its index among the favoured values, else its power of two above the minimum.
uint32_t value_class(const spec::ParamDef& def, int64_t v) {
  const std::vector<int64_t> favoured = cli::boundary_values(def);
  const auto at = std::find(favoured.begin(), favoured.end(), v);
  if (at != favoured.end()) return uint32_t(at - favoured.begin());
  return 64 + uint32_t(std::bit_width(uint64_t(v - def.min)));
}

uint32_t mix(uint32_t h, uint32_t v) { return (h ^ v) * 0x01000193u; }

void add_feature(InputResult& r, std::initializer_list<uint32_t> parts) {
  if (r.feature_count == InputResult::kMaxFeatures) return;
  uint32_t h = 0x811c9dc5u;
  for (uint32_t p : parts) h = mix(h, p);
  r.features[r.feature_count++] = h;
}

// Each parameter's class and each pair's: the corners of the parameter space a case reached.
void shape_features(const KernelSpec& spec, const cli::Params& params, InputResult& r) {
  const auto defs = spec.params();
  std::vector<uint32_t> classes;
  for (const auto& d : defs) classes.push_back(value_class(d, params.at(d.name)));
  for (uint32_t i = 0; i < classes.size(); ++i) {
    add_feature(r, {1, i, classes[i]});
    for (uint32_t j = i + 1; j < classes.size(); ++j)
      add_feature(r, {2, i, j, classes[i], classes[j]});
  }
}

uint32_t text_hash(const std::string& text) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : text) h = mix(h, c);
  return h;
}

// What the run showed: how near the tolerance the worst element came (a gradient towards a
// wrong result), the failure kind, the reports' checks.
void outcome_features(const CaseOutcome& out, InputResult& r) {
  add_feature(r, {3, uint32_t(out.options.schedule.kind)});
  const auto& res = out.result;
  if (res.elements > 0 && res.max_error > 0)
    add_feature(r, {4, uint32_t(std::clamp(std::ilogb(res.max_error) + 64, 0, 127))});
  add_feature(r, {5, text_hash(spec::failure_kind(res))});
  for (const auto& rep : res.reports) add_feature(r, {6, uint32_t(rep.check)});
}

// ------------------------------ findings

FindingClass finding_class(const std::string& kind) {
  const std::string family = kind.substr(0, kind.find('.'));
  if (family == "bounds" || family == "stack" || kind == "kernel.fault")
    return FindingClass::bounds;
  if (family == "race" || kind == "mode.divergent") return FindingClass::race;
  if (family == "barrier" || family == "simd" || family == "sync") return FindingClass::sync;
  if (family == "uninit") return FindingClass::init;
  if (kind == "mismatch" || kind == "unwritten" || kind == "non_finite")
    return FindingClass::wrong_result;
  return FindingClass::other;
}

// The finding in full, then the commands that reproduce it: the failing case, its shrunk case
// and the input itself. libFuzzer prints where it saved the input once the driver aborts.
void print_finding(const Target& t, const CaseOutcome& out) {
  std::cerr << "\n==metalsim== finding in " << t.name << ": " << out.result.failure << "\n";
  cli::print_case(std::cerr, out);
  std::cerr << "==metalsim== reproduce: " << spec::repro_command(out.subject, out.options) << "\n";
  if (t.shrink_runs > 0) {
    const cli::ShrinkResult s = cli::shrink(out, t.shrink_runs);
    std::cerr << "==metalsim== shrunk in " << s.runs << " runs to " << s.minimal.id() << ": "
              << s.outcome.result.failure << "\n"
              << "==metalsim== reproduce: " << spec::repro_command(s.minimal, s.options) << "\n";
  }
  std::cerr << "==metalsim== replay the input: " << t.program << " --target=" << t.name
            << (t.file.kernel.empty() ? "" : " --kernel=" + t.file.kernel) << " CRASH_FILE\n";
}

}  // namespace

void initialize(int argc, char** argv) {
  Target& t = target();
  t.program = argc > 0 ? argv[0] : "metalsim-libfuzzer";
  t.options = metalsim::ExecutionOptions::from_environment();
  // As `metalsim fuzz`: sync,mem, so that cases run in lane loops, unless METALSIM_CHECKS says.
  if (std::getenv("METALSIM_CHECKS") == nullptr)
    metalsim::CheckSet::parse("sync,mem", t.options.checks);
  if (const char* env = std::getenv("METALSIM_FUZZ_TARGET")) t.name = env;
  t.known_bugs = env_flag("METALSIM_FUZZ_KNOWN_BUGS");
  parse_arguments(t, argc, argv);
  if (t.name.empty()) t.name = target_from_program(t.program);
  if (t.name.empty()) usage_error("no target");
  t.spec = load_spec(t);
  if (t.spec->expectation() == spec::Expectation::known_bug && !t.known_bugs)
    usage_error(t.name + " reproduces a known bug (" + t.spec->known_bug() +
                "): every failure is expected, so it is no target unless --known-bugs "
                "(or METALSIM_FUZZ_KNOWN_BUGS=1) makes its failures findings");
  set_limits(t);
}

InputResult run_input(const uint8_t* data, size_t size) {
  const Target& t = target();
  InputResult r;
  cli::ByteDraws draws(data, size);
  const cli::FuzzCase fc = cli::draw_case(*t.spec, draws, t.limits);
  if (!fc.found && fc.over_budget > 0) return r;  // nothing these bytes draw fits in memory
  metalsim::ExecutionOptions options = t.options;
  if (engine::runs_on_fibers(options)) options.schedule = fc.schedule;
  const Case c{t.spec, fc.params, fc.seed};
  // What the bytes mapped to, before it runs: a slow or hanging input names its case.
  if (t.print_cases)
    std::cerr << "==metalsim== case " << c.id() << " seed " << c.seed << " schedule "
              << options.schedule.str() << std::endl;
  const CaseOutcome out = cli::run_case(c, options);
  shape_features(*t.spec, fc.params, r);
  outcome_features(out, r);
  if (out.result.passed) return r;
  print_finding(t, out);
  r.finding = finding_class(spec::failure_kind(out.result));
  return r;
}

}  // namespace metalsim::libfuzzer
