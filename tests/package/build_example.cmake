# cmake -DMODE=installed|subdirectory -DSOURCE_DIR=<checkout> -DBUILD_DIR=<its build>
#       -DWORK_DIR=<scratch> -DGENERATOR=... -DCXX=... -DCC=... -DBUILD_TYPE=... -DSANITIZER=...
#       -P tests/package/build_example.cmake
#
# Builds and runs examples/tiled_matmul as a user would (tests/package/CMakeLists.txt says why);
# the installed way also builds a case reference and runs the install moved, the trees hidden.
cmake_minimum_required(VERSION 3.25)
set(example "${SOURCE_DIR}/examples/tiled_matmul")
file(REMOVE_RECURSE "${WORK_DIR}")
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)

function(step what)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}) after ${seconds} s:\n${out}")
  endif()
  message(STATUS "${what}: ${seconds} s")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# `command` must print `expected` (a regular expression).
function(expect_output what expected)
  if(NOT step_output MATCHES "${expected}")
    message(FATAL_ERROR "${what} did not print '${expected}':\n${step_output}")
  endif()
endfunction()

# The installed CMake package's files name no path of the source or build tree (issue 25 item 7).
function(no_tree_paths_in_package prefix)
  file(GLOB_RECURSE package_files "${prefix}/lib/cmake/metalsim/*")
  foreach(f IN LISTS package_files)
    file(READ "${f}" text)
    foreach(tree IN ITEMS "${BUILD_DIR}" "${SOURCE_DIR}/")
      string(FIND "${text}" "${tree}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "${f} names ${tree}, a path of the tree metalsim was built in")
      endif()
    endforeach()
  endforeach()
endfunction()

# A case file's reference built as a user builds it (issue 25 item 5), from plain C: with the
# package's metalsim_add_case_reference, and with the one-line compile of docs/cli.md. Each lands
# beside a copy of the header case file (every standard MSL header, compiled at run time), which
# the installed program runs from its own folder, as `./rbits.json` and from another folder.
function(case_reference_as_a_user_builds_it prefix)
  set(headers "${SOURCE_DIR}/tests/cli/case_files/headers")
  foreach(how cmake oneline)
    file(MAKE_DIRECTORY "${WORK_DIR}/user_${how}")
    file(COPY "${headers}/rbits.json" "${headers}/rbits.metal"
         DESTINATION "${WORK_DIR}/user_${how}")
  endforeach()
  step("configure a reference project against the installed package"
       ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/package/case_reference" -B "${WORK_DIR}/reference"
       -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_C_COMPILER=${CC}"
       "-DCMAKE_PREFIX_PATH=${prefix}" "-DREFERENCE_SOURCE=${headers}/rbits_ref.c"
       "-DCASE_DIR=${WORK_DIR}/user_cmake")
  step("build it with metalsim_add_case_reference" ${CMAKE_COMMAND} --build "${WORK_DIR}/reference")
  step("compile the reference in one line" ${CC} -O2 -shared -fPIC "-I${prefix}/include"
       "${headers}/rbits_ref.c" -o "${WORK_DIR}/user_oneline/librbits_ref.so")
  foreach(how cmake oneline)
    foreach(from_as "user_${how};rbits.json" "user_${how};./rbits.json" ".;user_${how}/rbits.json")
      list(GET from_as 0 from)
      list(GET from_as 1 as)
      step("installed metalsim run ${as} in ${from} (reference: ${how})" ${CMAKE_COMMAND} -E chdir
           "${WORK_DIR}/${from}" ${run} "${prefix}/bin/metalsim" run "${as}" --n=100)
      expect_output("metalsim run ${as}" "status     pass")
    endforeach()
  endforeach()
endfunction()

# docs/cli.md's worked example (issue 25, "Done when"), as written, from an empty directory with
# the installed program: the library-shaped case files, their kernels and headers copied in, the
# reference compiled with the one-line compile for C++, then the three commands of the example.
function(worked_example_from_an_empty_directory prefix)
  set(library "${SOURCE_DIR}/tests/cli/case_files/library")
  set(user "${WORK_DIR}/worked_example")
  file(MAKE_DIRECTORY "${user}")
  file(GLOB entries "${library}/*")
  file(COPY ${entries} DESTINATION "${user}")
  step("compile the worked example's reference in one line" ${CXX} -std=c++17 -O2 -shared -fPIC
       "-I${prefix}/include" "${user}/library_ref.cpp" -o "${user}/liblsim_ref.so")
  set(metalsim ${CMAKE_COMMAND} -E chdir "${user}" ${run} "${prefix}/bin/metalsim")
  step("installed metalsim check of the worked example"
       ${metalsim} check soft_max_mask.json soft_max_nomask.json gemv_axpby.json)
  expect_output("metalsim check" " passed, 0 failed")
  step("installed metalsim fuzz of the worked example"
       ${metalsim} fuzz gemv_axpby.json --cases 20 --seed 1)
  expect_output("metalsim fuzz" "20 passed, 0 failed")
  step("installed metalsim run of the worked example"
       ${metalsim} run soft_max_mask.json --ne00=200 --ne02=12 --max_bias_x4=4 -I root)
  expect_output("metalsim run" "status     pass")
endfunction()

# A relocatable install (issue 25 item 7): the prefix moved out of the trees, the source and
# build trees hidden (a tmpfs over each, in a mount namespace of the command's own), and the
# example case file installed beside the docs run from a copy: its kernel compiles at run time
# with the moved prefix's headers, plugins and toolchain, found from the program's own path.
function(relocated_install_without_the_trees prefix)
  string(RANDOM LENGTH 10 tag)
  set(away "/tmp/metalsim_relocated_${tag}")
  file(MAKE_DIRECTORY "${away}/user")
  step("move the prefix out of the trees" cp -a "${prefix}" "${away}/moved")
  set(example_files "${away}/moved/share/doc/metalsim/examples/tiled_matmul")
  file(COPY "${example_files}/matmul.json" "${example_files}/matmul.metal"
       DESTINATION "${away}/user")
  set(program env -u METALSIM_PREFIX "XDG_CACHE_HOME=${away}/cache" "${away}/moved/bin/metalsim"
              run matmul.json --M=45 --N=37 --K=70)
  execute_process(COMMAND unshare -rm true RESULT_VARIABLE cannot_hide OUTPUT_QUIET ERROR_QUIET)
  if(cannot_hide)
    message(WARNING "unshare -rm is refused here: the moved install runs with the trees in view")
    step("the moved install, trees in view" ${CMAKE_COMMAND} -E chdir "${away}/user" ${program})
  else()
    list(JOIN program "' '" words)
    step("the moved install, source and build trees hidden" unshare -rm sh -c
         "mount -t tmpfs none '${BUILD_DIR}' && mount -t tmpfs none '${SOURCE_DIR}' && \
test ! -e '${BUILD_DIR}/CMakeCache.txt' && cd '${away}/user' && exec '${words}'")
  endif()
  expect_output("the moved install's metalsim run matmul.json" "status     pass")
  file(REMOVE_RECURSE "${away}")
endfunction()

set(configure ${CMAKE_COMMAND} -S "${example}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
              "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
# The example compiles its kernel again at run time, into a cache of its own. No METALSIM_PREFIX:
# the installed program finds its prefix from its own path, a user's program from the package it
# was built against (host/src/runtime_toolchain.h).
set(run ${CMAKE_COMMAND} -E env --unset=METALSIM_PREFIX "XDG_CACHE_HOME=${WORK_DIR}/cache")

if(MODE STREQUAL "installed")
  set(prefix "${WORK_DIR}/prefix")
  step("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
  no_tree_paths_in_package("${prefix}")
  step("configure against the installed package" ${configure} "-DCMAKE_PREFIX_PATH=${prefix}")
  # The installed program runs and lists the kernel families it was built with (unless the build
  # left it out: METALSIM_INSTALL_PROGRAM=OFF).
  if(EXISTS "${prefix}/bin/metalsim")
    step("installed metalsim list" "${prefix}/bin/metalsim" list)
    # docs/porting.md's walkthrough, step 3: the case file run, checked and fuzzed with the
    # installed program, in a directory of the user's own with the two files copied into it.
    set(user "${WORK_DIR}/user")
    file(MAKE_DIRECTORY "${user}")
    file(COPY "${example}/matmul.metal" "${example}/matmul.json" DESTINATION "${user}")
    foreach(command "run;matmul.json;--M=45;--N=37;--K=70;--print;4" "check;matmul.json"
                    "fuzz;matmul.json;--cases;50;--corpus;corpus" "fuzz;--replay;corpus")
      string(REPLACE ";" " " words "${command}")
      step("installed metalsim ${words}" ${CMAKE_COMMAND} -E chdir "${user}" ${run}
           "${prefix}/bin/metalsim" ${command})
    endforeach()
    case_reference_as_a_user_builds_it("${prefix}")
    worked_example_from_an_empty_directory("${prefix}")
    relocated_install_without_the_trees("${prefix}")
  endif()
elseif(MODE STREQUAL "subdirectory")
  # metalsim is built from source here: unoptimised and without the pass plugins (the installed
  # way covers those), so that the test stays short on two cores.
  list(REMOVE_ITEM configure "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
  step("configure with metalsim as a subdirectory" ${configure} "-DMETALSIM_SOURCE_DIR=${SOURCE_DIR}"
       "-DMETALSIM_SANITIZER=${SANITIZER}" -DMETALSIM_LANES=OFF -DMETALSIM_ACCESS_CHECKS=OFF)
  # Not the top-level project: metalsim adds no tests or benchmarks.
  step("list the targets" ${CMAKE_COMMAND} --build "${WORK_DIR}/build" --target help)
  if(step_output MATCHES "(engine|host|runtime_library)_test|planted_kernels|_bench")
    message(FATAL_ERROR "metalsim as a subdirectory added test or benchmark targets:\n"
                        "${step_output}")
  endif()
else()
  message(FATAL_ERROR "MODE must be installed or subdirectory, not '${MODE}'")
endif()

step("build the example" ${CMAKE_COMMAND} --build "${WORK_DIR}/build" --target tiled_matmul
     --parallel ${cores})
step("run the example" ${run} "${WORK_DIR}/build/tiled_matmul")
message(STATUS "${step_output}")
