# How kernels (the C++ that metalsim-front generates from .metal files) are compiled: the one
# definition of the kernel compiler and its flags. metalsim_add_metal_library
# (MetalsimMetal.cmake) compiles every generated translation unit with it, and a runtime compiler
# (newLibraryWithSource) reads the same settings from the generated header
# <metalsim/kernel_toolchain.h> (target metalsim_kernel_toolchain).
#
# Kernels are compiled by clang++-19, not by the project's compiler: the lane-loop pass
# (simt/lanes/, issue 10) is an LLVM 19 plugin that clang loads while it compiles a kernel.
# metalsim's own C++ (engine, host, tests) stays on the project's compiler; both use libstdc++
# and the same ABI, so kernel objects link into the same programs.
#
# Settings (cache variables):
#   METALSIM_KERNEL_COMPILER      clang (default): clang++-19; project: the project's compiler
#   METALSIM_KERNEL_CLANG         the clang++-19 found (find_program)
#   METALSIM_KERNEL_ARCH_FLAGS    target flags: -mf16c, and -mavx2 -mfma, where the build machine has them
#   METALSIM_KERNEL_PLUGIN_FLAGS  where the lane-loop pass plugin's -fpass-plugin=... goes (clang)
# Results (normal variables):
#   METALSIM_KERNEL_CXX           the compiler's path
#   METALSIM_KERNEL_FLAGS         every flag but the include directories
#   METALSIM_KERNEL_INCLUDE_DIRS  the MSL headers and the engine's ABI headers
#   METALSIM_KERNEL_FLAGS_FILE    a response file holding all of them (@file on the command line)
include_guard(GLOBAL)

set(METALSIM_KERNEL_COMPILER "clang" CACHE STRING
    "Compiler of the kernels from .metal: clang (clang++-19) or project (CMAKE_CXX_COMPILER)")
set_property(CACHE METALSIM_KERNEL_COMPILER PROPERTY STRINGS clang project)
set(METALSIM_KERNEL_PLUGIN_FLAGS "" CACHE STRING
    "Flags that load the lane-loop pass plugin into clang (-fpass-plugin=...)")
# Left empty, the lane-loop pass's own when LLVM 19 is here (cmake/MetalsimLanes.cmake).
include(MetalsimLanes)
# And the access-check pass's (cmake/MetalsimInstrument.cmake).
include(MetalsimInstrument)

# half <-> float conversions in hardware (F16C) when the build machine has it: without it every
# conversion is a library call, 3-5x slower on half-heavy kernels. And AVX2 with FMA where the
# machine has them (x86-64-v3: every x86-64 since 2013-2015): lane loops vectorize 8 floats wide,
# an explicit fma() is one instruction, and a scalar half load no longer merges into a register
# that the previous lane's result still occupies (with SSE's pinsrw, a loop over halves on fibers
# ran its lanes one after another: silu 37 against 11 ns a lane). Rounding after every operation
# is the same whatever the instruction set (no contraction: -ffp-contract=off). The binaries then
# need such a CPU; the fast baselines are compiled with the same flags (kernels/CMakeLists.txt).
if(NOT DEFINED METALSIM_KERNEL_ARCH_FLAGS)
  set(metalsim_arch_flags "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
    file(READ /proc/cpuinfo metalsim_cpuinfo)
    if(metalsim_cpuinfo MATCHES " f16c")
      set(metalsim_arch_flags -mf16c)
      if(metalsim_cpuinfo MATCHES " avx2" AND metalsim_cpuinfo MATCHES " fma")
        list(APPEND metalsim_arch_flags -mavx2 -mfma)
      endif()
    endif()
  endif()
  set(METALSIM_KERNEL_ARCH_FLAGS "${metalsim_arch_flags}" CACHE STRING
      "Target flags for kernels compiled from .metal")
endif()

# ------------------------------ the compiler
if(METALSIM_KERNEL_COMPILER STREQUAL "clang")
  find_program(METALSIM_KERNEL_CLANG NAMES clang++-19
               DOC "clang++ 19, which compiles kernels (scripts/setup.sh installs clang-19)")
  if(NOT METALSIM_KERNEL_CLANG)
    message(FATAL_ERROR "metalsim compiles kernels with clang++-19, which was not found: run "
                        "scripts/setup.sh (Debian package clang-19), or configure with "
                        "-DMETALSIM_KERNEL_CLANG=/path/to/clang++-19, or with "
                        "-DMETALSIM_KERNEL_COMPILER=project to compile kernels with "
                        "${CMAKE_CXX_COMPILER}")
  endif()
  execute_process(COMMAND "${METALSIM_KERNEL_CLANG}" -dumpversion
                  OUTPUT_VARIABLE metalsim_clang_version OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT metalsim_clang_version MATCHES "^19\\.")
    message(FATAL_ERROR "METALSIM_KERNEL_CLANG=${METALSIM_KERNEL_CLANG} is clang "
                        "${metalsim_clang_version}; kernels need clang 19 (the lane-loop plugin is "
                        "built against LLVM 19)")
  endif()
  set(METALSIM_KERNEL_CXX "${METALSIM_KERNEL_CLANG}")
elseif(METALSIM_KERNEL_COMPILER STREQUAL "project")
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "METALSIM_KERNEL_COMPILER=project supports GCC only (its flags are GCC's)")
  endif()
  set(METALSIM_KERNEL_CXX "${CMAKE_CXX_COMPILER}")
