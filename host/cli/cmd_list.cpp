// metalsim list: every spec with its family, summary, expectation and parameters; then every
// kernel linked into the program with the execution modes it can run in (docs/lanes.md);
// --kernels: the kernels alone.
#include <fnmatch.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/output_table.h"
#include "simt/abi/kernel.h"
#include "simt/engine/execution_mode.h"
#include "simt/engine/kernel_variants.h"

namespace metalsim::cli {
namespace {

std::string join(const std::vector<int64_t>& values) {
  std::string s;
  for (int64_t v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

std::string range(const spec::ParamDef& d) {
  if (!d.choices.empty()) return "{" + join(d.choices) + "}";
  return std::to_string(d.min) + ".." + std::to_string(d.max);
}

void print_spec(std::ostream& out, const KernelSpec& s) {
  const bool bug = s.expectation() == spec::Expectation::known_bug;
  out << s.name() << "  [" << s.family() << "]  " << (bug ? "known bug" : "expected to pass")
      << "\n";
  out << "  " << s.summary() << "\n";
  if (bug) out << "  known bug: " << s.known_bug() << "\n";
  out << "  " << s.sweep().size() << " sweep cases, " << s.bench_cases().size() << " bench cases\n";
  Table t({"param", "range", "fallback", "boundaries", "meaning"});
  for (const auto& d : s.params())
    t.add({d.name, range(d), std::to_string(d.fallback), join(d.boundaries), d.help});
  std::ostringstream table;
  t.print(table);
  std::istringstream lines(table.str());
  for (std::string line; std::getline(lines, line);) out << "    " << line << "\n";
  out << "\n";
}

// "fibers, loops", or "fibers" and why not loops (the pass's reason names file:line).
std::string kernel_modes(const engine::KernelInfo& k, std::string& why_not_loops) {
  why_not_loops = engine::lane_loops_unavailable(k);
  return why_not_loops.empty() ? "fibers, loops" : "fibers";
}

// The compiled variants (docs/architecture.md, "Two variants of every kernel"): checked, and
// fast where the access-check pass made one, which dispatches with mem, race and init off run.
std::vector<std::string> kernel_variants(const engine::KernelInfo& k) {
  if (engine::has_fast_variant(k)) return {"checked", "fast"};
  return {"checked"};
}

std::string base_name(const char* path) {
  const std::string p = path;
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The kernels whose name matches a pattern (every one without patterns), by name.
std::vector<const engine::KernelInfo*> select_kernels(const std::vector<std::string>& patterns) {
  std::vector<const engine::KernelInfo*> out;
  for (const engine::KernelInfo* k : engine::KernelRegistry::all()) {
    bool take = patterns.empty();
    for (const auto& p : patterns) take = take || fnmatch(p.c_str(), k->name, 0) == 0;
    if (take) out.push_back(k);
  }
  std::sort(out.begin(), out.end(),
            [](auto* a, auto* b) { return std::string(a->name) < b->name; });
  return out;
}

void print_kernels(std::ostream& out, const std::vector<const engine::KernelInfo*>& kernels) {
  Table t({"kernel", "source", "modes", "variants", "why not lane loops"});
  for (const engine::KernelInfo* k : kernels) {
    std::string why;
    const std::string modes = kernel_modes(*k, why);
    std::string variants;
    for (const std::string& v : kernel_variants(*k)) variants += (variants.empty() ? "" : ", ") + v;
    t.add({k->name, base_name(k->source_file) + ":" + std::to_string(k->source_line), modes,
           variants, why});
  }
  t.print(out);
  out << kernels.size() << " kernels linked\n";
}

json kernel_json(const engine::KernelInfo& k) {
  std::string why;
  kernel_modes(k, why);
  json modes = json::array({"fibers"});
  if (why.empty()) modes.push_back("loops");
  return {{"command", "list"},
          {"kernel", k.name},
          {"source", std::string(k.source_file) + ":" + std::to_string(k.source_line)},
          {"modes", modes},
          {"variants", kernel_variants(k)},
          {"why_not_loops", why}};
}

}  // namespace

Action setup_list(CLI::App& sub, Io& io) {
  struct Options {
    std::vector<std::string> patterns;
    bool json = false;
    bool kernels_only = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->patterns, "names, families or globs (default: all)");
  sub.add_flag("--json", o->json, "one JSON object per spec (or kernel, with --kernels) and line");
  sub.add_flag("--kernels", o->kernels_only,
               "only the linked kernels and their execution modes (fibers, lane loops)");
  return [o, &io] {
    std::vector<const KernelSpec*> specs;
    if (!o->kernels_only) specs = select_specs(o->patterns);
    const auto kernels = select_kernels(o->patterns);
    if (specs.empty() && kernels.empty() && !o->patterns.empty()) {
      io.err << "metalsim: no kernel matches\n";
      return kExitUsage;
    }
    for (const KernelSpec* s : specs) {
      if (o->json) write_json_line(io.out, spec_json(*s));
      else print_spec(io.out, *s);
    }
    if (o->json) {
      if (o->kernels_only)
        for (const engine::KernelInfo* k : kernels) write_json_line(io.out, kernel_json(*k));
      return kExitOk;
    }
    if (!o->kernels_only) io.out << specs.size() << " kernels\n\n";
    if (!kernels.empty()) print_kernels(io.out, kernels);
    return kExitOk;
  };
}

}  // namespace metalsim::cli
