# The asan and tsan presets set METALSIM_SANITIZER. Fiber switches are annotated in
# simt/fiber/fiber.cpp, keyed on the macros the compilers define (__SANITIZE_ADDRESS__,
# __SANITIZE_THREAD__).
if(METALSIM_SANITIZER STREQUAL "address")
  add_compile_options(-fsanitize=address -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address)
elseif(METALSIM_SANITIZER STREQUAL "thread")
  add_compile_options(-fsanitize=thread)
  add_link_options(-fsanitize=thread)
  # Racecheck annotations in the engine, which is itself built uninstrumented.
  add_compile_definitions(METALSIM_RACECHECK=1)
elseif(NOT METALSIM_SANITIZER STREQUAL "")
  message(FATAL_ERROR "METALSIM_SANITIZER must be '', 'address' or 'thread'")
endif()
