#pragma once
// The spec names every family's spec files use, declared once for the namespace the families
// share (metalsim::kernels::<family>) rather than repeated at the top of each spec file.
#include "kernels/spec/compare.h"
#include "kernels/spec/spec.h"

namespace metalsim::kernels {

using spec::CaseResult;
using spec::half_t;
using spec::ParamDef;
using spec::Params;
using spec::Tolerance;

}  // namespace metalsim::kernels
