# metalsim_add_metal_library(<target> SOURCES a.metal b.metal [INCLUDE_DIRS dir...]
#                            [MATH_MODE safe|relaxed|fast] [KERNELS pattern...])
#
# Runs metalsim-front on each .metal file at build time (re-run when the file, a header it
# includes, or the front changes) and compiles the generated C++ with the kernel compiler
# (clang++-19 and METALSIM_KERNEL_FLAGS, MetalsimKernelCompiler.cmake) into the OBJECT library
# <target>, linked to metalsim::msl (the MSL headers) and metalsim::simt (the engine). Object
# files are linked whole, so the static registrars of the kernels are kept: link <target> into
# the program or test that looks kernels up by name. Built with debug info: gdb breaks on .metal
# lines (`break softmax.metal:42`), since the generated code carries #line directives.
# MATH_MODE is Metal's math mode for the library (MetalsimMathMode.cmake says what each allows);
# without it, METALSIM_DEFAULT_MATH_MODE (safe). Lane loops and fibers are bit-identical in every
# mode (relaxed and fast change no value). (Apple's `metal` compiler defaults to fast: a project
# porting kernels that relies on it says MATH_MODE fast.)
# KERNELS keeps only the kernel instances whose host name matches one of the patterns ('*'
# matches any run of characters): the others are parsed but never instantiated or registered,
# so a library of thousands of template instances (MLX's kernel files) compiles in the time of
# the few a program dispatches. Without it every instance is built (docs/front.md).
#
# metalsim_use_kernel_compiler(<target>)
#
# Compiles every C++ source of <target> with the kernel compiler and flags instead of the
# project's, keeping the target's include directories and definitions (the generated kernels
# above; tests that hold the MSL headers to the same behaviour under both compilers).
#
# Both work from any project: metalsim's own, a parent that add_subdirectory's metalsim (or
# fetches it with FetchContent), and one that uses the installed package (metalsimConfig.cmake
# sets the compiler and flags file, METALSIM_INSTALLED_PACKAGE, before including this file).
include_guard(GLOBAL)
include(MetalsimMathMode)
if(NOT METALSIM_INSTALLED_PACKAGE)
  include(MetalsimKernelCompiler)
  # The plugins clang loads (cmake/MetalsimLanes.cmake, MetalsimInstrument.cmake), with the
  # targets that build them.
  set(METALSIM_KERNEL_PLUGINS "")
  set(metalsim_plugin_targets "")
  if(METALSIM_LANES_PLUGIN)
    list(APPEND METALSIM_KERNEL_PLUGINS "${METALSIM_LANES_PLUGIN}")
    list(APPEND metalsim_plugin_targets MetalsimLanes)
  endif()
  if(METALSIM_CHECKS_PLUGIN)
    list(APPEND METALSIM_KERNEL_PLUGINS "${METALSIM_CHECKS_PLUGIN}")
    list(APPEND metalsim_plugin_targets MetalsimChecks)
  endif()
  if(METALSIM_PASS_PLUGINS_FROM)  # another tree's plugins: files to depend on, no targets to build
    set(metalsim_plugin_targets "")
  endif()
endif()

# Global properties, not variables: a parent project calls the functions from directories that
# do not see metalsim's variables.
set_property(GLOBAL PROPERTY METALSIM_KERNEL_LAUNCHER
  "sh;${CMAKE_CURRENT_LIST_DIR}/metalsim_kernel_cc.sh;${METALSIM_KERNEL_CXX};@${METALSIM_KERNEL_FLAGS_FILE};--")
# What every kernel object depends on: a changed flag (the response file is rewritten only when
# its content changes), launcher or pass plugin recompiles the kernels.
set_property(GLOBAL PROPERTY METALSIM_KERNEL_DEPENDS "${METALSIM_KERNEL_FLAGS_FILE}"
             "${CMAKE_CURRENT_LIST_DIR}/metalsim_kernel_cc.sh" ${METALSIM_KERNEL_PLUGINS})
set_property(GLOBAL PROPERTY METALSIM_KERNEL_PLUGIN_TARGETS ${metalsim_plugin_targets})

function(metalsim_use_kernel_compiler target)
  # CMake hands each compile to the launcher, which runs the kernel compiler on the same source
  # and object with the target's include directories and definitions
  # (cmake/metalsim_kernel_cc.sh says how). Flags in ARGN come after the kernel flags (the math
  # mode's), so they override them.
  get_property(launcher GLOBAL PROPERTY METALSIM_KERNEL_LAUNCHER)
  if(ARGN)
    list(POP_BACK launcher separator)  # "--": the extra flags go before it
    list(APPEND launcher ${ARGN} "${separator}")
  endif()
  get_property(depends GLOBAL PROPERTY METALSIM_KERNEL_DEPENDS)
  get_property(plugin_targets GLOBAL PROPERTY METALSIM_KERNEL_PLUGIN_TARGETS)
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
  get_target_property(sources ${target} SOURCES)
  set_property(SOURCE ${sources} TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS
               ${depends})
  # The plugins are built before the kernels they compile.
  if(plugin_targets)
    add_dependencies(${target} ${plugin_targets})
  endif()
endfunction()

function(metalsim_add_metal_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "MATH_MODE" "SOURCES;INCLUDE_DIRS;KERNELS")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "metalsim_add_metal_library(${target}): no SOURCES")
  endif()
  if(NOT ARG_MATH_MODE)
    set(ARG_MATH_MODE "${METALSIM_DEFAULT_MATH_MODE}")
  endif()
  metalsim_math_mode_flags("${ARG_MATH_MODE}" math_flags)
  set(include_flags "")
  foreach(dir IN LISTS ARG_INCLUDE_DIRS)
    get_filename_component(abs "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND include_flags -I "${abs}")
  endforeach()

  set(generated "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(stem "${abs}" NAME_WE)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}.metal/${stem}.metal.cpp")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/${target}.metal"
      COMMAND metalsim::front "${abs}" -o "${out}" -MF "${out}.d" ${include_flags}
      DEPENDS "${abs}" metalsim::front
      DEPFILE "${out}.d"
      COMMENT "metalsim-front ${src}"
      VERBATIM)
    list(APPEND generated "${out}")
  endforeach()

  add_library(${target} OBJECT ${generated})
  target_include_directories(${target} PRIVATE ${ARG_INCLUDE_DIRS} "${PROJECT_SOURCE_DIR}")
  target_link_libraries(${target} PUBLIC metalsim::msl metalsim::simt)
  metalsim_use_kernel_compiler(${target} ${math_flags})
  if(ARG_KERNELS)
    foreach(pattern IN LISTS ARG_KERNELS)
      if(pattern MATCHES "[,\"\\]")
        message(FATAL_ERROR "metalsim_add_metal_library(${target}): KERNELS pattern '${pattern}' "
                            "holds a comma, quote or backslash")
      endif()
    endforeach()
    list(JOIN ARG_KERNELS "," selection)
    target_compile_definitions(${target} PRIVATE "METALSIM_KERNEL_SELECTION=\"${selection}\"")
  endif()
endfunction()
