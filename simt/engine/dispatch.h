#pragma once
// One dispatch: the threadgroups of a grid, run in parallel by the persistent workers, each
// threadgroup by one worker's ThreadgroupRunner. The host runtime validates the request first;
// this layer runs it and collects the reports.
#include <cstdint>

#include "simt/abi/dispatch_request.h"
#include "simt/abi/kernel.h"

namespace metalsim::engine {

abi::DispatchOutcome execute_dispatch(const abi::DispatchRequest& request);

// True in the tsan preset: ThreadSanitizer reports races between lanes and threadgroups as
// race.threadgroup / race.device (docs/checks.md). Other builds have schedule fuzzing only.
bool racecheck_available();

// Lanes moved onto fibers since the program started: 0 growth across a dispatch shows it ran
// as a plain loop.
uint64_t fibers_started_total();
// Threadgroups run in lane loops since the program started: growth across a dispatch shows that
// it ran in lane loops (ExecutionOptions::mode).
uint64_t lane_loop_threadgroups_total();
// Dispatches run with each kernel variant since the program started (KernelVariant): growth
// across a dispatch shows which variant ran it.
uint64_t variant_dispatches_total(KernelVariant variant);

}  // namespace metalsim::engine
