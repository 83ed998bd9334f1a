# Warnings are errors in metalsim's own code; kernels written by users get the same flags
# through metalsim_add_metal_library, minus the ones MSL idioms trip over.
add_library(metalsim_warnings INTERFACE)
target_compile_options(metalsim_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow=local -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wimplicit-fallthrough)
if(METALSIM_WERROR)
  target_compile_options(metalsim_warnings INTERFACE -Werror)
endif()
