#pragma once
// Whole files in and out, for runtime compilation (sources, headers, generated C++, the cache).
#include <optional>
#include <string>

namespace metalsim::host {

// The file's bytes, or nullopt when it cannot be read.
std::optional<std::string> read_file_text(const std::string& path);
// Replaces the file's contents; false when it cannot be written.
bool write_file_text(const std::string& path, const std::string& text);

}  // namespace metalsim::host
