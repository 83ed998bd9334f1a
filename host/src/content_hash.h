#pragma once
// A 128-bit FNV-1a hash of a sequence of fields, as hex: the names of runtime-compiled libraries
// in the kernel cache (kernel_cache.h) and the fingerprints of their inputs. Not cryptographic:
// the cache is the user's own, and it checks every input against its fingerprint before use.
#include <string>
#include <string_view>

namespace metalsim::host {

class ContentHash {
 public:
  // Each field is hashed with its length first, so ("ab", "c") and ("a", "bc") differ.
  ContentHash& add(std::string_view field);
  std::string hex() const;

 private:
  __extension__ using Word = unsigned __int128;
  void mix(const void* bytes, size_t size);
  Word state_ = (Word{0x6c62272e07bb0142ULL} << 64) | 0x62b821756295c58dULL;  // FNV offset basis
};

// The fingerprint of one file's bytes; empty when it cannot be read.
std::string hash_file(const std::string& path);

}  // namespace metalsim::host
