#pragma once
// Validation of [[texture(N)]] and [[sampler(N)]] arguments (docs/textures.md): bound, of the
// kernel's texture type, a pixel format the kernel's T can read, a usage that allows the
// kernel's access. A valid one is bound into the request.
#include <optional>
#include <string>

#include "encoded_dispatch.h"
#include "metalsim/Metal.hpp"
#include "simt/abi/dispatch_request.h"
#include "simt/report/check_id.h"

namespace metalsim::host {

struct BindingProblem {
  report::CheckId check;
  std::string message;  // after "argument 'name' [[texture(N)]] "
};

std::optional<BindingProblem> bind_texture(const abi::ArgInfo& arg,
                                           const MTL::EncodedDispatch& dispatch,
                                           abi::DispatchRequest& request);
std::optional<BindingProblem> bind_sampler(const abi::ArgInfo& arg,
                                           const MTL::EncodedDispatch& dispatch,
                                           abi::DispatchRequest& request);

}  // namespace metalsim::host
