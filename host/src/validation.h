#pragma once
// API validation of one encoded dispatch against its kernel's reflection and the device
// profile: bindings, offsets, threadgroup memory, threadgroup size, grid. A valid dispatch
// becomes an engine::DispatchRequest.
#include <vector>

#include "metalsim/Metal.hpp"
#include "simt/abi/dispatch_request.h"
#include "simt/report/report.h"

namespace metalsim::host {

std::vector<check::Report> validate(const MTL::EncodedDispatch& dispatch,
                                    const MTL::DeviceProfile& profile,
                                    engine::DispatchRequest& request);

}  // namespace metalsim::host
