#pragma once
// Runs one dispatch of a test kernel on fibers or in lane loops (engine::execute_dispatch with
// the execution mode, through a hand-written KernelInfo with the kernel's lane body), on copies
// of the same buffers, and returns the buffers and the reports.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "lanes/test_kernel.h"
#include "simt/abi/geometry.h"
#include "simt/base/execution_options.h"
#include "simt/report/report.h"

namespace metalsim::lanes_test {

using Bytes = std::vector<std::byte>;

struct Launch {
  std::string kernel;
  abi::DispatchGeometry geometry;
  std::vector<Bytes> buffers;                            // buffer(i)'s initial contents
  std::vector<uint32_t> threadgroup_lengths;             // threadgroup(i)'s bytes
  std::vector<std::optional<Bytes>> function_constants;  // by index; nullopt: not set
  bool sync_check = true;
  bool strict = false;  // ExecutionOptions::strict: warnings fail the dispatch
};

struct Outcome {
  std::vector<Bytes> buffers;
  std::vector<report::Report> reports;
  bool ok = false;  // DispatchOutcome::ok: completed (no error; warnings allowed unless strict)
};

Outcome run_in_mode(const Launch& launch, metalsim::ExecutionMode mode);
Outcome run_on_fibers(const Launch& launch);
// Throws std::runtime_error naming the registry's reason when the kernel has no step.
Outcome run_in_lane_loops(const Launch& launch);

// Why the kernel has no step (what the pass registered), or empty when it has one.
std::string why_not_lane_loops(const std::string& kernel);

template <class T>
Bytes bytes_of(const std::vector<T>& values) {
  Bytes b(values.size() * sizeof(T));
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}
template <class T>
std::vector<T> values_of(const Bytes& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace metalsim::lanes_test
