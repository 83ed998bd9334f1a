// MTL::Device::newLibrary with source or a .metal file (issue 13): compile (runtime_compiler.h),
// then load the shared object and keep the kernels it registers (engine::KernelCapture) as the
// library's own.
#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "autoreleased_error.h"
#include "file_text.h"
#include "loaded_kernels.h"
#include "metalsim/Foundation/NSNumber.hpp"
#include "metalsim/Metal.hpp"
#include "runtime_compiler.h"
#include "simt/engine/kernel_capture.h"

namespace MTL {
namespace {

using metalsim::host::LoadedKernels;
using metalsim::host::RuntimeSource;

// Reports through `error`, when the caller passed one.
void fail(NS::Error** error, LibraryError code, std::string text) {
  if (error != nullptr) *error = metalsim::host::autoreleased_error(code, std::move(text));
}

// The -D list of `macros`, sorted by name (one cache key whatever the dictionary's order); ""
// when a value is neither a string nor a number, with `problem` naming it.
bool macro_list(const NS::Dictionary* macros, RuntimeSource& source, std::string* problem) {
  if (macros == nullptr) return true;
  for (const auto& [key, value] : macros->entries()) {
    const auto* name = dynamic_cast<const NS::String*>(key.get());
    if (name == nullptr) {
      *problem = "preprocessorMacros: a key is not an NS::String";
      return false;
    }
    if (const auto* text = dynamic_cast<const NS::String*>(value.get())) {
      source.macros.emplace_back(name->str(), text->str());
    } else if (const auto* number = dynamic_cast<const NS::Number*>(value.get())) {
      source.macros.emplace_back(name->str(), number->stringValue()->str());
    } else {
      *problem = "preprocessorMacros: the value of '" + name->str() +
                 "' is neither an NS::String nor an NS::Number";
      return false;
    }
  }
  std::sort(source.macros.begin(), source.macros.end());
  return true;
}

// Runs the library's static registrars under a capture; nullptr with `problem` set on failure.
std::shared_ptr<const LoadedKernels> load(const std::string& path, std::string* problem) {
  metalsim::engine::KernelCapture capture;
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    const char* why = dlerror();
    *problem = std::string("cannot load the compiled kernels: ") + (why ? why : path) +
               " (a program that compiles kernels at run time is linked with "
               "-Wl,--export-dynamic: linking metalsim::host adds it)";
    return nullptr;
  }
  if (!capture.duplicates().empty()) {
    for (const std::string& d : capture.duplicates()) *problem += d + "\n";
    return nullptr;
  }
  auto loaded = std::make_shared<LoadedKernels>();
  loaded->path = path;
  loaded->kernels = capture.kernels();
  return loaded;
}

// One load per shared object per process: dlopen of a path already open would return the same
// handle without running the registrars again. (The cache gives each state of a source's
// headers a shared object of its own name, so an edited header loads anew.)
std::shared_ptr<const LoadedKernels> compile_and_load(const RuntimeSource& source,
                                                      std::string* problem) {
  static std::mutex mutex;
  static auto* loaded = new std::map<std::string, std::shared_ptr<const LoadedKernels>>;
  std::lock_guard lock(mutex);
  metalsim::host::CompiledLibrary compiled = metalsim::host::compile_runtime_source(source);
  if (compiled.path.empty()) {
    *problem = compiled.error;
    return nullptr;
  }
  if (auto it = loaded->find(compiled.path); it != loaded->end()) return it->second;
  auto kernels = load(compiled.path, problem);
  if (kernels != nullptr) (*loaded)[compiled.path] = kernels;
  return kernels;
}

// The options into `request`, then compile and load; nullptr with `error` set on failure.
std::shared_ptr<const LoadedKernels> build_library(RuntimeSource request,
                                                   const CompileOptions* options,
                                                   NS::Error** error) {
  std::string problem;
  if (options != nullptr) {
    request.fast_math = options->mathMode() != MathModeSafe;
    request.include_dirs = options->includeDirectories();
    if (!macro_list(options->preprocessorMacros(), request, &problem)) {
      fail(error, LibraryErrorCompileFailure, problem);
      return nullptr;
    }
  }
  auto kernels = compile_and_load(request, &problem);
  if (kernels == nullptr) fail(error, LibraryErrorCompileFailure, problem);
  return kernels;
}

}  // namespace

Library* Device::newLibrary(const NS::String* source, const CompileOptions* options,
                            NS::Error** error) {
  if (source == nullptr) {
    fail(error, LibraryErrorCompileFailure, "newLibrary: the source is null");
    return nullptr;
  }
  // Metal names a source string "program_source" in its errors.
  auto kernels = build_library({source->str(), "program_source", {}, true, {}}, options, error);
  return kernels != nullptr ? new Library(std::move(kernels)) : nullptr;
}

Library* Device::newLibrary(const NS::URL* url, NS::Error** error) {
  return newLibrary(url, nullptr, error);
}

Library* Device::newLibrary(const NS::URL* url, const CompileOptions* options, NS::Error** error) {
  const std::string path = url != nullptr ? url->fileSystemRepresentation() : "";
  std::optional<std::string> text = metalsim::host::read_file_text(path);
  if (!text) {
    fail(error, LibraryErrorFileNotFound, "newLibrary: cannot read '" + path + "'");
    return nullptr;
  }
  // The source keeps its file's name: errors, #line directives and reports name the file.
  auto kernels = build_library({std::move(*text), path, {}, true, {}}, options, error);
  return kernels != nullptr ? new Library(std::move(kernels)) : nullptr;
}

}  // namespace MTL
