// Options (checks, mode, schedule, workers, watchdog) and dispatch: one command buffer with one
// dispatch, encoded and committed through the host API as a C++ program would.
#include <pybind11/stl.h>

#include <array>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "metalsim/Metal.hpp"
#include "py_buffer.h"
#include "py_library.h"
#include "simt/base/execution_options.h"
#include "simt/report/report.h"

namespace py = pybind11;

namespace metalsim::python {
namespace {

using Size = std::array<uint32_t, 3>;

// Starts from the device's options (the environment: METALSIM_CHECKS, ...) and overrides what
// the caller gave; a value that does not parse is a ValueError naming the keyword.
metalsim::ExecutionOptions make_options(std::optional<std::string> checks,
                                        std::optional<std::string> mode,
                                        std::optional<std::string> schedule,
                                        std::optional<uint32_t> workers,
                                        std::optional<double> watchdog) {
  metalsim::ExecutionOptions o = device()->executionOptions();
  if (checks && !metalsim::CheckSet::parse(*checks, o.checks))
    throw py::value_error("checks='" + *checks +
                          "': expected a comma list of sync, init, mem, race, or all, none");
  if (mode && !metalsim::parse_execution_mode(*mode, o.mode))
    throw py::value_error("mode='" + *mode + "': expected auto, fibers or loops");
  if (schedule && !metalsim::SchedulePolicy::parse(*schedule, o.schedule))
    throw py::value_error("schedule='" + *schedule +
                          "': expected in-order, reversed, random or random:SEED");
  if (workers) o.workers = *workers;
  if (watchdog) {
    if (*watchdog < 0) throw py::value_error("watchdog must be >= 0 seconds (0: no limit)");
    o.watchdog_seconds = *watchdog;
  }
  return o;
}

struct DispatchResult {
  std::vector<report::Report> reports;  // empty: the command buffer completed
  std::string error;                    // the command buffer's error text, "" when none
};

// Encodes and commits one dispatch. `threadgroups`: grid counts threadgroups
// (dispatchThreadgroups), else threads (dispatchThreads).
DispatchResult dispatch(const PyPipeline& pipeline,
                        const std::vector<std::pair<uint32_t, PyBuffer*>>& buffers,
                        const std::vector<std::pair<uint32_t, py::bytes>>& bytes,
                        const std::vector<std::pair<uint32_t, uint32_t>>& threadgroup_memory,
                        Size grid, Size group, const metalsim::ExecutionOptions& options,
                        bool threadgroups) {
  // A queue of its own, gone with the call: a queue keeps its recent command buffers and they
  // their bindings, and a borrowed buffer (py_buffer.h) must be released before its array is.
  auto queue = NS::TransferPtr(device()->newCommandQueue());
  MTL::CommandBuffer* cb = queue->commandBuffer();
  cb->setExecutionOptions(options);
  MTL::ComputeCommandEncoder* enc = cb->computeCommandEncoder();
  enc->setComputePipelineState(pipeline.state.get());
  for (const auto& [index, buffer] : buffers) enc->setBuffer(buffer->buffer.get(), 0, index);
  for (const auto& [index, data] : bytes) {
    std::string_view view = data;  // setBytes copies now
    enc->setBytes(view.data(), view.size(), index);
  }
  for (const auto& [index, length] : threadgroup_memory)
    enc->setThreadgroupMemoryLength(length, index);
  MTL::Size g(grid[0], grid[1], grid[2]), t(group[0], group[1], group[2]);
  if (threadgroups) enc->dispatchThreadgroups(g, t);
  else enc->dispatchThreads(g, t);
  enc->endEncoding();
  {
    py::gil_scoped_release unlocked;  // the kernel runs on the engine's workers, not in Python
    // One dispatch at a time: Python threads may call kernels concurrently, and each dispatch
    // already runs over all of the engine's workers.
    static std::mutex one_at_a_time;
    std::lock_guard lock(one_at_a_time);
    cb->commit();
    cb->waitUntilCompleted();
  }
  DispatchResult result;
  if (cb->status() == MTL::CommandBufferStatusError) {
    result.reports = cb->reports();
    if (cb->error() != nullptr) result.error = cb->error()->localizedDescription()->str();
  }
  return result;
}

}  // namespace

void bind_dispatch(py::module_& m) {
  py::class_<metalsim::ExecutionOptions>(m, "Options", "How a dispatch runs (ExecutionOptions)")
      .def(py::init(&make_options), py::arg("checks") = py::none(), py::arg("mode") = py::none(),
           py::arg("schedule") = py::none(), py::arg("workers") = py::none(),
           py::arg("watchdog") = py::none())
      .def_property_readonly("checks",
                             [](const metalsim::ExecutionOptions& o) { return o.checks.str(); })
      .def_property_readonly("mode",
                             [](const metalsim::ExecutionOptions& o) {
                               return std::string(metalsim::execution_mode_name(o.mode));
                             })
      .def_property_readonly("schedule",
                             [](const metalsim::ExecutionOptions& o) { return o.schedule.str(); })
      .def_readonly("workers", &metalsim::ExecutionOptions::workers)
      .def_readonly("watchdog", &metalsim::ExecutionOptions::watchdog_seconds);
  py::class_<DispatchResult>(m, "DispatchResult")
      .def_readonly("reports", &DispatchResult::reports)
      .def_readonly("error", &DispatchResult::error);
  m.def("dispatch", &dispatch, py::arg("pipeline"), py::arg("buffers"), py::arg("bytes"),
        py::arg("threadgroup_memory"), py::arg("grid"), py::arg("group"), py::arg("options"),
        py::arg("threadgroups") = false,
        "Encodes and commits one dispatch; the reports are empty when it completed");
}

}  // namespace metalsim::python
