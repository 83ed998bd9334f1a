#include "lanes/mode_runner.h"

#include <stdexcept>

#include "simt/engine/dispatch.h"
#include "simt/engine/lane_loop_runner.h"
#include "simt/engine/threadgroup_arena.h"

namespace metalsim::lanes_test {
namespace {

constexpr uint32_t kThreadgroupMemoryLimit = 32 * 1024;

// The launch's buffers, copied, and the bindings that point at the copies.
struct Bound {
  explicit Bound(const Launch& launch) : buffers(launch.buffers) {
    for (size_t i = 0; i < buffers.size(); ++i) {
      args.buffers[i] = buffers[i].data();
      args.buffer_lengths[i] = buffers[i].size();
    }
    for (size_t i = 0; i < launch.threadgroup_lengths.size(); ++i) {
      lengths[i] = launch.threadgroup_lengths[i];
      args.threadgroup_lengths[i] = lengths[i];
    }
    for (const auto& c : launch.function_constants) constants.push_back(c ? c->data() : nullptr);
  }
  std::vector<Bytes> buffers;
  engine::BoundArgs args;
  uint32_t lengths[engine::kMaxThreadgroupBindings] = {};
  std::vector<const void*> constants;
};

}  // namespace

Outcome run_on_fibers(const Launch& launch) {
  const TestKernel& k = test_kernel(launch.kernel);
  engine::KernelInfo info;
  info.name = k.name;
  info.source_file = "tests/lanes/kernels";
  info.entry = k.entry;
  Bound bound(launch);
  engine::DispatchRequest request;
  request.kernel = &info;
  request.geometry = launch.geometry;
  request.args = bound.args;
  std::copy(std::begin(bound.lengths), std::end(bound.lengths), request.threadgroup_lengths);
  request.function_constants = bound.constants;
  request.options.checks = check::CheckSet::none();
  request.options.checks.sync = launch.sync_check;
  request.options.workers = 1;
  engine::DispatchOutcome outcome = engine::execute_dispatch(request);
  return {std::move(bound.buffers), std::move(outcome.reports)};
}

std::string why_not_lane_loops(const std::string& kernel) {
  const char* why = nullptr;
  if (engine::find_lane_loop_kernel(test_kernel(kernel).body, &why)) return "";
  return why != nullptr ? why : "(no reason given)";
}

Outcome run_in_lane_loops(const Launch& launch) {
  const TestKernel& k = test_kernel(launch.kernel);
  const char* why = nullptr;
  const engine::LaneLoopKernel* loops = engine::find_lane_loop_kernel(k.body, &why);
  if (loops == nullptr) throw std::runtime_error(launch.kernel + " has no lane loops: " + why);
  Bound bound(launch);
  uint32_t static_capacity = kThreadgroupMemoryLimit;
  for (uint32_t len : bound.lengths)
    static_capacity = len >= static_capacity ? 0 : static_capacity - len;
  engine::ThreadgroupArena arena;
  arena.configure(bound.lengths, static_capacity);
  check::ReportSink reports;
  engine::LaneLoopDispatch dispatch;
  dispatch.kernel = loops;
  dispatch.kernel_name = k.name;
  dispatch.geometry = &launch.geometry;
  dispatch.args = bound.args;
  dispatch.function_constants = bound.constants;
  dispatch.sync_check = launch.sync_check;
  dispatch.reports = &reports;
  engine::LaneLoopRunner runner(arena);
  const uint64_t groups = launch.geometry.threadgroups.volume();
  for (uint64_t g = 0; g < groups; ++g) runner.run(dispatch, g);
  return {std::move(bound.buffers), reports.take()};
}

}  // namespace metalsim::lanes_test
