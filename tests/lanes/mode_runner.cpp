#include "lanes/mode_runner.h"

#include <stdexcept>

#include "simt/engine/dispatch.h"
#include "simt/engine/lane_loops.h"

namespace metalsim::lanes_test {
namespace {

constexpr uint32_t kThreadgroupMemoryLimit = 32 * 1024;

// The launch's buffers, copied, and the bindings that point at the copies.
struct Bound {
  explicit Bound(const Launch& launch) : buffers(launch.buffers) {
    for (size_t i = 0; i < buffers.size(); ++i) args.buffers[i] = buffers[i].data();
    for (size_t i = 0; i < launch.threadgroup_lengths.size(); ++i) {
      lengths[i] = launch.threadgroup_lengths[i];
      args.threadgroup_lengths[i] = lengths[i];
    }
    for (const auto& c : launch.function_constants) constants.push_back(c ? c->data() : nullptr);
  }
  std::vector<Bytes> buffers;
  abi::BoundArgs args;
  uint32_t lengths[abi::kMaxThreadgroupBindings] = {};
  std::vector<const void*> constants;
};

}  // namespace

// One dispatch through the engine's dispatch (execute_dispatch), which picks the runner by
// `mode`; one worker, the checks off but sync (as the launch says).
Outcome run_in_mode(const Launch& launch, metalsim::ExecutionMode mode) {
  const TestKernel& k = test_kernel(launch.kernel);
  abi::KernelInfo info;
  info.name = k.name;
  info.source_file = "tests/lanes/kernels";
  info.entry = k.entry;
  info.lane_body = k.body;
  Bound bound(launch);
  abi::DispatchRequest request;
  request.kernel = &info;
  request.geometry = launch.geometry;
  request.args = bound.args;
  std::copy(std::begin(bound.lengths), std::end(bound.lengths), request.threadgroup_lengths);
  request.threadgroup_memory_limit = kThreadgroupMemoryLimit;
  request.function_constants = bound.constants;
  request.options.checks = metalsim::CheckSet::none();
  request.options.checks.sync = launch.sync_check;
  request.options.workers = 1;
  request.options.mode = mode;
  request.options.strict = launch.strict;
  abi::DispatchOutcome outcome = engine::execute_dispatch(request);
  return {std::move(bound.buffers), std::move(outcome.reports), outcome.ok};
}

Outcome run_on_fibers(const Launch& launch) {
  return run_in_mode(launch, metalsim::ExecutionMode::fibers);
}

std::string why_not_lane_loops(const std::string& kernel) {
  const char* why = nullptr;
  if (engine::find_lane_loop_kernel(test_kernel(kernel).body, &why)) return "";
  return why != nullptr ? why : "(no reason given)";
}

Outcome run_in_lane_loops(const Launch& launch) {
  if (const std::string why = why_not_lane_loops(launch.kernel); !why.empty())
    throw std::runtime_error(launch.kernel + " has no lane loops: " + why);
  return run_in_mode(launch, metalsim::ExecutionMode::loops);
}

}  // namespace metalsim::lanes_test
