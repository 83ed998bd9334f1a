#include "host/cli/case_selection.h"

#include <fnmatch.h>

namespace metalsim::cli {

// ------------------------------ selection

// A spec's exact name selects that spec alone, even where its family has the same name
// (`softmax` is not also softmax_as_documented, whose known-bug cases are slow to replay);
// any other pattern is a family (`attention`) or a glob over names (`'softmax*'`).
bool spec_matches(const KernelSpec& spec, const std::string& pattern) {
  const std::string name = spec.name();
  if (pattern == name) return true;
  if (spec::SpecRegistry::find(pattern) != nullptr) return false;
  return pattern == spec.family() || fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
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