else()
  message(FATAL_ERROR "METALSIM_KERNEL_COMPILER must be 'clang' or 'project', "
                      "not '${METALSIM_KERNEL_COMPILER}'")
endif()

# ------------------------------ the flags
# Optimisation as the project's own code is built (CMake's defaults for the build type).
set(metalsim_opt_Debug -O0)
set(metalsim_opt_Release -O3 -DNDEBUG)
set(metalsim_opt_RelWithDebInfo -O2 -DNDEBUG)
set(metalsim_opt_MinSizeRel -Os -DNDEBUG)

set(METALSIM_KERNEL_FLAGS
  -std=c++20
  ${metalsim_opt_${CMAKE_BUILD_TYPE}}
  # Debug info for gdb on .metal lines and for the .metal lines of fault reports: the generated
  # code carries #line directives. DWARF 4: binutils' addr2line misreads GCC 12's DWARF 5 line
  # tables for these objects.
  -g -gdwarf-4
  # A frame larger than a page is probed page by page, so a lane that overflows its stack always
  # meets the guard page (stack.overflow) at function entry.
  -fstack-clash-protection
  -fPIC
  # No fused multiply-add across operations: each operation rounds, as GCC does in ISO C++ mode
  # (Clang would contract a * b + c where the target has FMA), so results do not depend on the
  # kernel compiler.
  -ffp-contract=off
  # A loop that never ends hangs a GPU, and the watchdog must see it (watchdog.timeout): C++'s
  # forward-progress rule would let the optimizer assume every loop without I/O or atomics ends,
  # and delete one that does not (`for (uint i = 0; i != n; i += 2)` with n odd became
  # `out[tid] = 4` in lane loops, and an assumption that no lane takes the loop).
  -fno-finite-loops
  # MSL has no errno: without this, sqrt and the other C math functions the MSL headers call are
  # calls that write memory (errno), which keep a lane loop's region in order (a write another
  # lane may meet: rms_norm's rsqrt kept its normalizing loop per lane) and keep sqrt a call
  # rather than the instruction. Values do not change: errno is all the flag drops.
  -fno-math-errno
  ${METALSIM_KERNEL_ARCH_FLAGS}
  ${METALSIM_SANITIZER_FLAGS})
if(METALSIM_KERNEL_COMPILER STREQUAL "clang")
  # half is _Float16 rounded after every operation (MSL). Clang otherwise keeps _Float16
  # intermediates in float until the end of the expression; -fexcess-precision=16 is the driver's
  # spelling of -ffloat16-excess-precision=none.
  list(APPEND METALSIM_KERNEL_FLAGS -fexcess-precision=16 ${METALSIM_KERNEL_PLUGIN_FLAGS})
else()
  # GCC 12 rounds _Float16 after every operation in C++ by itself. MSL idioms it warns about:
  # unused built-ins, unused parameters, attributes it does not know.
  list(APPEND METALSIM_KERNEL_FLAGS -Wno-unused-parameter -Wno-unused-variable -Wno-attributes)
  if(METALSIM_KERNEL_PLUGIN_FLAGS)
    message(FATAL_ERROR "METALSIM_KERNEL_PLUGIN_FLAGS needs METALSIM_KERNEL_COMPILER=clang")
  endif()
