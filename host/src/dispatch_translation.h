#pragma once
// One recorded dispatch translated into the engine's request, checked on the way as Metal's
// validation layer checks it: bindings, offsets, threadgroup memory, threadgroup size, grid,
// against the kernel's reflection and the device profile. The command buffer runs the request
// only when there are no problems.
#include <vector>

#include "encoded_dispatch.h"
#include "simt/abi/dispatch_request.h"
#include "simt/report/report.h"

namespace metalsim::host {

struct DispatchTranslation {
  std::vector<report::Report> problems;  // empty: `request` is complete and may run
  abi::DispatchRequest request;
};

DispatchTranslation translate_dispatch(const MTL::EncodedDispatch& dispatch,
                                       const MTL::DeviceProfile& profile);

}  // namespace metalsim::host
