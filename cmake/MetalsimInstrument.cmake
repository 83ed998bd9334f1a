# The access-check pass (simt/instrument/, docs/checks.md) in the kernel build: byte-precise
# bounds and the shadow racecheck instrument every kernel's loads and stores. Included by
# MetalsimKernelCompiler.cmake after MetalsimLanes.cmake (which finds LLVM 19); the plugin itself
# is built by simt/instrument/CMakeLists.txt.
#
# Settings:
#   METALSIM_ACCESS_CHECKS        ON (default): kernels are compiled with the pass when LLVM 19 is
#                                 here (without it, bounds are the guard pages' and race is the
#                                 schedule comparison's, and METALSIM_CHECKS says so)
# Results:
#   METALSIM_CHECKS_PLUGIN        the plugin's path when kernels are compiled with it, else empty
#   METALSIM_KERNEL_PLUGIN_FLAGS  gains -fpass-plugin=<that path>
include_guard(GLOBAL)

option(METALSIM_ACCESS_CHECKS
       "Compile kernels with the access-check pass (byte-precise bounds, shadow racecheck)" ON)

set(METALSIM_CHECKS_PLUGIN "" CACHE INTERNAL "the access-check pass plugin kernels are compiled with")
if(METALSIM_ACCESS_CHECKS AND METALSIM_LANES_AVAILABLE AND METALSIM_KERNEL_COMPILER STREQUAL "clang")
  # METALSIM_PLUGIN_TREE: this build tree, or METALSIM_PASS_PLUGINS_FROM (MetalsimLanes.cmake).
  set(METALSIM_CHECKS_PLUGIN "${METALSIM_PLUGIN_TREE}/simt/instrument/MetalsimChecks.so" CACHE INTERNAL
      "the access-check pass plugin kernels are compiled with")
  list(APPEND METALSIM_KERNEL_PLUGIN_FLAGS "-fpass-plugin=${METALSIM_CHECKS_PLUGIN}")
endif()
