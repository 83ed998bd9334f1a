#include "runtime_toolchain.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "content_hash.h"
#include "metalsim/installed_toolchain.h"
#include "metalsim/kernel_toolchain.h"

// Defined (weakly) in a program built against the installed CMake package: the package's prefix
// when the program was configured (cmake/metalsimConfig.cmake.in). A user's program is not under
// the prefix, so this is how its runtime compiles find the installed files, not the build tree.
extern "C" __attribute__((weak)) const char* metalsim_package_prefix();

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

// Where an installed metalsim is: the nearest folder above `binary` that holds the installed MSL
// headers (<prefix>/bin/metalsim is in a folder one below it, the Python module,
// <prefix>/lib/python3.X/dist-packages/metalsim/, in one four below). Looked
// for before the build tree, so that an installed program or module never compiles with the
// build tree's files (which it was linked in) and still works after the tree is gone or the
// prefix moved.
std::optional<std::string> prefix_above(const std::filesystem::path& binary) {
  constexpr int kLevels = 5;  // the binary's folder and four above it
  std::filesystem::path dir = binary.parent_path();
  for (int level = 0; level < kLevels && !dir.empty(); ++level, dir = dir.parent_path()) {
    if (exists(at_prefix(installed_toolchain::kIncludeDirs[0], dir.string()) + "/metal_stdlib"))
      return dir.string();
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

// The binaries this code is in: the program (/proc/self/exe) and, when metalsim is inside a
// shared object (the Python module), that object (dladdr of a function of this file).
std::vector<std::filesystem::path> own_binaries() {
  std::vector<std::filesystem::path> binaries;
  std::error_code ec;
  if (auto exe = std::filesystem::canonical("/proc/self/exe", ec); !ec) binaries.push_back(exe);
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&runtime_toolchain), &info) != 0 &&
      info.dli_fname != nullptr && *info.dli_fname != 0)
    if (auto so = std::filesystem::canonical(info.dli_fname, ec); !ec) binaries.push_back(so);
  return binaries;
}

std::optional<RuntimeToolchain> installed_around_binary() {
  for (const std::filesystem::path& binary : own_binaries())
    if (auto prefix = prefix_above(binary)) {
      RuntimeToolchain t = install_prefix(*prefix);
      t.origin += " (where " + binary.string() + " is installed)";
      return t;
    }
  return std::nullopt;
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
  } else if (auto installed = installed_around_binary()) {
    t = *std::move(installed);
  } else if (const char* package = metalsim_package_prefix ? metalsim_package_prefix() : nullptr) {
    t = install_prefix(package);
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
