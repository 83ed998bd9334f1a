# The lane-loop pass (simt/lanes/, docs/lanes.md) in the kernel build: whether LLVM 19 is here to
# build the plugin, and the flags that make clang++-19 load it while it compiles every kernel.
# Included by MetalsimKernelCompiler.cmake where the plugin's flags go (its hook,
# METALSIM_KERNEL_PLUGIN_FLAGS); simt/lanes/CMakeLists.txt builds the plugin itself.
#
# Settings:
#   METALSIM_LANES                 ON (default): kernels are compiled with the pass when it can be
#                                  built, and run in lane loops where --mode allows
#   METALSIM_PASS_PLUGINS_FROM     another build tree whose plugins kernels use (empty: this one)
# Results:
#   METALSIM_LANES_AVAILABLE       LLVM 19 was found: the plugin target MetalsimLanes exists
#   METALSIM_LANES_PLUGIN          the plugin's path when kernels are compiled with it, else empty
#   METALSIM_KERNEL_PLUGIN_FLAGS   (a normal variable over the cache hook) -fpass-plugin=...
include_guard(GLOBAL)

option(METALSIM_LANES "Compile kernels with the lane-loop pass (LLVM 19) for --mode loops/auto" ON)

# Debian's llvm-19-dev first. LLVM's version file accepts only an exact major.minor, so the major
# version is checked here instead.
find_package(LLVM CONFIG QUIET PATHS /usr/lib/llvm-19 NO_DEFAULT_PATH)
if(NOT LLVM_FOUND)
  find_package(LLVM CONFIG QUIET)
endif()
# Cache entries (INTERNAL: recomputed at every configure) so that every directory sees them.
if(LLVM_FOUND AND LLVM_VERSION_MAJOR EQUAL 19)
  set(METALSIM_LANES_AVAILABLE ON CACHE INTERNAL "LLVM 19 is here: the lane-loop pass is built")
else()
  set(METALSIM_LANES_AVAILABLE OFF CACHE INTERNAL "LLVM 19 is here: the lane-loop pass is built")
  message(STATUS "metalsim: LLVM 19 (llvm-19-dev) not found: the lane-loop pass is not built, "
                 "kernels run on fibers only")
endif()

# The pass plugins are host tools clang loads, the same whatever the preset (they are never
# built with sanitizers): a second build tree of this source may take a first one's instead of
# building them again (scripts/test.sh points its asan and tsan builds at the release build's).
set(METALSIM_PASS_PLUGINS_FROM "" CACHE PATH
    "A build tree of this source whose pass plugins kernels are compiled with (empty: this tree's)")
set(METALSIM_PLUGIN_TREE "${PROJECT_BINARY_DIR}" CACHE INTERNAL "the build tree the pass plugins come from")
if(METALSIM_PASS_PLUGINS_FROM)
  set(METALSIM_PLUGIN_TREE "${METALSIM_PASS_PLUGINS_FROM}" CACHE INTERNAL
      "the build tree the pass plugins come from")
  foreach(plugin simt/lanes/MetalsimLanes.so simt/instrument/MetalsimChecks.so)
    if(NOT EXISTS "${METALSIM_PLUGIN_TREE}/${plugin}")
      message(FATAL_ERROR "METALSIM_PASS_PLUGINS_FROM=${METALSIM_PASS_PLUGINS_FROM}: "
                          "${plugin} is not there (build that tree's MetalsimLanes and "
                          "MetalsimChecks targets first, or leave the setting empty)")
    endif()
  endforeach()
endif()

set(METALSIM_LANES_PLUGIN "" CACHE INTERNAL "the lane-loop pass plugin kernels are compiled with")
if(METALSIM_LANES AND METALSIM_LANES_AVAILABLE AND METALSIM_KERNEL_COMPILER STREQUAL "clang"
   AND NOT METALSIM_KERNEL_PLUGIN_FLAGS)
  # Where simt/lanes/CMakeLists.txt puts the plugin (known now: the flags are written to a file
  # at configure time). Every kernel object depends on it (metalsim_use_kernel_compiler).
  set(METALSIM_LANES_PLUGIN "${METALSIM_PLUGIN_TREE}/simt/lanes/MetalsimLanes.so" CACHE INTERNAL
      "the lane-loop pass plugin kernels are compiled with")
  set(METALSIM_KERNEL_PLUGIN_FLAGS "-fpass-plugin=${METALSIM_LANES_PLUGIN}")
endif()

# An LLVM 19 pass plugin, `target`.so, that clang++-19 loads with -fpass-plugin= while it compiles
# kernels: MetalsimLanes (simt/lanes) and MetalsimChecks (simt/instrument), built alike from the
# SOURCES given, into the calling directory's build folder (where METALSIM_LANES_PLUGIN and
# METALSIM_CHECKS_PLUGIN name them).
function(metalsim_add_pass_plugin target)
  add_library(${target} MODULE ${ARGN})
  # LLVM's headers are not ours: included as system headers so our warning flags do not judge them.
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  separate_arguments(llvm_definitions NATIVE_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_definitions(${target} PRIVATE ${llvm_definitions})
  # The plugin is built as LLVM is: no RTTI when LLVM has none. Its LLVM symbols resolve against
  # the clang process that loads it (libLLVM.so), so it links no LLVM library itself.
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
  # clang loads the plugin: it is built without the sanitizer presets' instrumentation (an
  # instrumented library cannot be loaded into an uninstrumented program).
  set_target_properties(${target} PROPERTIES COMPILE_OPTIONS "" LINK_OPTIONS "")
  target_link_libraries(${target} PRIVATE metalsim_warnings)
  # -Wnull-dereference fires inside LLVM's inline header code once it is inlined into ours; being
  # system headers does not silence a flow-sensitive warning reported after inlining. (A source
  # property: it must come after metalsim_warnings' flags.)
  set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS -Wno-null-dereference)
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME ${target}
                        POSITION_INDEPENDENT_CODE ON
                        LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
endfunction()
