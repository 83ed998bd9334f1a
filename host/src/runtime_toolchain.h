#pragma once
// The kernel compiler a runtime compile runs (newLibrary with source): the same compiler and
// flags as the build's kernels (cmake/MetalsimKernelCompiler.cmake), with the MSL and engine
// headers and the pass plugins found where this metalsim is, the first of:
//   METALSIM_PREFIX=<dir>, a prefix named by the user;
//   the install prefix the program (or the shared object) running this is installed in, found
//     from its own path: an installed metalsim works wherever its prefix was moved, and never
//     uses the build tree it was linked in;
//   the prefix of the CMake package a user's program was built against (metalsimConfig.cmake);
//   the build tree, while it exists (metalsim's own programs and tests);
//   CMAKE_INSTALL_PREFIX as configured (cmake/MetalsimPackage.cmake).
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
