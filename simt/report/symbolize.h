#pragma once
// From an instruction's address to its .metal (or C++) file and line, through the debug
// information and addr2line. For reports only: the first lookup of an object reads its debug
// information (about a second for the metalsim program); every answer is kept for the process,
// so the same instruction reported again (a fuzz case shrunk over hundreds of runs) costs nothing.
#include <string>
#include <vector>

#include "simt/report/report.h"

namespace metalsim::report {

// The innermost frame of the user's source (is_user_source) of the instruction, else its innermost
// frame; empty when unknown. A fault inside an inlined MSL library function (max, simd_sum...)
// is so reported at the kernel's line that called it.
SourceSite symbolize(const void* pc);
// Where a report made at `trace` lies in the user's source. trace[0] is the instruction, the
// rest its callers' return addresses less one (inside each call), innermost first.
struct UserSite {
  // The innermost frame of the user's source in the trace (inlined frames included), up to the
  // engine's frame that called the kernel; else `collective_call`; else the first frame that
  // symbolizes.
  SourceSite site;
  // The instruction's innermost frame when that is a line of metalsim's MSL headers (simt/include)
  // and `site` is the user's line that called it; else empty.
  SourceSite library;
  // Where `site` is in a header of the user's: the kernel's .metal line that called into it
  // (through any number of inlined frames); else empty.
  SourceSite metal_call;
};
UserSite symbolize_user(const std::vector<const void*>& trace,
                        const SourceSite& collective_call = {});
// Sets r.site, r.library_site and r.metal_call from symbolize_user(trace, r.collective_call):
// the one way every report kind names the user's line.
void name_user_site(Report& r, const std::vector<const void*>& trace);
// A .metal file, or "program_source" (MSL compiled from a string at run time).
bool is_metal_source(const std::string& file);
// A file of metalsim's MSL headers (simt/include, or installed), which kernels include.
bool is_library_source(const std::string& file);
// metalsim's own C++ outside those headers: the engine and the host runtime.
bool is_engine_source(const std::string& file);
// A line a kernel's author wrote: a .metal file, or a header of theirs that a .metal file includes
// (MLX's kernels are templates in headers). Not metalsim's files, not the system's (/usr).
bool is_user_source(const std::string& file);
// The user's site of the first of `pcs`, in order, that lies on a user's line; empty if none.
// For return addresses, pass each less one (inside the call instruction).
SourceSite first_user_site(const std::vector<const void*>& pcs);
// Where a stopped thread was looping: the user's line of the back edge (a jump to a lower address
// within the user's code) taken most often in `trace`, else the user's line most of it ran, else
// symbolize(trace.front()).
SourceSite symbolize_loop(const std::vector<const void*>& trace);

}  // namespace metalsim::report
