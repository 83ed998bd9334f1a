# cmake -DMODE=installed|subdirectory -DSOURCE_DIR=<checkout> -DBUILD_DIR=<its build>
#       -DWORK_DIR=<scratch> -DGENERATOR=... -DCXX=... -DBUILD_TYPE=... -DSANITIZER=...
#       -P tests/package/build_example.cmake
#
# Builds and runs examples/tiled_matmul as a user would (tests/package/CMakeLists.txt says why).
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

set(configure ${CMAKE_COMMAND} -S "${example}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
              "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
# The example compiles its kernel again at run time, into a cache of its own.
set(run ${CMAKE_COMMAND} -E env "XDG_CACHE_HOME=${WORK_DIR}/cache")

if(MODE STREQUAL "installed")
  set(prefix "${WORK_DIR}/prefix")
  step("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
  step("configure against the installed package" ${configure} "-DCMAKE_PREFIX_PATH=${prefix}")
  # The runtime compile takes the installed headers and plugins (the build tree exists too).
  list(APPEND run "METALSIM_PREFIX=${prefix}")
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
