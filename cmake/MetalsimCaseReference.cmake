# metalsim_add_case_reference(<name> SOURCES a.c b.cpp ... [OUTPUT_DIRECTORY dir])
#
# A case file's reference in a shared object of the user's (docs/cli.md, "A reference in a
# shared object"): the MODULE library lib<name>.so built from SOURCES (C or C++: the project must
# enable the language of each), compiled against <metalsim/case_reference.h> and nothing else of
# metalsim (the target metalsim::case_reference), so that the reference shares no code with the
# kernel it checks. OUTPUT_DIRECTORY puts it there, e.g. beside the case file that names it
# ("reference": {"library": "lib<name>.so", ...} is relative to the case file).
#
# Works from any project: metalsim's own, a parent that add_subdirectory's metalsim (or fetches
# it), and one that uses the installed package (metalsimConfig.cmake includes this file after
# metalsimTargets.cmake, which defines metalsim::case_reference).
include_guard(GLOBAL)
include(GNUInstallDirs)

# The header's include root, in the build tree and installed (MetalsimPackage.cmake exports it).
if(NOT METALSIM_INSTALLED_PACKAGE AND NOT TARGET metalsim_case_reference)
  add_library(metalsim_case_reference INTERFACE)
  target_include_directories(metalsim_case_reference INTERFACE
    "$<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}/../host/include>"
    "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
  set_target_properties(metalsim_case_reference PROPERTIES EXPORT_NAME case_reference)
  add_library(metalsim::case_reference ALIAS metalsim_case_reference)
endif()

function(metalsim_add_case_reference name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_DIRECTORY" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "metalsim_add_case_reference(${name}): unknown arguments "
                        "${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "metalsim_add_case_reference(${name}): no SOURCES")
  endif()
  add_library(${name} MODULE ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE metalsim::case_reference)
  # The case file names lib<name>.so whatever the platform's default for modules.
  set_target_properties(${name} PROPERTIES PREFIX "lib" SUFFIX ".so")
  if(arg_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${arg_OUTPUT_DIRECTORY}")
  endif()
endfunction()
