#pragma once
// Runs the front on a snippet: the generated C++ (or the error) and the reflection.
#include <gtest/gtest.h>

#include <string>

#include "simt/front/front.h"

namespace metalsim::front::testing {

struct Translation {
  std::string code;
  std::string error;  // `file:LINE: error: ...`, empty on success
  RewriteContext ctx;
};

inline Translation translate(const std::string& source, const std::string& path = "t.metal") {
  Front front;
  Translation r;
  try {
    r.code = front.translate_source(source, path);
  } catch (const FrontError& e) {
    r.error = front.format_error(e);
  }
  r.ctx = front.context();
  return r;
}

// The generated code with the prelude (up to the first #line), the epilogue and #line directives
// left out, spaces collapsed.
inline std::string body(const std::string& code) {
  std::string out;
  size_t i = code.find("\n#line");  // the prelude ends at the first #line
  i = i == std::string::npos ? 0 : i + 1;
  while (i < code.size()) {
    size_t e = code.find('\n', i);
    if (e == std::string::npos) e = code.size();
    std::string line = code.substr(i, e - i);
    i = e + 1;
    if (line.rfind("static std::span<const ::metalsim::abi::FunctionConstantInfo> "
                   "ms_function_constants()",
                   0) == 0)
      break;
    if (line.rfind("#line", 0) == 0 || line.rfind("// Generated", 0) == 0 ||
        line.rfind("#include \"simt", 0) == 0 ||
        line.find("ms_function_constants()") != std::string::npos) {
      continue;
    }
    for (char c : line) {
      if (c == ' ' && (out.empty() || out.back() == ' ' || out.back() == '\n')) continue;
      out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace metalsim::front::testing
