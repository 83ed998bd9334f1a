#pragma once
// The kernel compiler a runtime compile runs (newLibrary with source): the same compiler and
// flags as the build's kernels (cmake/MetalsimKernelCompiler.cmake), with the MSL and engine
// headers and the pass plugins found where this metalsim is: its build tree while it exists,
// else its install prefix (cmake/MetalsimPackage.cmake); METALSIM_PREFIX=<dir> names a prefix
// that overrides both (an installed tree moved after `cmake --install`).
#include <string>
#include <vector>

namespace metalsim::host {

struct RuntimeToolchain {
  std::string compiler;
  std::vector<std::string> flags;  // the kernel flags, then -I for the MSL and engine headers
  std::string origin;              // "the build tree /path" or "the install prefix /path"
  // Identifies compiler, flags, plugins (path, size, time) and metalsim's version: part of every
  // cache key, so a rebuilt pass or another build type compiles afresh.
  std::string fingerprint;
  std::string problem;  // why no compile can run (a missing compiler or header directory)
};

// Found once per process.
const RuntimeToolchain& runtime_toolchain();

}  // namespace metalsim::host
