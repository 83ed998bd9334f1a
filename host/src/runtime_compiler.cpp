#include "runtime_compiler.h"

#include <filesystem>
#include <sstream>

#include "content_hash.h"
#include "file_text.h"
#include "kernel_cache.h"
#include "metalsim/kernel_toolchain.h"
#include "run_process.h"
#include "runtime_toolchain.h"
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

std::vector<std::string> compile_command(const RuntimeToolchain& toolchain,
                                         const RuntimeSource& source, const std::string& cpp,
                                         const std::string& library) {
  std::vector<std::string> argv{toolchain.compiler};
  argv.insert(argv.end(), toolchain.flags.begin(), toolchain.flags.end());
  for (const std::string& f : math_mode_flags(source.fast_math)) argv.push_back(f);
  for (const auto& [name, value] : source.macros) argv.push_back("-D" + name + "=" + value);
  for (const std::string& d : source.include_dirs) argv.push_back("-I" + d);
  // Kernel code resolves the engine's functions against the program that loads it (linked
  // with --export-dynamic, metalsim::host's usage requirement); its own functions bind to its
  // own definitions, so an inline function the program also has stays this library's build.
  argv.insert(argv.end(), {"-shared", "-Wl,-Bsymbolic-functions", "-MMD", "-MF", cpp + ".d", "-o",
                           library, cpp});
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

// The inputs the cache entry depends on: the headers the front inlined and those the compiler
// included, minus the compile's own files.
std::vector<std::string> compile_inputs(const std::vector<std::string>& headers,
                                        const std::string& depfile, const std::string& work) {
  std::vector<std::string> inputs;
  for (const std::string& f : headers)
    inputs.push_back(fs::absolute(f).lexically_normal().string());
  for (const std::string& f : read_depfile(depfile))
    if (f.rfind(work, 0) != 0) inputs.push_back(fs::absolute(f).lexically_normal().string());
  return inputs;
}

CompiledLibrary build(const RuntimeSource& source, const KernelCache& cache, CompiledLibrary out) {
  std::vector<std::string> headers;
  const std::string code = translate(source, headers, &out.error);
  if (code.empty()) return out;
  const std::string work = cache.make_work_dir(&out.error);
  if (work.empty()) return out;
  const std::string cpp = work + "/" + fs::path(source.name).filename().string() + ".cpp";
  const std::string library = work + "/" + out.key + ".so";
  if (!write_file_text(cpp, code)) {
    out.error = "cannot write " + cpp + " (the kernel cache)";
    return out;
  }
  const ProcessResult result =
      run_process(compile_command(runtime_toolchain(), source, cpp, library));
  if (result.exit_status != 0) {
    const std::string kept = cache.dir() + "/failed-" + out.key + ".cpp";
    std::error_code ec;
    fs::rename(cpp, kept, ec);
    out.error = diagnostics(result, kept);
  } else {
    out.path = cache.store(out.key, library, compile_inputs(headers, cpp + ".d", work), &out.error);
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  if (!out.path.empty()) cache.evict(KernelCache::max_bytes(), out.key);
  return out;
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

CompiledLibrary compile_runtime_source(const RuntimeSource& source) {
  CompiledLibrary out;
  if (const std::string& problem = runtime_toolchain().problem; !problem.empty()) {
    out.error = source.name + ": error: cannot compile at run time: " + problem;
    return out;
  }
  out.key = runtime_cache_key(source);
  const KernelCache cache(KernelCache::default_dir());
  out.path = cache.lookup(out.key);
  out.from_cache = !out.path.empty();
  return out.from_cache ? out : build(source, cache, std::move(out));
}

}  // namespace metalsim::host
