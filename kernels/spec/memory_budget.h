#pragma once
// How much memory a case needs, from its spec's footprint, and how much the machine has: the
// case runner refuses a case that cannot fit and the fuzzer draws only cases under its budget,
// so no case, drawn or asked for, gets the process killed by the kernel's out-of-memory killer.
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/spec/spec.h"

namespace metalsim::spec {

// The spec's footprint plus what the run adds: initcheck snapshots every bound buffer (three
// copies), and each worker keeps lane stacks and a threadgroup arena. 0 when the spec gives no
// footprint.
uint64_t case_memory_bytes(const KernelSpec& spec, const Params& params,
                           const metalsim::ExecutionOptions& options);

// Empty when the case fits in 90% of the memory available now; else why not, in words, naming the
// case.
std::string over_memory(const KernelSpec& spec, const Params& params,
                        const metalsim::ExecutionOptions& options);

// MemAvailable of /proc/meminfo, in bytes; 0 when it cannot be read.
uint64_t available_memory_bytes();

// "4096", "512K", "300M", "8G" (powers of 1024); false on anything else.
bool parse_bytes(std::string_view text, uint64_t& out);
std::string format_bytes(uint64_t bytes);  // "1.5 GiB", "300 MiB", "12 KiB", "7 B"

}  // namespace metalsim::spec
