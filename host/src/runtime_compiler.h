#pragma once
// Runtime compilation (MTL::Device::newLibrary with source, issue 13): MSL text through the
// front (simt/front) into C++, then through the kernel compiler (runtime_toolchain.h) into a
// shared object kept in the kernel cache (kernel_cache.h). Loading it is runtime_library.cpp's.
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

struct CompiledLibrary {
  std::string key;          // the cache key: names the library in this process too
  std::string path;         // the shared object, "" on failure
  bool from_cache = false;  // found in the cache, nothing compiled
  // On failure: `file:line: error: message` lines from the front or the compiler.
  std::string error;
};

// The cache key of `source` under the toolchain found at run time (without compiling).
std::string runtime_cache_key(const RuntimeSource& source);

// Finds or builds the shared object of `source`.
CompiledLibrary compile_runtime_source(const RuntimeSource& source);

// The kernel compiler's flags for a math mode: safe (none beyond the kernel flags: every
// operation rounds as written) or relaxed/fast (no errno, no trapping: still no value changes,
// cmake/MetalsimMathMode.cmake says why).
std::vector<std::string> math_mode_flags(bool fast_math);

}  // namespace metalsim::host
