# How other projects use metalsim (issue 13, docs/porting.md): the same names whether metalsim is
# installed (find_package(metalsim)), a subdirectory (add_subdirectory) or fetched
# (FetchContent):
#   metalsim::host                  the host API (metal-cpp's names) over the engine: link it
#   metalsim::msl, metalsim::simt   the MSL headers and the engine (metalsim::host brings both)
#   metalsim::front                 the front program (metalsim_add_metal_library runs it)
#   metalsim::metal_cpp             metal-cpp's include paths (<Metal/Metal.hpp> ...) over
#                                   metalsim::host, for code written against Apple's metal-cpp
#   metalsim::metalsim              the metalsim program (check, run, fuzz, ...)
#   metalsim_add_metal_library()    kernels from .metal files (cmake/MetalsimMetal.cmake)
#   metalsim::case_reference        the include root of <metalsim/case_reference.h>, and
#   metalsim_add_case_reference()   a case file's reference library (MetalsimCaseReference.cmake)
# Sanitizer settings (METALSIM_SANITIZER) are usage requirements of metalsim::simt, so a user's
# program and kernels get them by linking.
#
# METALSIM_INSTALL (ON when metalsim is the top-level project) adds the install rules:
#   <prefix>/include/metalsim/           the host API headers (Metal.hpp, Metal/, Foundation/)
#   <prefix>/include/metalsim/engine/    the engine's headers (simt/...), an include root
#   <prefix>/include/metalsim/msl/       the MSL headers (<metal_stdlib>), an include root
#   <prefix>/lib/                        libmetalsim_simt.a, libmetalsim_host.a, libmetalsim_front_lib.a
#   <prefix>/lib/metalsim/               the pass plugins the kernel compiler loads
#   <prefix>/bin/                        metalsim, metalsim-front, metalsim-metal
#   <prefix>/include/metalsim/metal_cpp/ metal-cpp's paths: Metal/Metal.hpp, Foundation/...
#   <prefix>/libexec/metalsim/xcrun/     xcrun, running metalsim-metal for `xcrun metal`
#   <prefix>/lib/cmake/metalsim/         metalsimConfig.cmake and what it includes
#   <prefix>/share/doc/metalsim/         README.md, docs/*.md and examples/ (the case file too)
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)
include(MetalsimRuntimeCompiler)  # the install layout; GNUInstallDirs

option(METALSIM_INSTALL "Add metalsim's install rules (cmake --install)" ${PROJECT_IS_TOP_LEVEL})
# OFF: a library-only install (the program needs every kernel family built).
option(METALSIM_INSTALL_PROGRAM "Install the metalsim program with the package" ON)

# ------------------------------ the names users write
add_library(metalsim::host ALIAS metalsim_host)
add_library(metalsim::simt ALIAS metalsim_simt)
add_library(metalsim::msl ALIAS metalsim_msl)
add_library(metalsim::metal_cpp ALIAS metalsim_metal_cpp)
add_executable(metalsim::front ALIAS metalsim-front)
if(TARGET metalsim)
  add_executable(metalsim::metalsim ALIAS metalsim)
endif()
set_target_properties(metalsim_host PROPERTIES EXPORT_NAME host)
set_target_properties(metalsim_simt PROPERTIES EXPORT_NAME simt)
set_target_properties(metalsim_msl PROPERTIES EXPORT_NAME msl)
set_target_properties(metalsim_metal_cpp PROPERTIES EXPORT_NAME metal_cpp)
set_target_properties(metalsim-front PROPERTIES EXPORT_NAME front)
set_target_properties(metalsim_front_lib PROPERTIES EXPORT_NAME front_lib)
set_target_properties(metalsim_warnings PROPERTIES EXPORT_NAME warnings)
set_target_properties(metalsim_kernel_toolchain PROPERTIES EXPORT_NAME kernel_toolchain)

# ------------------------------ usage requirements
# metalsim's headers are C++20; the sanitizer preset's flags reach users' programs and kernels.
target_compile_features(metalsim_simt INTERFACE cxx_std_20)
metalsim_sanitizer_usage(metalsim_simt)

if(NOT METALSIM_INSTALL)
  return()
endif()

# ------------------------------ include directories, in the build tree and installed
# Each target's include directories as they are for the build tree; `installed` for the package.
function(metalsim_install_includes target installed)
  get_target_property(dirs ${target} INTERFACE_INCLUDE_DIRECTORIES)
  set(both "")
  foreach(dir IN LISTS dirs)
    if(dir MATCHES "^\\$<")
      list(APPEND both "${dir}")
    else()
      list(APPEND both "$<BUILD_INTERFACE:${dir}>")
    endif()
  endforeach()
  if(installed)
    list(APPEND both "$<INSTALL_INTERFACE:${installed}>")
  endif()
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${both}")
endfunction()
metalsim_install_includes(metalsim_host "${CMAKE_INSTALL_INCLUDEDIR}")
metalsim_install_includes(metalsim_simt "${METALSIM_INSTALL_ENGINE_INCLUDEDIR}")
metalsim_install_includes(metalsim_front_lib "${METALSIM_INSTALL_ENGINE_INCLUDEDIR}")
metalsim_install_includes(metalsim_msl "${METALSIM_INSTALL_MSL_INCLUDEDIR}")
metalsim_install_includes(metalsim_metal_cpp "${CMAKE_INSTALL_INCLUDEDIR}/metalsim/metal_cpp")
metalsim_install_includes(metalsim_kernel_toolchain "")  # the build's own paths: never installed

