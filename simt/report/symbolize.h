#pragma once
// From an instruction's address to its .metal (or C++) file and line, through the debug
// information and addr2line. For reports only: the first lookup of an object reads its debug
// information (about a second for the metalsim program); every answer is kept for the process,
// so the same instruction reported again (a fuzz case shrunk over hundreds of runs) costs nothing.
#include <string>
#include <vector>

#include "simt/report/report.h"

namespace metalsim::engine {

// The innermost .metal frame of the instruction, else its innermost frame; empty when unknown.
// A fault inside an inlined MSL library function (max, simd_sum...) is so reported at the
// .metal line that called it.
check::SourceSite symbolize(const void* pc);
// The first frame of `trace` in a .metal file, else the first frame that symbolizes.
check::SourceSite symbolize_trace(const std::vector<const void*>& trace);
// A .metal file, or "program_source" (MSL compiled from a string at run time).
bool is_metal_source(const std::string& file);
// The .metal site of the first of `pcs`, in order, that lies on a .metal line; empty if none.
// For return addresses, pass each less one (inside the call instruction).
check::SourceSite first_metal_site(const std::vector<const void*>& pcs);
// Where a stopped thread was looping: the .metal line of the back edge (a jump to a lower address
// within .metal code) taken most often in `trace`, else the .metal line most of it ran, else
// symbolize(trace.front()).
check::SourceSite symbolize_loop(const std::vector<const void*>& trace);

}  // namespace metalsim::engine
