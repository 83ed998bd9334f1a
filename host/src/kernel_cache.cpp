#include "kernel_cache.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "content_hash.h"
#include "file_text.h"

namespace metalsim::host {
namespace fs = std::filesystem;

std::string KernelCache::default_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
    return std::string(xdg) + "/metalsim";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/tmp") + "/.cache/metalsim";
}

std::string KernelCache::entry(const std::string& key, const char* suffix) const {
  return dir_ + "/" + key + suffix;
}

// The inputs file names the entry's shared object on its first line, then holds one
// "<fingerprint> <path>" line per input. Each state of the inputs has a shared object of its
// own name: a process that loaded one state loads another by another name (dlopen of a name
// already open returns the library loaded first).
std::string KernelCache::lookup(const std::string& key) const {
  std::ifstream inputs(entry(key, ".inputs"));
  std::string library, line;
  if (!std::getline(inputs, library) || library.empty()) return {};
  while (std::getline(inputs, line)) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || hash_file(line.substr(space + 1)) != line.substr(0, space))
      return {};
  }
  library = dir_ + "/" + library;
  return access(library.c_str(), R_OK) == 0 ? library : std::string();
}

std::string KernelCache::make_work_dir(std::string* error) const {
  static std::atomic<unsigned> serial{0};
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string dir = dir_ + "/work-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  fs::remove_all(dir, ec);
  if (!fs::create_directory(dir, ec)) {
    *error = "cannot create " + dir + " (the kernel cache): " + ec.message();
    return {};
  }
  return dir;
}

std::string KernelCache::store(const std::string& key, const std::string& library,
                               const std::vector<std::string>& inputs, std::string* error) const {
  std::string lines;
  for (const std::string& input : inputs) {
    std::string print = hash_file(input);
    if (print.empty()) {
      *error = "cannot read " + input + ", an input of the compile";
      return {};
    }
    lines += print + ' ' + input + '\n';
  }
  const std::string name = key + "-" + ContentHash().add(lines).hex().substr(0, 16) + ".so";
  std::string previous;
  std::getline(std::ifstream(entry(key, ".inputs")), previous);
  // The shared object first: an inputs file only ever names a complete library.
  const std::string so = dir_ + "/" + name;
  const std::string inputs_tmp = library + ".inputs";
  if (!write_file_text(inputs_tmp, name + '\n' + lines) ||
      std::rename(library.c_str(), so.c_str()) != 0 ||
      std::rename(inputs_tmp.c_str(), entry(key, ".inputs").c_str()) != 0) {
    *error = "cannot write " + so + " (the kernel cache): " + std::strerror(errno);
    return {};
  }
  // The earlier state's library (a process that has it loaded keeps its mapping).
  if (!previous.empty() && previous != name) std::remove((dir_ + "/" + previous).c_str());
  return so;
}

// Make syntax: "target: a b \<newline> c", a space inside a name escaped as "\ ".
std::vector<std::string> read_depfile(const std::string& path) {
  const std::string text = read_file_text(path).value_or("");
  const size_t colon = text.find(": ");
  std::vector<std::string> files;
  if (colon == std::string::npos) return files;
  std::string name;
  auto flush = [&] {
    if (!name.empty()) files.push_back(name);
    name.clear();
  };
  for (size_t i = colon + 2; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      name += ' ';
      ++i;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      flush();
      ++i;
    } else if (c == ' ' || c == '\n' || c == '\t') {
      flush();
    } else {
      name += c;
    }
  }
  flush();
  return files;
}

}  // namespace metalsim::host
