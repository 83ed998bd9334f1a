#include "kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
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
  if (access(library.c_str(), R_OK) != 0) return {};
  // Marks the entry used (eviction removes the least recently used first).
  utimensat(AT_FDCWD, entry(key, ".inputs").c_str(), nullptr, 0);
  return library;
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
                               const std::vector<std::string>& inputs, std::string* error,
                               const std::string& extension) const {
  std::string lines;
  for (const std::string& input : inputs) {
    std::string print = hash_file(input);
    if (print.empty()) {
      *error = "cannot read " + input + ", an input of the compile";
      return {};
    }
    lines += print + ' ' + input + '\n';
  }
  const std::string name = key + "-" + ContentHash().add(lines).hex().substr(0, 16) + extension;
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

std::vector<std::string> KernelCache::inputs(const std::string& key) const {
  std::ifstream file(entry(key, ".inputs"));
  std::string line;
  std::vector<std::string> paths;
  if (!std::getline(file, line)) return paths;  // the entry's own file
  while (std::getline(file, line))
    if (const size_t space = line.find(' '); space != std::string::npos)
      paths.push_back(line.substr(space + 1));
  return paths;
}

namespace {

// One removable unit of the cache: an entry (its inputs file and its file), a failed
// compile's kept source, or a work directory.
struct CacheItem {
  std::vector<fs::path> files;
  uint64_t bytes = 0;
  fs::file_time_type used;
  bool kept = false;  // the entry just stored, or a work directory in use
};

uint64_t size_of(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    uint64_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(path, ec))
      if (e.is_regular_file(ec)) total += e.file_size(ec);
    return total;
  }
  const uintmax_t n = fs::file_size(path, ec);
  return ec ? 0 : n;
}

// Entries by their inputs file (which names the entry's file); the rest one file each.
std::vector<CacheItem> list_items(const fs::path& dir, const std::string& keep) {
  std::vector<CacheItem> items;
  std::vector<fs::path> named;  // the files some inputs file names
  std::error_code ec;
  const auto stale = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const fs::path path = e.path();
    const std::string name = path.filename().string();
    CacheItem item{{path}, size_of(path), fs::last_write_time(path, ec), false};
    if (name.ends_with(".inputs")) {
      std::string library;
      std::getline(std::ifstream(path), library);
      if (!library.empty()) {
        item.files.push_back(dir / library);
        item.bytes += size_of(dir / library);
        named.push_back(dir / library);
      }
      item.kept = name == keep + ".inputs";
    } else if (name.rfind("work-", 0) == 0) {
      item.kept = item.used > stale;  // a compile may be running in it
    } else if (!name.starts_with("failed-") && !name.ends_with(".so") && !name.ends_with(".cpp")) {
      continue;  // not the cache's
    }
    items.push_back(std::move(item));
  }
  // An entry's file (a shared object or a translation) goes with its entry; one no entry names
  // is its own item.
  std::erase_if(items, [&](const CacheItem& i) {
    return i.files.size() == 1 && !i.files[0].filename().string().starts_with("failed-") &&
           std::find(named.begin(), named.end(), i.files[0]) != named.end();
  });
  return items;
}

}  // namespace

size_t KernelCache::evict(uint64_t max_bytes, const std::string& keep) const {
  std::vector<CacheItem> items = list_items(dir_, keep);
  uint64_t total = 0;
  for (const CacheItem& i : items) total += i.bytes;
  if (total <= max_bytes) return 0;
  std::sort(items.begin(), items.end(),
            [](const CacheItem& a, const CacheItem& b) { return a.used < b.used; });
  size_t removed = 0;
  for (const CacheItem& item : items) {
    if (total <= max_bytes) break;
    if (item.kept) continue;
    std::error_code ec;
    for (const fs::path& f : item.files) fs::remove_all(f, ec);  // the inputs file first
    total -= std::min(total, item.bytes);
    ++removed;
  }
  return removed;
}

uint64_t KernelCache::max_bytes() {
  const char* mb = std::getenv("METALSIM_CACHE_MAX_MB");
  char* end = nullptr;
  const unsigned long long n = mb != nullptr ? std::strtoull(mb, &end, 10) : 0;
  if (mb == nullptr || end == mb || *end != '\0') return uint64_t(1024) << 20;
  return uint64_t(n) << 20;
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
