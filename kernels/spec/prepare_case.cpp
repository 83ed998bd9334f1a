// KernelSpec::prepare_case, apart from spec.cpp: it reaches the memory budget and the context,
// which the interface itself does not need.
#include <stdexcept>

#include "kernels/spec/case_context.h"
#include "kernels/spec/memory_budget.h"
#include "kernels/spec/spec.h"

namespace metalsim::spec {

std::unique_ptr<PreparedCase> KernelSpec::prepare_case(const Params& p, CaseContext& ctx) const {
  std::string why;
  if (!valid(p, &why)) throw InvalidCase("invalid case " + case_id(name(), p) + ": " + why);
  if (const std::string too_large = over_memory(*this, p, ctx.options()); !too_large.empty())
    throw std::runtime_error(too_large);
  return prepare(p, ctx);
}

}  // namespace metalsim::spec
