#pragma once
// bounds.texture (docs/textures.md): texture_out_of_bounds (texture_binding.h) keeps what the
// MSL header saw, per thread, and raises a fault; the runner's recovery turns it into the report
// here, after describe_fault (fault_report.h) saw FaultRecord::texture.
#include "simt/report/report.h"

namespace metalsim::abi {
struct DispatchRequest;  // simt/abi/dispatch_request.h
}

namespace metalsim::checks {

// Fills `r`'s check, site, memory and message from the calling thread's last texture fault.
void describe_texture_fault(const abi::DispatchRequest& request, report::Report& r);

}  // namespace metalsim::checks
