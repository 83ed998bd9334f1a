# metalsim_add_metal_library(<target> SOURCES a.metal b.metal [INCLUDE_DIRS dir...])
#
# Runs metalsim-front on each .metal file at build time (re-run when the file, a header it
# includes, or the front changes) and compiles the generated C++ into the OBJECT library
# <target>, linked to metalsim_msl (the MSL headers) and metalsim_simt (the engine). Object
# files are linked whole, so the static registrars of the kernels are kept: link <target>
# into the program or test that looks kernels up by name. Built with -g: gdb breaks on .metal
# lines (`break softmax.metal:42`), since the generated code carries #line directives.
include_guard(GLOBAL)

# half <-> float conversions in hardware (F16C) when the build machine has it: without it
# every conversion is a call into libgcc, 3-5x slower on half-heavy kernels. Rounding after
# every operation is the same either way. The binaries then need an F16C CPU (every x86-64
# since 2012); set METALSIM_KERNEL_ARCH_FLAGS to override.
if(NOT DEFINED METALSIM_KERNEL_ARCH_FLAGS)
  set(METALSIM_KERNEL_ARCH_FLAGS "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
    file(READ /proc/cpuinfo metalsim_cpuinfo)
    if(metalsim_cpuinfo MATCHES " f16c")
      set(METALSIM_KERNEL_ARCH_FLAGS -mf16c)
    endif()
  endif()
  set(METALSIM_KERNEL_ARCH_FLAGS "${METALSIM_KERNEL_ARCH_FLAGS}" CACHE STRING "Extra flags for kernels compiled from .metal")
endif()

function(metalsim_add_metal_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;INCLUDE_DIRS")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "metalsim_add_metal_library(${target}): no SOURCES")
  endif()
  set(include_flags "")
  set(include_dirs "")
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(abs "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND include_flags -I "${abs}")
    list(APPEND include_dirs "${abs}")
  endforeach()

  set(generated "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(stem "${abs}" NAME_WE)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}.metal/${stem}.metal.cpp")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/${target}.metal"
      COMMAND metalsim-front "${abs}" -o "${out}" -MF "${out}.d" ${include_flags}
      DEPENDS "${abs}" metalsim-front
      DEPFILE "${out}.d"
      COMMENT "metalsim-front ${src}"
      VERBATIM)
    list(APPEND generated "${out}")
  endforeach()

  add_library(${target} OBJECT ${generated})
  target_include_directories(${target} PRIVATE ${include_dirs} "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target} PUBLIC metalsim_msl metalsim_simt)
  # Kernels are MSL, not metalsim's own code: -g for gdb on .metal lines, and no warnings
  # that MSL idioms trip over (unused built-ins, shadowed names in instantiation macros).
  # -gdwarf-4: binutils' addr2line (the .metal lines of fault reports) misreads GCC 12's
  # default DWARF 5 line tables for these objects.
  # -fstack-clash-protection: a frame larger than a page is probed page by page, so a lane
  # that overflows its stack always meets the guard page (stack.overflow) at function entry.
  target_compile_options(${target} PRIVATE -g -gdwarf-4 -fstack-clash-protection -Wno-unused-parameter -Wno-unused-variable -Wno-attributes
                         ${METALSIM_KERNEL_ARCH_FLAGS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