endif()

# The flags of Metal's math modes (safe adds none), METALSIM_KERNEL_MATH_FLAGS_<mode>.
include(MetalsimMathMode)

# The MSL headers (<metal_stdlib>) and the engine's ABI headers the generated code includes.
set(METALSIM_KERNEL_INCLUDE_DIRS "${PROJECT_SOURCE_DIR}/simt/include" "${PROJECT_SOURCE_DIR}")

# ------------------------------ written out once, for the build and for a runtime compiler
# Both files quote each argument as a C string ("...", with \ and " escaped): a GNU response
# file reads it back as one argument, a C++ compiler as a string literal.
function(metalsim_quoted_lines out prefix suffix)
  set(lines "")
  foreach(arg IN LISTS ARGN)
    string(REPLACE "\\" "\\\\" arg "${arg}")
    string(REPLACE "\"" "\\\"" arg "${arg}")
    string(APPEND lines "${prefix}\"${arg}\"${suffix}\n")
  endforeach()
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# The response file every kernel compile reads (@file). It is rewritten only when its content
# changes, and every kernel object depends on it, so changing a flag recompiles the kernels.
set(metalsim_include_flags "")
foreach(dir IN LISTS METALSIM_KERNEL_INCLUDE_DIRS)
  list(APPEND metalsim_include_flags "-I${dir}")
endforeach()
metalsim_quoted_lines(metalsim_rsp "" "" ${METALSIM_KERNEL_FLAGS} ${metalsim_include_flags})
set(METALSIM_KERNEL_FLAGS_FILE "${PROJECT_BINARY_DIR}/metalsim_kernel_flags.rsp")
file(CONFIGURE OUTPUT "${METALSIM_KERNEL_FLAGS_FILE}" CONTENT "${metalsim_rsp}" @ONLY)

# The same settings as C++ constants, for newLibraryWithSource (issue 13).
metalsim_quoted_lines(metalsim_flag_items "    " "," ${METALSIM_KERNEL_FLAGS})
metalsim_quoted_lines(metalsim_include_items "    " "," ${METALSIM_KERNEL_INCLUDE_DIRS})
metalsim_quoted_lines(metalsim_relaxed_items "    " "," ${METALSIM_KERNEL_MATH_FLAGS_relaxed})
set(metalsim_toolchain_dir "${PROJECT_BINARY_DIR}/generated")
file(CONFIGURE OUTPUT "${metalsim_toolchain_dir}/metalsim/kernel_toolchain.h" @ONLY CONTENT
"// Generated by cmake/MetalsimKernelCompiler.cmake: how this build compiles kernels. Do not edit.
#pragma once
#include <string_view>

namespace metalsim::kernel_toolchain {

// The compiler of the C++ that metalsim-front generates
// (METALSIM_KERNEL_COMPILER=@METALSIM_KERNEL_COMPILER@).
inline constexpr std::string_view kCompiler = \"@METALSIM_KERNEL_CXX@\";
// Its flags, include directories apart (language, build type, debug info, half, sanitizer, plugin).
inline constexpr std::string_view kFlags[] = {
@metalsim_flag_items@};
// Added after kFlags for MTL::MathModeRelaxed and MTL::MathModeFast (cmake/MetalsimMathMode.cmake:
// no errno, no trapping: nothing that changes a value, so every code path rounds alike).
// MathModeSafe adds nothing.
inline constexpr std::string_view kRelaxedMathFlags[] = {
@metalsim_relaxed_items@};
// -I directories: the MSL headers and the engine's ABI headers.
inline constexpr std::string_view kIncludeDirs[] = {
@metalsim_include_items@};
// The response file the build passes as @file: kFlags, then the -I directories.
inline constexpr std::string_view kFlagsFile = \"@METALSIM_KERNEL_FLAGS_FILE@\";

}  // namespace metalsim::kernel_toolchain
")
add_library(metalsim_kernel_toolchain INTERFACE)
target_include_directories(metalsim_kernel_toolchain INTERFACE "${metalsim_toolchain_dir}")

list(JOIN METALSIM_KERNEL_FLAGS " " metalsim_flags_text)
message(STATUS "metalsim kernels: ${METALSIM_KERNEL_CXX} ${metalsim_flags_text}")
