#include "simt/front/lexer.h"

#include <array>
#include <cctype>

#include "simt/front/diagnostics.h"

namespace metalsim::front {
namespace {

constexpr std::array<std::string_view, 25> kMultiPunct = {
    "<<=", ">>=", "...", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
    "!=",  "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##"};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Lexer {
 public:
  Lexer(std::string_view text, int file, int first_line) : s_(text), file_(file), line_(first_line) {}

  Tokens run() {
    Tokens out;
    bool line_start = true;
    bool space = false;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        newline();
        line_start = true;
        space = false;
        continue;
      }
      if (c == '\\' && peek(1) == '\n') {  // line splice outside a directive
        ++i_;
        newline();
        space = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
        space = true;
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        space = true;
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        skip_block_comment();
        space = true;
        continue;
      }
      Token t;
      t.file = file_;
      t.line = line_;
      t.col = static_cast<int>(i_ - line_begin_);
      t.space_before = space;
      space = false;
      if (c == '#' && line_start) {
        t.kind = TokKind::Directive;
        t.text = directive();
      } else if (ident_start(c)) {
        size_t b = i_;
        while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
        if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && is_prefix(s_.substr(b, i_ - b))) {
          t.kind = s_[i_] == '"' ? TokKind::String : TokKind::Char;
          quoted(s_[i_], t.line);
        } else {
          t.kind = TokKind::Ident;
        }
        t.text = std::string(s_.substr(b, i_ - b));
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        t.kind = TokKind::Number;
        t.text = number();
      } else if (c == '"' || c == '\'') {
        size_t b = i_;
        t.kind = c == '"' ? TokKind::String : TokKind::Char;
        quoted(c, t.line);
        t.text = std::string(s_.substr(b, i_ - b));
      } else {
        t.kind = TokKind::Punct;
        t.text = punct();
      }
      line_start = false;
      out.push_back(std::move(t));
    }
    return out;
  }

 private:
  char peek(size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  void newline() {
    ++i_;
    ++line_;
    line_begin_ = i_;
  }
  static bool is_prefix(std::string_view p) { return p == "u8" || p == "u" || p == "U" || p == "L"; }

  void skip_block_comment() {
    int start = line_;
    i_ += 2;
    while (i_ < s_.size() && !(s_[i_] == '*' && peek(1) == '/')) {
      if (s_[i_] == '\n') {
        newline();
      } else {
        ++i_;
      }
    }
    if (i_ >= s_.size()) throw FrontError(file_, start, "unterminated /* comment");
    i_ += 2;
  }

  void quoted(char q, int line) {
    ++i_;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\n') break;
      if (s_[i_] == '\\') ++i_;
      ++i_;
    }
    if (i_ >= s_.size() || s_[i_] != q) {
      throw FrontError(file_, line, q == '"' ? "unterminated string literal" : "unterminated character literal");
    }
    ++i_;
  }

  std::string number() {
    size_t b = i_;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if ((c == '+' || c == '-') && i_ > b) {
        char p = s_[i_ - 1];
        bool hex = s_.substr(b, 2) == "0x" || s_.substr(b, 2) == "0X";
        if ((!hex && (p == 'e' || p == 'E')) || p == 'p' || p == 'P') {
          ++i_;
          continue;
        }
        break;
      }
      if (ident_char(c) || c == '.' || (c == '\'' && ident_char(peek(1)))) {
        ++i_;
        continue;
      }
      break;
    }
    return std::string(s_.substr(b, i_ - b));
  }

  std::string punct() {
    for (std::string_view p : kMultiPunct) {
      if (s_.substr(i_, p.size()) == p) {
        i_ += p.size();
        return std::string(p);
      }
    }
    return std::string(1, s_[i_++]);
  }

  // A preprocessor line: continuations are kept (with their newlines) so the line count holds;
  // a comment that starts on the line is dropped.
  std::string directive() {
    std::string text;
    while (i_ < s_.size() && s_[i_] != '\n') {
      char c = s_[i_];
      if (c == '\\' && peek(1) == '\n') {
        text += "\\\n";
        ++i_;
        newline();
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
        break;
      }
      if (c == '/' && peek(1) == '*') {
        skip_block_comment();
        text += ' ';
        continue;
      }
      if (c == '"' || (c == '\'' && !text.empty() && !ident_char(text.back()))) {
        size_t b = i_;
        quoted(c, line_);
        text += s_.substr(b, i_ - b);
        continue;
      }
      text += c;
      ++i_;
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) text.pop_back();
    return text;
  }

  std::string_view s_;
  int file_;
  int line_;
  size_t i_ = 0;
  size_t line_begin_ = 0;
};

}  // namespace

Tokens lex(std::string_view text, int file, int first_line) { return Lexer(text, file, first_line).run(); }

Token make_token(TokKind kind, std::string text, const Token& at, bool space_before) {
  Token t;
  t.kind = kind;
  t.text = std::move(text);
  t.file = at.file;
  t.line = at.line;
  t.col = at.col;
  t.space_before = space_before;
  return t;
}

}  // namespace metalsim::front
