# Every dependency comes from a Debian package (scripts/setup.sh installs them).
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
# Static Boost.Context: the context switch is a direct call, not through the PLT.
set(Boost_USE_STATIC_LIBS ON)
find_package(Boost 1.74 REQUIRED COMPONENTS context)
find_package(Threads REQUIRED)
if(METALSIM_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(METALSIM_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