# ------------------------------ headers
install(DIRECTORY "${PROJECT_SOURCE_DIR}/host/include/metalsim/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/metalsim")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/host/metal_cpp/"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/metalsim/metal_cpp")
foreach(part base report fiber abi fault checks engine)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/simt/${part}/"
          DESTINATION "${METALSIM_INSTALL_ENGINE_INCLUDEDIR}/simt/${part}"
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(DIRECTORY "${PROJECT_SOURCE_DIR}/simt/include/"
        DESTINATION "${METALSIM_INSTALL_MSL_INCLUDEDIR}"
        PATTERN "CMakeLists.txt" EXCLUDE)

# ------------------------------ documentation and the example project
# The docs and, beside them, the example project with its case file (examples/tiled_matmul:
# `metalsim run matmul.json` in a copy of it compiles its kernel at run time).
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
        FILES_MATCHING PATTERN "*.md")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/examples/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/examples")

# ------------------------------ libraries, programs, plugins
set(metalsim_installed_targets metalsim_simt metalsim_host metalsim_metal_cpp metalsim_front_lib
                               metalsim_msl
                               metalsim_warnings metalsim_kernel_toolchain metalsim-front
                               metalsim_case_reference)
if(TARGET metalsim AND METALSIM_INSTALL_PROGRAM)
  list(APPEND metalsim_installed_targets metalsim)
endif()
install(TARGETS ${metalsim_installed_targets} EXPORT metalsimTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
# metalsim-metal finds the MSL and engine headers relative to its folder, so the package may move.
file(RELATIVE_PATH METALSIM_TOOLS_MSL_DIR "/prefix/${CMAKE_INSTALL_BINDIR}"
     "/prefix/${METALSIM_INSTALL_MSL_INCLUDEDIR}")
file(RELATIVE_PATH METALSIM_TOOLS_ENGINE_DIR "/prefix/${CMAKE_INSTALL_BINDIR}"
     "/prefix/${METALSIM_INSTALL_ENGINE_INCLUDEDIR}")
configure_file("${PROJECT_SOURCE_DIR}/host/tools/metalsim-metal.in"
               "${PROJECT_BINARY_DIR}/package/metalsim-metal" @ONLY)
install(PROGRAMS "${PROJECT_BINARY_DIR}/package/metalsim-metal"
        DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(PROGRAMS "${PROJECT_SOURCE_DIR}/host/tools/xcrun"
        DESTINATION "${CMAKE_INSTALL_LIBEXECDIR}/metalsim/xcrun")
foreach(plugin MetalsimLanes MetalsimChecks)
  if(TARGET ${plugin})
    install(TARGETS ${plugin} LIBRARY DESTINATION "${METALSIM_INSTALL_PLUGINDIR}")
  endif()
endforeach()

# ------------------------------ the CMake package
set(metalsim_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/metalsim")
install(EXPORT metalsimTargets NAMESPACE metalsim:: DESTINATION "${metalsim_cmake_dir}")
# The kernel flags of the installed tree, "@PREFIX@" for the prefix: metalsimConfig.cmake writes
# the user's flags file from it (the package may be moved after installing).
set(metalsim_installed_rsp_items "")
foreach(dir IN LISTS METALSIM_INSTALLED_KERNEL_INCLUDE_DIRS)
  list(APPEND metalsim_installed_rsp_items "-I${dir}")
endforeach()
metalsim_quoted_lines(metalsim_installed_rsp "" "" ${METALSIM_INSTALLED_KERNEL_FLAGS}
                      ${metalsim_installed_rsp_items})
# (file(WRITE), not file(CONFIGURE): the text's @PREFIX@ must stay.)
file(WRITE "${PROJECT_BINARY_DIR}/package/metalsim_kernel_flags.rsp.in" "${metalsim_installed_rsp}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/metalsimConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/package/metalsimConfig.cmake"
                              INSTALL_DESTINATION "${metalsim_cmake_dir}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/metalsimConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
# MetalsimMetal.cmake and the modules it includes when it runs from the package (not the
# kernel compiler's, which the package replaces with the recorded compiler and flags).
set(metalsim_package_modules MetalsimMetal.cmake MetalsimCaseReference.cmake metalsim_kernel_cc.sh)
if(EXISTS "${PROJECT_SOURCE_DIR}/cmake/MetalsimMathMode.cmake")
  list(APPEND metalsim_package_modules MetalsimMathMode.cmake)
endif()
list(TRANSFORM metalsim_package_modules PREPEND "${PROJECT_SOURCE_DIR}/cmake/")
install(FILES "${PROJECT_BINARY_DIR}/package/metalsimConfig.cmake"
              "${PROJECT_BINARY_DIR}/package/metalsimConfigVersion.cmake"
              "${PROJECT_BINARY_DIR}/package/metalsim_kernel_flags.rsp.in"
              ${metalsim_package_modules}
        DESTINATION "${metalsim_cmake_dir}")
