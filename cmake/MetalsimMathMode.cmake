# Metal's math modes (MTL::MathMode: safe, relaxed, fast), as a kernel library asks for them:
# metalsim_add_metal_library(... MATH_MODE <mode>) at build time (MetalsimMetal.cmake), and
# MTL::CompileOptions::setMathMode / setFastMathEnabled for a library compiled at run time (the
# same flags, from <metalsim/kernel_toolchain.h>). docs/performance.md ("Math modes") has what each
# costs and the tolerance policy.
#
#   METALSIM_KERNEL_MATH_FLAGS_<mode>  the flags a mode adds after METALSIM_KERNEL_FLAGS
#   METALSIM_DEFAULT_MATH_MODE         the mode of a library that names none (cache; safe)
#
# safe adds nothing: every operation rounds as written, in the order written.
#
# relaxed and fast add only what changes no value: no errno from the math library and no trapping
# floating-point exceptions (both let the optimizer treat sqrt and friends as plain operations and
# vectorize them). They do not add the flags that let the optimizer change results
# (-fassociative-math, -freciprocal-math, -ffp-contract=fast, -fapprox-func, -fno-signed-zeros):
# metalsim compiles every kernel into more than one code path (the fibers' entry, the lane loops'
# vector body, their scalar remainder, the loop over a list of lanes), and under those flags each
# path may round differently, so a lane's result would depend on which path ran it: on the
# execution mode, the schedule, the lanes that happen to run together. Metal allows these changes
# in fast math; it does not require them, and a GPU runs one code path for every thread. One
# numerical result per operation, whatever the path, is what makes a difference between two runs a
# finding (race.schedule, mode.divergent) and never noise; docs/performance.md ("Math modes") has
# the measurement that made this choice (issue 28 item 6). Never -ffinite-math-only: NaN and
# infinity keep their meaning, because the poison detection (an unwritten output is a NaN pattern)
# and the NaN checks rely on them.
include_guard(GLOBAL)

set(METALSIM_DEFAULT_MATH_MODE "safe" CACHE STRING
    "Math mode of a kernel library that names none: safe, relaxed or fast (Metal's MTL::MathMode)")
set_property(CACHE METALSIM_DEFAULT_MATH_MODE PROPERTY STRINGS safe relaxed fast)

set(METALSIM_KERNEL_MATH_FLAGS_safe "")
set(METALSIM_KERNEL_MATH_FLAGS_relaxed -fno-math-errno -fno-trapping-math)
set(METALSIM_KERNEL_MATH_FLAGS_fast ${METALSIM_KERNEL_MATH_FLAGS_relaxed})

# Sets `out` to the flags of `mode`, or stops with the allowed modes.
function(metalsim_math_mode_flags mode out)
  if(NOT mode MATCHES "^(safe|relaxed|fast)$")
    message(FATAL_ERROR "MATH_MODE must be safe, relaxed or fast (Metal's MTL::MathMode), not "
                        "'${mode}'")
  endif()
  set(${out} ${METALSIM_KERNEL_MATH_FLAGS_${mode}} PARENT_SCOPE)
endfunction()
