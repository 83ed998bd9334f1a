#pragma once
// Runtime compilation (MTL::Device::newLibrary with source, issue 13), one function at a time
// (issue 25): MSL text through the front (simt/front) into C++, kept in the kernel cache
// (kernel_cache.h); newLibrary compiles that C++ once as a whole without its kernels (the check:
// every error of the source, and the host names of its kernels), and each function a library is
// asked for is compiled alone, when first asked, through the kernel compiler
// (runtime_toolchain.h) into a shared object kept in the cache. Loading them is
// runtime_library.cpp's.
#include <string>
#include <utility>
#include <vector>

namespace metalsim::host {

struct RuntimeSource {
  std::string text;
  // "program_source" (Metal's name for a source string) or the .metal file's path: the #line
  // directives of the generated code, hence errors, gdb and reports, name it.
  std::string name;
  std::vector<std::pair<std::string, std::string>> macros;  // -D NAME=VALUE, in the order given
  bool fast_math = true;  // MTL::MathModeRelaxed or MathModeFast (Metal's default)
  // CompileOptions::setIncludeDirectories: searched by the front for the source's #includes
  // (after the source's folder) and given to the kernel compiler as -I, in this order.
  std::vector<std::string> include_dirs;
};

// One compile's outcome: the names compile of a source (check_runtime_source) or one
// function's (compile_runtime_function).
struct CompiledLibrary {
  std::string key;          // the cache key: names the library in this process too
  std::string path;         // the shared object, "" on failure
  bool from_cache = false;  // found in the cache, nothing compiled
  // On failure: `file:line: error: message` lines from the front or the compiler.
  std::string error;
};

// The key of `source` under the toolchain found at run time (without compiling): the cache keys
// of its translation, its names compile and each of its functions are made from it.
std::string runtime_cache_key(const RuntimeSource& source);

// The cache key of the shared object of `source`'s function `name` (compile_runtime_function),
// specialised with `constants` when not "".
std::string runtime_function_key(const RuntimeSource& source, const std::string& name,
                                 const std::string& constants = {});

// Finds or makes the front's translation of `source`, then finds or builds its names compile:
// the whole translation compiled without optimisation and with no kernel selected, so that an
// error anywhere in the source fails here, with its .metal line. The shared object exports
// metalsim_kernel_names (simt/engine/generated_code.h).
CompiledLibrary check_runtime_source(const RuntimeSource& source);

// Finds or builds the shared object of `source` that registers only the kernel named `name`
// (generated::kernel_selected with METALSIM_KERNEL_NAME): the compiler instantiates and
// optimises that kernel and what it calls, and parses the rest. With `constants`
// (function_constant_values), the function is specialised: the values given are compiled in
// (simt/engine/generated_code.h, METALSIM_FUNCTION_CONSTANT_VALUES), so the optimizer folds them
// and the branches on them, is_function_constant_defined is a constant, and an argument only a
// folded-away branch used is inactive. The cache keys each set of values apart.
CompiledLibrary compile_runtime_function(const RuntimeSource& source, const std::string& name,
                                         const std::string& constants = {});

// The METALSIM_FUNCTION_CONSTANT_VALUES list of `values` (by index; empty: not given).
std::string function_constant_values(const std::vector<std::vector<unsigned char>>& values);

// The kernel compiler's flags for a math mode: safe (none beyond the kernel flags: every
// operation rounds as written) or relaxed/fast (no errno, no trapping: still no value changes,
// cmake/MetalsimMathMode.cmake says why).
std::vector<std::string> math_mode_flags(bool fast_math);

}  // namespace metalsim::host
