#include "kernels/spec/spec.h"

#include <algorithm>

#include "kernels/spec/shell_quote.h"

namespace metalsim::spec {
namespace {

std::vector<std::unique_ptr<KernelSpec>>& registry() {
  static std::vector<std::unique_ptr<KernelSpec>> specs;
  return specs;
}

}  // namespace

// ------------------------------ KernelSpec

Params KernelSpec::complete(const Params& p) const {
  Params full = p;
  for (const ParamDef& d : params())
    if (!full.contains(d.name)) full[d.name] = d.fallback;
  return full;
}

std::optional<Finding> KernelSpec::finding_for(const Params& p) const {
  const Params full = complete(p);
  for (const Finding& f : findings())
    if (complete(f.params) == full) return f;
  return std::nullopt;
}

std::vector<Params> KernelSpec::finding_cases() const {
  std::vector<Params> cases;
  for (const Finding& f : findings()) cases.push_back(f.params);
  return cases;
}

std::string KernelSpec::run_arguments(const Params& p) const {
  return shell_quote(case_id(name(), p));
}

// ------------------------------ case ids

std::string case_id(const std::string& spec, const Params& p) {
  std::string id = spec + "(";
  bool first = true;
  for (const auto& [k, v] : p) {
    if (!first) id += ",";
    id += k + "=" + std::to_string(v);
    first = false;
  }
  return id + ")";
}

bool parse_case_id(const std::string& text, std::string& spec, Params& p) {
  p.clear();
  const size_t open = text.find('(');
  if (open == std::string::npos) {
    spec = text;
    return !spec.empty();
  }
  if (text.back() != ')') return false;
  spec = text.substr(0, open);
  std::string body = text.substr(open + 1, text.size() - open - 2);
  while (!body.empty()) {
    const size_t comma = body.find(',');
    const std::string item = body.substr(0, comma);
    body = comma == std::string::npos ? "" : body.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    try {
      size_t used = 0;
      const std::string value = item.substr(eq + 1);
      p[item.substr(0, eq)] = std::stoll(value, &used);
      if (used != value.size()) return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return !spec.empty();
}

// ------------------------------ registry

void SpecRegistry::add(std::unique_ptr<KernelSpec> spec) { registry().push_back(std::move(spec)); }

const KernelSpec* SpecRegistry::find(const std::string& name) {
  for (const auto& s : registry())
    if (s->name() == name) return s.get();
  return nullptr;
}

std::vector<const KernelSpec*> SpecRegistry::all() {
  std::vector<const KernelSpec*> out;
  for (const auto& s : registry()) out.push_back(s.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name() < b->name(); });
  return out;
}

}  // namespace metalsim::spec
