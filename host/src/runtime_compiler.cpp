#include "runtime_compiler.h"

#include <filesystem>
#include <sstream>

#include "content_hash.h"
#include "file_text.h"
#include "kernel_cache.h"
#include "metalsim/kernel_toolchain.h"
#include "run_process.h"
#include "runtime_toolchain.h"
#include "simt/front/emitter.h"
#include "simt/front/front.h"

namespace metalsim::host {
namespace {
namespace fs = std::filesystem;

// The front's C++ for `source`; "" with `error` set to `file:line: error: message`.
std::string translate(const RuntimeSource& source, std::vector<std::string>& headers,
                      std::string* error) {
  front::Front front(source.include_dirs);
  try {
    std::string code = front.translate_source(source.text, source.name);
    // files()[0] is the source itself, which the cache key holds already.
    headers.assign(front.files().begin() + 1, front.files().end());
    return code;
  } catch (const front::FrontError& e) {
    *error = front.format_error(e);
  } catch (const std::exception& e) {
    *error = source.name + ": error: " + e.what();
  }
  return {};
}

// What a compile makes of the translation: the names compile (newLibrary's check) or one
// function's shared object.
struct CompileKind {
  bool names = false;
  std::string function;  // the host name to register, when !names
  // A specialised function's METALSIM_FUNCTION_CONSTANT_VALUES (function_constant_values), or
  // "" for one that reads its function constants at run time.
  std::string constants;
};

// The kernel flags for `kind`: a function's compile takes them all; the names compile parses and
// type-checks the same code but optimises nothing, emits no debug information and runs no pass
// plugin (it instantiates no kernel, so there is nothing for them to do).
std::vector<std::string> kernel_flags(const RuntimeToolchain& toolchain, const CompileKind& kind) {
  if (!kind.names) return toolchain.flags;
  std::vector<std::string> flags;
  for (const std::string& f : toolchain.flags) {
    if (f.rfind("-fpass-plugin=", 0) == 0 || f.rfind("-g", 0) == 0) continue;
    flags.push_back(f.rfind("-O", 0) == 0 ? "-O0" : f);
  }
  return flags;
}

std::vector<std::string> compile_command(const RuntimeToolchain& toolchain,
                                         const RuntimeSource& source, const CompileKind& kind,
                                         const std::string& cpp, const std::string& library,
                                         const std::string& depfile) {
  std::vector<std::string> argv{toolchain.compiler};
  for (const std::string& f : kernel_flags(toolchain, kind)) argv.push_back(f);
  for (const std::string& f : math_mode_flags(source.fast_math)) argv.push_back(f);
  for (const auto& [name, value] : source.macros) argv.push_back("-D" + name + "=" + value);
  for (const std::string& d : source.include_dirs) argv.push_back("-I" + d);
  argv.push_back(kind.names ? "-DMETALSIM_KERNEL_NAMES"
                            : "-DMETALSIM_KERNEL_NAME=" + front::c_string(kind.function));
  if (!kind.constants.empty())
    argv.push_back("-DMETALSIM_FUNCTION_CONSTANT_VALUES=" + kind.constants);
  // Kernel code resolves the engine's functions against the program that loads it (linked
  // with --export-dynamic, metalsim::host's usage requirement); its own functions bind to its
  // own definitions, so an inline function the program also has stays this library's build.
  argv.insert(argv.end(),
              {"-shared", "-Wl,-Bsymbolic-functions", "-MMD", "-MF", depfile, "-o", library, cpp});
  return argv;
}

// The compiler's error lines (`file:line:col: error: ...`), or all it said when none reads so.
std::string diagnostics(const ProcessResult& result, const std::string& kept_cpp) {
  std::istringstream lines(result.output);
  std::string line, errors;
  while (std::getline(lines, line))
    if (line.find("error:") != std::string::npos) errors += line + "\n";
  if (errors.empty())
    errors = result.output + (result.failure.empty() ? "" : result.failure + "\n");
  return errors + "(the generated C++ is kept in " + kept_cpp + ")";
}

std::string normal(const std::string& f) { return fs::absolute(f).lexically_normal().string(); }

// The inputs a compile's cache entry depends on: the headers the front inlined and those the
// compiler included, minus the compile's own files (the work directory's, the translation).
std::vector<std::string> compile_inputs(const std::vector<std::string>& headers,
                                        const std::string& depfile, const std::string& work,
                                        const std::string& cpp) {
  std::vector<std::string> inputs;
  for (const std::string& f : headers) inputs.push_back(normal(f));
  for (const std::string& f : read_depfile(depfile))
    if (f.rfind(work, 0) != 0 && normal(f) != normal(cpp)) inputs.push_back(normal(f));
  return inputs;
}

std::string key_of(const RuntimeSource& source, std::string_view what, std::string_view name) {
  return ContentHash().add(runtime_cache_key(source)).add(what).add(name).hex();
}

// The front's translation of `source` in the cache (made when missing or out of date), and the
// headers the front inlined into it; "" with `error` set on failure.
std::string translation(const RuntimeSource& source, const KernelCache& cache,
                        std::vector<std::string>& headers, std::string* error) {
  const std::string key = key_of(source, "front", "");
  if (std::string cpp = cache.lookup(key); !cpp.empty()) {
    headers = cache.inputs(key);
    return cpp;
  }
  const std::string code = translate(source, headers, error);
  if (code.empty()) return {};
  const std::string work = cache.make_work_dir(error);
  if (work.empty()) return {};
  const std::string cpp = work + "/" + fs::path(source.name).filename().string() + ".cpp";
  std::string stored;
  if (!write_file_text(cpp, code)) {
    *error = "cannot write " + cpp + " (the kernel cache)";
  } else {
    std::vector<std::string> inputs;
    for (const std::string& f : headers) inputs.push_back(normal(f));
    stored = cache.store(key, cpp, inputs, error, ".cpp");
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return stored;
}

CompiledLibrary build(const RuntimeSource& source, const CompileKind& kind,
                      const KernelCache& cache, CompiledLibrary out) {
  std::vector<std::string> headers;
  const std::string cpp = translation(source, cache, headers, &out.error);
  if (cpp.empty()) return out;
  const std::string work = cache.make_work_dir(&out.error);
  if (work.empty()) return out;
  const std::string library = work + "/" + out.key + ".so";
  const std::string depfile = work + "/" + out.key + ".d";
  const ProcessResult result =
      run_process(compile_command(runtime_toolchain(), source, kind, cpp, library, depfile));
  if (result.exit_status != 0) {
    const std::string kept = cache.dir() + "/failed-" + out.key + ".cpp";
    std::error_code ec;
    fs::copy_file(cpp, kept, fs::copy_options::overwrite_existing, ec);
    out.error = diagnostics(result, kept);
  } else {
    out.path =
        cache.store(out.key, library, compile_inputs(headers, depfile, work, cpp), &out.error);
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  if (!out.path.empty()) cache.evict(KernelCache::max_bytes(), out.key);
  return out;
}

// The entry of `key`, built by a compile of `kind` when the cache has none.
CompiledLibrary find_or_build(const RuntimeSource& source, const CompileKind& kind,
                              std::string key) {
  CompiledLibrary out;
  if (const std::string& problem = runtime_toolchain().problem; !problem.empty()) {
    out.error = source.name + ": error: cannot compile at run time: " + problem;
    return out;
  }
  out.key = std::move(key);
  const KernelCache cache(KernelCache::default_dir());
  out.path = cache.lookup(out.key);
  out.from_cache = !out.path.empty();
  return out.from_cache ? out : build(source, kind, cache, std::move(out));
}

}  // namespace

// The build's own flags for Metal's relaxed and fast math (cmake/MetalsimMathMode.cmake), so a
// library compiled at run time rounds as one built by metalsim_add_metal_library(MATH_MODE fast).
std::vector<std::string> math_mode_flags(bool fast_math) {
  if (!fast_math) return {};
  std::vector<std::string> flags;
  for (std::string_view f : kernel_toolchain::kRelaxedMathFlags) flags.emplace_back(f);
  return flags;
}

std::string runtime_cache_key(const RuntimeSource& source) {
  ContentHash h;
  h.add(runtime_toolchain().fingerprint).add(source.name).add(source.text);
  h.add(source.fast_math ? "fast" : "safe");
  for (const std::string& f : math_mode_flags(source.fast_math)) h.add(f);
  for (const auto& [name, value] : source.macros) h.add(name).add(value);
  for (const std::string& d : source.include_dirs) h.add("-I").add(d);
  return h.hex();
}

CompiledLibrary check_runtime_source(const RuntimeSource& source) {
  return find_or_build(source, {.names = true, .function = {}, .constants = {}},
                       key_of(source, "names", ""));
}

std::string runtime_function_key(const RuntimeSource& source, const std::string& name,
                                 const std::string& constants) {
  return constants.empty()
             ? key_of(source, "function", name)
             : ContentHash().add(key_of(source, "specialised", name)).add(constants).hex();
}

CompiledLibrary compile_runtime_function(const RuntimeSource& source, const std::string& name,
                                         const std::string& constants) {
  return find_or_build(source, {.names = false, .function = name, .constants = constants},
                       runtime_function_key(source, name, constants));
}

std::string function_constant_values(const std::vector<std::vector<unsigned char>>& values) {
  std::string list;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].empty() || values[i].size() > 64) continue;
    list += "{" + std::to_string(i) + "U," + std::to_string(values[i].size()) + "U,{";
    for (size_t b = 0; b < values[i].size(); ++b)
      list += (b ? "," : "") + std::to_string(unsigned(values[i][b]));
    list += "}},";
  }
  return list + "{0xffffffffU,0U,{}}";
}

}  // namespace metalsim::host
