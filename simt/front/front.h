#pragma once
// The front: a .metal file in, a C++ translation unit out (the kernels' code with #line
// directives, their entry structs and their reflection). Quoted #includes are inlined, so
// MSL in local headers (MLX's kernels/*.h) is rewritten too; <metal_*> includes stay.
#include <string>
#include <string_view>
#include <vector>

#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"

namespace metalsim::front {

class Front {
 public:
  explicit Front(std::vector<std::string> include_dirs = {})
      : include_dirs_(std::move(include_dirs)) {}

  // Throws FrontError; format_error turns it into `file:LINE: error: message`.
  std::string translate_file(const std::string& path);
  std::string translate_source(std::string_view text, const std::string& path);

  std::string format_error(const FrontError& e) const;
  const RewriteContext& context() const { return ctx_; }
  // Every file read (the .metal file and the headers it included), for a depfile; a name that
  // only a #line directive gave is in context().files, not here: no file of that name was read.
  const std::vector<std::string>& files() const { return read_; }

 private:
  Tokens load(std::string_view text, const std::string& path, int depth);
  void rewrite_directives(Tokens& t);
  std::string resolve_include(const std::string& name, const std::string& from) const;

  std::vector<std::string> include_dirs_;
  std::vector<std::string> once_;  // headers with #pragma once already inlined
  std::vector<std::string> read_;  // files()
  RewriteContext ctx_;
};

// Applies the rules that make sense in a #define body; returns the rewritten body text.
std::string rewrite_macro_body(std::string_view body, int file, int line, RewriteContext& ctx);

}  // namespace metalsim::front
