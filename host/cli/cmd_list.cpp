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
#include "metalsim/Metal.hpp"

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

// One linked kernel as the host API reflects it (ComputePipelineState's metalsim extensions).
struct LinkedKernel {
  std::string name;
  NS::SharedPtr<MTL::ComputePipelineState> pipeline;
};

// "fibers, loops", or "fibers" and why not loops (the pass's reason names file:line).
std::string kernel_modes(const LinkedKernel& k, std::string& why_not_loops) {
  why_not_loops = k.pipeline->laneLoopsUnavailable();
  return why_not_loops.empty() ? "fibers, loops" : "fibers";
}

// The compiled variants (docs/architecture.md, "Two variants of every kernel"): checked, and
// fast where the access-check pass made one, which dispatches with mem, race and init off run.
std::vector<std::string> kernel_variants(const LinkedKernel& k) {
  if (k.pipeline->hasFastVariant()) return {"checked", "fast"};
  return {"checked"};
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The linked kernels whose name matches a pattern (every one without patterns), by name.
std::vector<LinkedKernel> select_kernels(const std::vector<std::string>& patterns) {
  auto device = NS::TransferPtr(MTL::CreateSystemDefaultDevice());
  auto library = NS::TransferPtr(device->newDefaultLibrary());
  std::vector<LinkedKernel> out;
  for (const std::string& name : library->functionNames()) {
    bool take = patterns.empty();
    for (const auto& p : patterns) take = take || fnmatch(p.c_str(), name.c_str(), 0) == 0;
    if (!take) continue;
    auto function = NS::TransferPtr(library->newFunction(NS::String::string(name.c_str())));
    if (!function) continue;
    // A kernel that uses function constants makes a pipeline only specialised: the listing's
    // facts hold for any values, so each constant it uses is given zero bytes.
    if (NS::Dictionary* used = function->functionConstantsDictionary(); used->count() != 0) {
      auto values = NS::TransferPtr(MTL::FunctionConstantValues::alloc()->init());
      for (const NS::Dictionary::Entry& e : used->entries()) {
        const auto* c = static_cast<const MTL::FunctionConstant*>(e.second.get());
        const std::vector<unsigned char> zero(16, 0);
        values->setConstantValue(zero.data(), c->type(), c->index());
      }
      NS::Error* error = nullptr;
      function = NS::TransferPtr(
          library->newFunction(NS::String::string(name.c_str()), values.get(), &error));
    }
    NS::Error* error = nullptr;
    auto pipeline = NS::TransferPtr(device->newComputePipelineState(function.get(), &error));
    if (pipeline) out.push_back({name, pipeline});
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

void print_kernels(std::ostream& out, const std::vector<LinkedKernel>& kernels) {
  Table t({"kernel", "source", "modes", "variants", "why not lane loops"});
  for (const LinkedKernel& k : kernels) {
    std::string why;
    const std::string modes = kernel_modes(k, why);
    std::string variants;
    for (const std::string& v : kernel_variants(k)) variants += (variants.empty() ? "" : ", ") + v;
    t.add({k.name, base_name(k.pipeline->sourceLocation()), modes, variants, why});
  }
  t.print(out);
  out << kernels.size() << " kernels linked\n";
}

json kernel_json(const LinkedKernel& k) {
  std::string why;
  kernel_modes(k, why);
  json modes = json::array({"fibers"});
  if (why.empty()) modes.push_back("loops");
  return {{"command", "list"},
          {"kernel", k.name},
          {"source", k.pipeline->sourceLocation()},
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
        for (const LinkedKernel& k : kernels) write_json_line(io.out, kernel_json(k));
      return kExitOk;
    }
    if (!o->kernels_only) io.out << specs.size() << " kernels\n\n";
    if (!kernels.empty()) print_kernels(io.out, kernels);
    return kExitOk;
  };
}

}  // namespace metalsim::cli
