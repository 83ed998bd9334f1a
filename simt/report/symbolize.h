#pragma once
// From an instruction's address to its .metal (or C++) file and line, through the debug
// information and addr2line. For reports only: the first lookup of an object reads its debug
// information (about a second for the metalsim program); every answer is kept for the process,
// so the same instruction reported again (a fuzz case shrunk over hundreds of runs) costs nothing.
#include <string>
#include <vector>

#include "simt/report/report.h"

namespace metalsim::report {

// The innermost .metal frame of the instruction, else its innermost frame; empty when unknown.
// A fault inside an inlined MSL library function (max, simd_sum...) is so reported at the
// .metal line that called it.
SourceSite symbolize(const void* pc);
// Where a report made at `trace` lies in the user's source. trace[0] is the instruction, the
// rest its callers' return addresses less one (inside each call), innermost first.
struct UserSite {
  // The innermost .metal frame of the trace (inlined frames included), else `collective_call`,
  // else the first frame that symbolizes.
  SourceSite site;
  // The instruction's innermost frame when that is a line of metalsim's MSL headers (simt/include)
  // and `site` is the user's line that called it; else empty.
  SourceSite library;
};
UserSite symbolize_user(const std::vector<const void*>& trace,
                        const SourceSite& collective_call = {});
// Sets r.site and r.library_site from symbolize_user(trace, r.collective_call): the one way every
// report kind names the user's line.
void name_user_site(Report& r, const std::vector<const void*>& trace);
// A .metal file, or "program_source" (MSL compiled from a string at run time).
bool is_metal_source(const std::string& file);
// A file of metalsim's MSL headers (simt/include, or installed), which kernels include.
bool is_library_source(const std::string& file);
// The .metal site of the first of `pcs`, in order, that lies on a .metal line; empty if none.
// For return addresses, pass each less one (inside the call instruction).
SourceSite first_metal_site(const std::vector<const void*>& pcs);
// Where a stopped thread was looping: the .metal line of the back edge (a jump to a lower address
// within .metal code) taken most often in `trace`, else the .metal line most of it ran, else
// symbolize(trace.front()).
SourceSite symbolize_loop(const std::vector<const void*>& trace);

}  // namespace metalsim::report
