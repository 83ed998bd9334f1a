# The asan and tsan presets set METALSIM_SANITIZER. Fiber switches are annotated in
# simt/fiber/fiber.cpp, keyed on the macros the compilers define (__SANITIZE_ADDRESS__,
# __SANITIZE_THREAD__).
#
# METALSIM_SANITIZER_FLAGS holds the compile flags once: the project's code gets them here, the
# kernels through METALSIM_KERNEL_FLAGS (MetalsimKernelCompiler.cmake). Kernels compiled by clang
# are instrumented by clang and linked against GCC's sanitizer runtime (the programs are linked
# by the project's compiler); the runtime interface is the same (compiler-rt's). Clang 19 does
# not define __SANITIZE_ADDRESS__: kernel code must not depend on it (it includes only the
# engine's ABI headers, which do not).
#
# metalsim_sanitizer_usage(<target>) makes the same flags usage requirements of <target>
# (metalsim::simt, cmake/MetalsimPackage.cmake): a user's program and kernels that link it are
# compiled and linked with them, from a parent project or against the installed package, as
# metalsim's own directories are by add_compile_options here.
if(METALSIM_SANITIZER STREQUAL "address")
  set(METALSIM_SANITIZER_FLAGS -fsanitize=address -fno-omit-frame-pointer)
  set(METALSIM_SANITIZER_LINK_FLAGS -fsanitize=address)
elseif(METALSIM_SANITIZER STREQUAL "thread")
  # Racecheck annotations in the engine, which is itself built uninstrumented.
  set(METALSIM_SANITIZER_FLAGS -fsanitize=thread -DMETALSIM_RACECHECK=1)
  set(METALSIM_SANITIZER_LINK_FLAGS -fsanitize=thread)
elseif(METALSIM_SANITIZER STREQUAL "")
  set(METALSIM_SANITIZER_FLAGS "")
  set(METALSIM_SANITIZER_LINK_FLAGS "")
else()
  message(FATAL_ERROR "METALSIM_SANITIZER must be '', 'address' or 'thread'")
endif()
add_compile_options(${METALSIM_SANITIZER_FLAGS})
add_link_options(${METALSIM_SANITIZER_LINK_FLAGS})

function(metalsim_sanitizer_usage target)
  target_compile_options(${target} INTERFACE ${METALSIM_SANITIZER_FLAGS})
  target_link_options(${target} INTERFACE ${METALSIM_SANITIZER_LINK_FLAGS})
endfunction()
