#pragma once
// The cache of runtime-compiled kernel libraries: one entry per key (a hash of the source, the
// options and the toolchain, and what the entry is: the front's translation of the source, the
// names compile of newLibrary, or one function's compile; runtime_compiler.cpp): a file (C++ or
// a shared object) and the fingerprints of every file the compile read (headers the front inlined,
// headers the compiler included). An entry is used only while every one of those files still has
// its fingerprint, so an edited header recompiles. Entries are written under a temporary name and
// renamed into place, so processes sharing the cache never see half an entry.
//
// Where: $XDG_CACHE_HOME/metalsim, else $HOME/.cache/metalsim.
//
// Size: after each store the cache is trimmed to its limit ($METALSIM_CACHE_MAX_MB, default
// 1024 MiB; an entry is about 250 KB), least recently used entries first (a lookup that finds an
// entry marks it used). A process that has an evicted library loaded keeps its mapping.
#include <cstdint>
#include <string>
#include <vector>

namespace metalsim::host {

class KernelCache {
 public:
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}
  static std::string default_dir();
  const std::string& dir() const { return dir_; }

  // The entry's shared object when its inputs are unchanged, else "".
  std::string lookup(const std::string& key) const;
  // A new empty directory inside the cache for one compile's files; the caller removes it.
  // Empty, with `error` set, when the cache cannot be written.
  std::string make_work_dir(std::string* error) const;
  // Moves `library` (built in a work directory) into the cache under `key`, recording the
  // fingerprints of `inputs`; returns the entry's file, or "" with `error` set. The file keeps
  // `extension` (a shared object, or ".cpp": the front's translation of a source).
  std::string store(const std::string& key, const std::string& library,
                    const std::vector<std::string>& inputs, std::string* error,
                    const std::string& extension = ".so") const;
  // The inputs the entry of `key` records (whether or not they are unchanged).
  std::vector<std::string> inputs(const std::string& key) const;
  // Removes the least recently used entries (and kept sources of failed compiles, and work
  // directories a killed process left a day ago) until the cache holds at most `max_bytes`;
  // never the entry of `keep`. Returns the number of entries removed.
  size_t evict(uint64_t max_bytes, const std::string& keep) const;
  // $METALSIM_CACHE_MAX_MB in bytes, else 1 GiB.
  static uint64_t max_bytes();

 private:
  std::string entry(const std::string& key, const char* suffix) const;
  std::string dir_;
};

// The files a make-style dependency file (the compiler's -MD output) lists as prerequisites.
std::vector<std::string> read_depfile(const std::string& path);

}  // namespace metalsim::host
