#pragma once
// metalsim's own options, the one public header for them: how a dispatch runs (schedule,
// checks, workers, watchdog, execution mode, variant), set on a device (every new command
// buffer starts from its options) or on one command buffer. Everything here is in namespace
// metalsim; Metal's own concepts are in MTL and NS (<metalsim/Metal.hpp>).
//
//   metalsim::ExecutionOptions options = device->executionOptions();
//   options.checks = metalsim::CheckSet::all();
//   options.schedule.kind = metalsim::ScheduleKind::reversed;
//   commandBuffer->setExecutionOptions(options);
//
// The types are defined in simt/base (the engine reads the same struct): this header is where a
// user finds them.
#include "simt/base/check_set.h"          // CheckSet, CheckFamily
#include "simt/base/execution_options.h"  // ExecutionOptions, ExecutionMode, KernelVariant
#include "simt/base/schedule_policy.h"    // SchedulePolicy, ScheduleKind
#include "simt/base/size3.h"              // Size3
