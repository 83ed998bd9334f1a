// metalsim list: every spec with its family, summary, expectation and parameters.
#include <memory>
#include <sstream>

#include "host/cli/commands.h"
#include "host/cli/output_json.h"
#include "host/cli/output_table.h"

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
  out << s.name() << "  [" << s.family() << "]  " << (bug ? "known bug" : "expected to pass") << "\n";
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

}  // namespace

Action setup_list(CLI::App& sub, Io& io) {
  struct Options {
    std::vector<std::string> patterns;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("KERNEL", o->patterns, "names, families or globs (default: all)");
  sub.add_flag("--json", o->json, "one JSON object per spec and line");
  return [o, &io] {
    const auto specs = select_specs(o->patterns);
    if (specs.empty() && !o->patterns.empty()) {
      io.err << "metalsim: no kernel matches\n";
      return kExitUsage;
    }
    for (const KernelSpec* s : specs) {
      if (o->json) write_json_line(io.out, spec_json(*s));
      else print_spec(io.out, *s);
    }
    if (!o->json) io.out << specs.size() << " kernels\n";
    return kExitOk;
  };
}

}  // namespace metalsim::cli
