#include "simt/front/emitter.h"

namespace metalsim::front {
namespace {

constexpr int kMaxBlankLines = 8;

bool wordish(const Token& k) { return k.kind == TokKind::Ident || k.kind == TokKind::Number || k.kind == TokKind::Raw; }

}  // namespace

std::string c_string(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

void Emitter::newline() {
  out_ += '\n';
  ++line_;
  at_line_start_ = true;
  prev_ = nullptr;
}

void Emitter::line_directive(int file, int line) {
  if (!at_line_start_) newline();
  out_ += "#line " + std::to_string(line) + " " + c_string(files_.at(static_cast<size_t>(file))) + "\n";
  file_ = file;
  line_ = line;
  at_line_start_ = true;
  prev_ = nullptr;
}

void Emitter::sync(int file, int line) {
  if (file != file_ || line < line_ || line - line_ > kMaxBlankLines) {
    line_directive(file, line);
    return;
  }
  while (line_ < line) newline();
}

void Emitter::raw_line(const std::string& text) {
  if (!at_line_start_) newline();
  out_ += text;
  out_ += '\n';
  file_ = -1;
  at_line_start_ = true;
  prev_ = nullptr;
}

void Emitter::emit(const Tokens& t) {
  for (const Token& k : t) {
    if (k.kind == TokKind::Raw && k.block) {
      // Every generated line maps to the kernel's line: a debugger stepping into the entry
      // shows the kernel's signature, not whatever source follows it.
      size_t i = 0;
      while (i < k.text.size()) {
        size_t e = k.text.find('\n', i);
        if (e == std::string::npos) e = k.text.size();
        line_directive(k.file, k.line);
        out_.append(k.text, i, e - i);
        out_ += '\n';
        i = e + 1;
      }
      file_ = -1;  // resynchronise before the next token
      at_line_start_ = true;
      prev_ = nullptr;
      continue;
    }
    sync(k.file, k.line);
    if (k.kind == TokKind::Directive) {
      if (!at_line_start_) newline();
      out_ += k.text;
      for (char c : k.text) line_ += c == '\n';
      newline();
      continue;
    }
    if (at_line_start_) {
      out_.append(static_cast<size_t>(k.col), ' ');
    } else if (k.space_before || (prev_ && wordish(*prev_) && wordish(k))) {
      out_ += ' ';
    }
    out_ += k.text;
    at_line_start_ = false;
    prev_ = &k;
  }
}

}  // namespace metalsim::front
