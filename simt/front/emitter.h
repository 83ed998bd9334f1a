#pragma once
// Turns the rewritten token list back into C++ text. Every token lands on the line the
// compiler believes is its .metal line: blank lines when that is a few lines ahead, a #line
// directive otherwise (after generated blocks, across included files, going backwards).
#include <string>
#include <vector>

#include "simt/front/lexer.h"

namespace metalsim::front {

class Emitter {
 public:
  explicit Emitter(const std::vector<std::string>& files) : files_(files) {}

  void emit(const Tokens& t);
  void raw_line(const std::string& text);  // generated text outside any mapping
  // A #line so the next emitted text maps to `line` of `file`.
  void line_directive(int file, int line);
  std::string take() { return std::move(out_); }

 private:
  void sync(int file, int line);
  void newline();

  const std::vector<std::string>& files_;
  std::string out_;
  int file_ = -1;  // what the compiler believes, -1: unknown
  int line_ = 0;
  bool at_line_start_ = true;
  const Token* prev_ = nullptr;
};

// `s` as a C string literal, quotes and backslashes escaped: file names, names in reflection.
std::string c_string(const std::string& s);

}  // namespace metalsim::front
