#include "runtime_toolchain.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string_view>

#include "content_hash.h"
#include "metalsim/installed_toolchain.h"
#include "metalsim/kernel_toolchain.h"

namespace metalsim::host {
namespace {

constexpr std::string_view kPluginFlag = "-fpass-plugin=";

bool exists(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0;
}

std::string stamp(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return path + " (missing)";
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// "@PREFIX@" in the installed flags stands for the prefix.
std::string at_prefix(std::string_view text, const std::string& prefix) {
  constexpr std::string_view kPlaceholder = "@PREFIX@";
  std::string out(text);
  for (size_t at = out.find(kPlaceholder); at != std::string::npos; at = out.find(kPlaceholder))
    out.replace(at, kPlaceholder.size(), prefix);
  return out;
}

RuntimeToolchain build_tree() {
  RuntimeToolchain t;
  t.compiler = kernel_toolchain::kCompiler;
  for (std::string_view f : kernel_toolchain::kFlags) t.flags.emplace_back(f);
  for (std::string_view d : kernel_toolchain::kIncludeDirs)
    t.flags.push_back("-I" + std::string(d));
  t.origin = "the build tree (" + std::string(kernel_toolchain::kFlagsFile) + ")";
  return t;
}

RuntimeToolchain install_prefix(const std::string& prefix) {
  RuntimeToolchain t;
  t.compiler = kernel_toolchain::kCompiler;
  for (std::string_view f : installed_toolchain::kFlags) t.flags.push_back(at_prefix(f, prefix));
  for (std::string_view d : installed_toolchain::kIncludeDirs)
    t.flags.push_back("-I" + at_prefix(d, prefix));
  t.origin = "the install prefix " + prefix;
  return t;
}

// Names the first file or directory the compile needs that is not there.
std::string find_problem(const RuntimeToolchain& t) {
  if (!exists(t.compiler))
    return "the kernel compiler " + t.compiler + " is not there (install clang-19)";
  for (const std::string& f : t.flags) {
    std::string path;
    if (f.rfind("-I", 0) == 0) path = f.substr(2);
    if (f.rfind(kPluginFlag, 0) == 0) path = f.substr(kPluginFlag.size());
    if (!path.empty() && !exists(path))
      return path + " is not there: metalsim was looked for in " + t.origin +
             " (set METALSIM_PREFIX to where it is installed)";
  }
  return {};
}

std::string fingerprint(const RuntimeToolchain& t) {
  ContentHash h;
  h.add(installed_toolchain::kVersion).add(stamp(t.compiler));
  for (const std::string& f : t.flags) {
    h.add(f);
    if (f.rfind(kPluginFlag, 0) == 0) h.add(stamp(f.substr(kPluginFlag.size())));
  }
  return h.hex();
}

RuntimeToolchain find() {
  RuntimeToolchain t;
  if (const char* prefix = std::getenv("METALSIM_PREFIX"); prefix != nullptr && *prefix != 0) {
    t = install_prefix(prefix);
  } else if (exists(std::string(kernel_toolchain::kFlagsFile))) {
    t = build_tree();
  } else {
    t = install_prefix(std::string(installed_toolchain::kPrefix));
  }
  t.problem = find_problem(t);
  t.fingerprint = fingerprint(t);
  return t;
}

}  // namespace

const RuntimeToolchain& runtime_toolchain() {
  static const RuntimeToolchain toolchain = find();
  return toolchain;
}

}  // namespace metalsim::host
