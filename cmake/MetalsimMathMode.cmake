# Metal's math modes (MTL::MathMode: safe, relaxed, fast), as a kernel library asks for them:
# metalsim_add_metal_library(... MATH_MODE <mode>) at build time (MetalsimMetal.cmake), and
# MTL::CompileOptions::setMathMode / setFastMathEnabled for a library compiled at run time (the
# same flags, from <metalsim/kernel_toolchain.h>). docs/performance.md ("Math modes") has what each
# costs and the tolerance policy.
#
#   METALSIM_KERNEL_MATH_FLAGS_<mode>  the flags a mode adds after METALSIM_KERNEL_FLAGS
#   METALSIM_DEFAULT_MATH_MODE         the mode of a library that names none (cache; safe)
#
# safe adds nothing: every operation rounds as written, in the order written. It is the only mode
# in which lane loops and fibers give bit-identical results and in which the project's tolerances
# (written for per-operation rounding) hold, so the project's kernels use it.
#
# relaxed and fast allow what Metal allows them: reassociation (so reductions vectorize),
# reciprocals, contraction into fused multiply-add, approximate library functions, no errno and no
# trapping. Neither assumes finite values: never -ffinite-math-only (-ffast-math would imply it).
# NaN and infinity keep their meaning, because the poison detection (an unwritten output is a NaN
# pattern) and the NaN checks rely on them. Metal's fast mode also assumes finite values;
# metalsim's does not, so its fast compiles as its relaxed.
include_guard(GLOBAL)

set(METALSIM_DEFAULT_MATH_MODE "safe" CACHE STRING
    "Math mode of a kernel library that names none: safe, relaxed or fast (Metal's MTL::MathMode)")
set_property(CACHE METALSIM_DEFAULT_MATH_MODE PROPERTY STRINGS safe relaxed fast)

set(METALSIM_KERNEL_MATH_FLAGS_safe "")
set(METALSIM_KERNEL_MATH_FLAGS_relaxed
    -fno-math-errno -fno-trapping-math -fno-signed-zeros -fassociative-math -freciprocal-math
    -ffp-contract=fast)
if(NOT METALSIM_KERNEL_COMPILER STREQUAL "project")
  list(APPEND METALSIM_KERNEL_MATH_FLAGS_relaxed -fapprox-func)  # clang only
endif()
set(METALSIM_KERNEL_MATH_FLAGS_fast ${METALSIM_KERNEL_MATH_FLAGS_relaxed})

# Sets `out` to the flags of `mode`, or stops with the allowed modes.
function(metalsim_math_mode_flags mode out)
  if(NOT mode MATCHES "^(safe|relaxed|fast)$")
    message(FATAL_ERROR "MATH_MODE must be safe, relaxed or fast (Metal's MTL::MathMode), not "
                        "'${mode}'")
  endif()
  set(${out} ${METALSIM_KERNEL_MATH_FLAGS_${mode}} PARENT_SCOPE)
endfunction()
