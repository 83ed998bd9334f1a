// ------------------------------ GNU range designators
// `{ [0 ... 3] = v, [5] = w }` (GNU C, rejected by g++) becomes the positional list
// `{ v, v, v, v, {}, w }`. Bounds must be integer constants (literals and + - * / ( )); anything
// else is an error at its line.
#include <cctype>
#include <map>

#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

// A tiny constant evaluator over integer literals.
class ConstEval {
 public:
  ConstEval(const Tokens& t, size_t b, size_t e) : t_(t), i_(b), e_(e) {}
  long long run() {
    long long v = sum();
    if (i_ != e_) fail();
    return v;
  }

 private:
  [[noreturn]] void fail() const {
    const Token& at = t_[i_ < e_ ? i_ : e_ - 1];
    throw FrontError(at.file, at.line, "range designator bound is not an integer constant the front can evaluate");
  }
  long long sum() {
    long long v = product();
    while (i_ < e_ && (t_[i_].is("+") || t_[i_].is("-"))) {
      bool plus = t_[i_++].is("+");
      long long r = product();
      v = plus ? v + r : v - r;
    }
    return v;
  }
  long long product() {
    long long v = unary();
    while (i_ < e_ && (t_[i_].is("*") || t_[i_].is("/"))) {
      bool mul = t_[i_++].is("*");
      long long r = unary();
      if (!mul && r == 0) fail();
      v = mul ? v * r : v / r;
    }
    return v;
  }
  long long unary() {
    if (i_ >= e_) fail();
    if (t_[i_].is("-")) {
      ++i_;
      return -unary();
    }
    if (t_[i_].is("(")) {
      ++i_;
      long long v = sum();
      if (i_ >= e_ || !t_[i_].is(")")) fail();
      ++i_;
      return v;
    }
    if (t_[i_].kind != TokKind::Number) fail();
    std::string s = t_[i_++].text;
    while (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back())) && s.substr(0, 2) != "0x") s.pop_back();
    try {
      return std::stoll(s, nullptr, 0);
    } catch (...) {
      fail();
    }
  }
  const Tokens& t_;
  size_t i_;
  size_t e_;
};

bool has_designator(const Tokens& t, size_t open, size_t close) {
  // A designator starts an element: '[' right after '{' or ','.
  for (size_t i = open + 1; i < close; ++i) {
    if (t[i].is("(") || t[i].is("{")) {
      i = match_close(t, i);
      continue;
    }
    if (t[i].is("[") && (t[i - 1].is("{") || t[i - 1].is(",")) && !is_attribute_start(t, i)) {
      size_t rb = match_close(t, i);
      if (rb + 1 < close && t[rb + 1].is("=")) return true;  // not a lambda's capture list
    }
  }
  return false;
}

// Rewrites the braced list at `open`; returns the replacement tokens.
Tokens expand(const Tokens& t, size_t open, size_t close) {
  std::map<long long, std::pair<size_t, size_t>> elems;  // index -> value tokens
  long long next = 0;
  size_t i = open + 1;
  while (i < close) {
    size_t e = i;
    while (e < close && !t[e].is(",")) {
      if (t[e].is("(") || t[e].is("[") || t[e].is("{")) e = match_close(t, e);
      ++e;
    }
    if (t[i].is("[")) {
      size_t rb = match_close(t, i);
      size_t dots = i + 1;
      while (dots < rb && !t[dots].is("...")) ++dots;
      long long lo = ConstEval(t, i + 1, dots).run();
      long long hi = dots < rb ? ConstEval(t, dots + 1, rb).run() : lo;
      if (rb + 1 >= e || !t[rb + 1].is("=")) throw FrontError(t[i].file, t[i].line, "expected '=' after array designator");
      if (lo < 0 || hi < lo || hi > 65536) throw FrontError(t[i].file, t[i].line, "bad array designator range");
      for (long long k = lo; k <= hi; ++k) elems[k] = {rb + 2, e};
      next = hi + 1;
    } else if (i < e) {
      elems[next++] = {i, e};
    }
    i = e + 1;
  }
  Tokens out;
  out.push_back(t[open]);
  long long expect = 0;
  for (auto& [index, range] : elems) {
    for (; expect < index; ++expect) {
      if (expect) out.push_back(make_token(TokKind::Punct, ",", t[open], false));
      out.push_back(make_token(TokKind::Punct, "{", t[open]));
      out.push_back(make_token(TokKind::Punct, "}", t[open], false));
    }
    if (expect) out.push_back(make_token(TokKind::Punct, ",", t[range.first], false));
    for (size_t k = range.first; k < range.second; ++k) {
      out.push_back(t[k]);
      if (k == range.first) out.back().space_before = true;
    }
    expect = index + 1;
  }
  out.push_back(t[close]);
  return out;
}

}  // namespace

void rewrite_range_designators(Tokens& t, RewriteContext& ctx) {
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].is("{")) {
      size_t close = match_close(t, i);
      if (has_designator(t, i, close)) {
        Tokens inner(t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(close) + 1);
        Tokens exp = expand(inner, 0, inner.size() - 1);
        // Nested lists inside the values are rewritten too.
        rewrite_range_designators(exp, ctx);
        out.insert(out.end(), exp.begin(), exp.end());
        i = close;
        continue;
      }
    }
    out.push_back(t[i]);
  }
  t = std::move(out);
}

}  // namespace metalsim::front
