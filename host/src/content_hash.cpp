#include "content_hash.h"

#include <cstdint>

#include "file_text.h"

namespace metalsim::host {

ContentHash& ContentHash::add(std::string_view field) {
  const uint64_t size = field.size();
  mix(&size, sizeof size);
  mix(field.data(), field.size());
  return *this;
}

void ContentHash::mix(const void* bytes, size_t size) {
  const Word prime = (Word{1} << 88) | 0x13B;  // the 128-bit FNV prime
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < size; ++i) {
    state_ ^= p[i];
    state_ *= prime;
  }
}

std::string ContentHash::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(32, '0');
  Word v = state_;
  for (int i = 31; i >= 0; --i, v >>= 4) text[i] = kDigits[static_cast<unsigned>(v & 0xF)];
  return text;
}

std::string hash_file(const std::string& path) {
  std::optional<std::string> bytes = read_file_text(path);
  return bytes ? ContentHash().add(*bytes).hex() : std::string();
}

}  // namespace metalsim::host
