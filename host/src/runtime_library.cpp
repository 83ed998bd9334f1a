// MTL::Device::newLibrary with source or a .metal file (issue 13): check the source and learn its
// kernels' names (runtime_compiler.h); each function is compiled when first asked for
// (LoadedKernels::function), its shared object loaded and the kernel it registers
// (engine::KernelCapture) kept as the library's own.
#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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

// Why a compiled shared object at `path` could not be loaded, or its names not found.
std::string load_problem(const std::string& path, const char* what) {
  const char* why = dlerror();
  return std::string(what) + ": " + (why ? why : path) +
         " (a program that compiles kernels at run time is linked with "
         "-Wl,--export-dynamic: linking metalsim::host adds it)";
}

// The kernels a function's shared object registers: its static registrars run under a capture.
// Empty with `problem` set on failure.
std::vector<const metalsim::abi::KernelInfo*> load(const std::string& path, std::string* problem) {
  metalsim::engine::KernelCapture capture;
  if (dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
    *problem = load_problem(path, "cannot load the compiled kernels");
    return {};
  }
  for (const std::string& d : capture.duplicates()) *problem += d + "\n";
  return problem->empty() ? capture.kernels() : std::vector<const metalsim::abi::KernelInfo*>{};
}

// The host names a names compile's shared object lists (metalsim_kernel_names,
// simt/engine/generated_code.h), and into `constants` the function constants its file declares
// (metalsim_function_constants; left unset when the object does not say); `problem` set on
// failure. Loaded under a capture, which stays empty: nothing reaches the process's registry.
std::vector<std::string> load_names(const std::string& path,
                                    std::optional<metalsim::host::DeclaredConstants>& constants,
                                    std::string* problem) {
  metalsim::engine::KernelCapture capture;
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  using NamesFn = const char* const* (*)(size_t*);
  auto names_fn = handle != nullptr
                      ? reinterpret_cast<NamesFn>(dlsym(handle, "metalsim_kernel_names"))
                      : nullptr;
  if (names_fn == nullptr) {
    *problem = load_problem(path, "cannot load the checked library");
    return {};
  }
  using ConstantsFn = const metalsim::abi::FunctionConstantInfo* (*)(size_t*);
  if (auto constants_fn =
          reinterpret_cast<ConstantsFn>(dlsym(handle, "metalsim_function_constants"))) {
    size_t count = 0;
    const metalsim::abi::FunctionConstantInfo* table = constants_fn(&count);
    constants.emplace();
    for (size_t i = 0; i < count; ++i) constants->add(table[i]);
  }
  size_t count = 0;
  const char* const* names = names_fn(&count);
  return {names, names + count};
}

// Each name given to two kernels, as loading a library with both would report it.
std::string duplicate_names(const std::vector<std::string>& names, const std::string& source) {
  std::string problem;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i] == sorted[i - 1] && (i == 1 || sorted[i - 2] != sorted[i]))
      problem += source + ": error: kernel '" + sorted[i] + "' is defined twice\n";
  return problem;
}

// One library per state of a source per process (the names compile's shared object is named by
// the state of the source's headers, so an edited header gives a new one): Libraries of one
// source share the functions compiled for it.
std::shared_ptr<const LoadedKernels> compile_and_load(const RuntimeSource& source,
                                                      std::string* problem) {
  static std::mutex mutex;
  static auto* loaded = new std::map<std::string, std::shared_ptr<const LoadedKernels>>;
  std::lock_guard lock(mutex);
  metalsim::host::CompiledLibrary checked = metalsim::host::check_runtime_source(source);
  if (checked.path.empty()) {
    *problem = checked.error;
    return nullptr;
  }
  if (auto it = loaded->find(checked.path); it != loaded->end()) return it->second;
  std::optional<metalsim::host::DeclaredConstants> constants;
  std::vector<std::string> names = load_names(checked.path, constants, problem);
  if (problem->empty()) *problem = duplicate_names(names, source.name);
  if (!problem->empty()) return nullptr;
  auto library =
      std::make_shared<const LoadedKernels>(source, std::move(names), std::move(constants));
  (*loaded)[checked.path] = library;
  return library;
}

}  // namespace
}  // namespace MTL

namespace metalsim::host {

const abi::KernelInfo* LoadedKernels::function(const std::string& name, std::string* error,
                                               const std::string& constants) const {
  Compiled* compiled = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = functions_.find({name, constants});
    if (it == functions_.end()) {
      if (std::find(names_.begin(), names_.end(), name) == names_.end()) return nullptr;
      it = functions_.emplace(std::pair{name, constants}, std::make_unique<Compiled>()).first;
    }
    compiled = it->second.get();  // never moves: the map holds it by pointer
  }
  std::call_once(compiled->once, [&] { compile(name, constants, *compiled); });
  *error = compiled->error;
  return compiled->kernel;
}

void LoadedKernels::compile(const std::string& name, const std::string& constants,
                            Compiled& compiled) const {
  // One load per shared object per process: dlopen of a path already open would return the
  // same handle without running the registrars again.
  static std::mutex loads_mutex;
  static auto* loads = new std::map<std::string, std::vector<const abi::KernelInfo*>>;
  const CompiledLibrary built = compile_runtime_function(source_, name, constants);
  if (built.path.empty()) {
    compiled.error = built.error;
    return;
  }
  std::lock_guard loads_lock(loads_mutex);
  auto it = loads->find(built.path);
  if (it == loads->end()) {
    std::vector<const abi::KernelInfo*> kernels = MTL::load(built.path, &compiled.error);
    if (compiled.error.empty()) it = loads->emplace(built.path, std::move(kernels)).first;
  }
  if (it != loads->end())
    for (const abi::KernelInfo* k : it->second)
      if (k->name == name) compiled.kernel = k;
  if (compiled.kernel == nullptr && compiled.error.empty())
    compiled.error = source_.name + ": error: the compile of '" + name +
                     "' registered no kernel of that name (" + built.path + ")";
}

}  // namespace metalsim::host

namespace MTL {
namespace {

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
