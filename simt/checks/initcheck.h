#pragma once
// Initcheck for threadgroup memory (uninit.threadgroup). A dispatch with `init` on runs twice,
// with threadgroup memory filled with two different poison bytes and the bound buffers restored
// in between: if device memory ends up different, a value read from threadgroup memory that no
// lane wrote reached it. Only then does a third, traced pass (uninit_trace.h) find the
// instructions, lanes and .metal lines that read unwritten bytes. Reads whose values never
// reach device memory are not reported.
#include "simt/abi/dispatch_request.h"

namespace metalsim::checks {

// One run of a dispatch, without initcheck (dispatch.cpp's): initcheck runs it for each pass.
using RunDispatchOnce = abi::DispatchOutcome (*)(const abi::DispatchRequest& request);

abi::DispatchOutcome run_with_initcheck(const abi::DispatchRequest& request,
                                        RunDispatchOnce run_once);

}  // namespace metalsim::checks
