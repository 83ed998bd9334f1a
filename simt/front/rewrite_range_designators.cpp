// ------------------------------ GNU range designators
// `{ [0 ... 3] = v, [5] = w }` (GNU C, rejected by g++) becomes the positional list
// `{ v, v, v, v, {}, w }` when the bounds are integer constants (literals and + - * / ( )).
// A bound only the C++ compiler knows (a template parameter: ggml's
// `float sumf[r1ptg] = { [0 ... r1ptg - 1] = 0.0f };`) cannot be expanded here; when the list
// initialises a local array `T a[E] = {...};`, the array is value-initialised and each designator
// becomes a statement after it (`generated::fill_range(a, lo, hi, v);`, `a[i] = w;`). Anywhere else
// a non-constant bound is an error at its line.
#include <cctype>
#include <map>
#include <optional>

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
    throw FrontError(at.file, at.line,
                     "range designator bound is not an integer constant the front can evaluate");
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
    while (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back())) &&
           s.substr(0, 2) != "0x")
      s.pop_back();
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

bool is_constant(const Tokens& t, size_t b, size_t e) {
  try {
    ConstEval(t, b, e).run();
    return true;
  } catch (const FrontError&) {
    return false;
  }
}

// End of the element starting at `i` (the ',' or `close` after it).
size_t element_end(const Tokens& t, size_t i, size_t close) {
  while (i < close && !t[i].is(",")) {
    if (t[i].is("(") || t[i].is("[") || t[i].is("{")) i = match_close(t, i);
    ++i;
  }
  return i;
}

// Whether every designator bound in the list at [open, close] is a constant the front evaluates.
bool bounds_constant(const Tokens& t, size_t open, size_t close) {
  for (size_t i = open + 1; i < close; i = element_end(t, i, close) + 1) {
    if (!t[i].is("[")) continue;
    size_t rb = match_close(t, i);
    size_t dots = i + 1;
    while (dots < rb && !t[dots].is("...")) ++dots;
    if (!is_constant(t, i + 1, dots) || (dots < rb && !is_constant(t, dots + 1, rb))) return false;
  }
  return true;
}

// The declared name when `open` starts the initializer of `name[E] = {...};`, else nothing.
std::optional<size_t> local_array_name(const Tokens& t, size_t open, size_t close) {
  if (open < 3 || !t[open - 1].is("=") || !t[open - 2].is("]")) return std::nullopt;
  if (close + 1 >= t.size() || !t[close + 1].is(";")) return std::nullopt;
  size_t lb = open - 2;
  for (int depth = 0; lb > 0; --lb) {
    if (t[lb].is("]")) ++depth;
    if (t[lb].is("[") && --depth == 0) break;
  }
  if (lb == 0 || t[lb - 1].kind != TokKind::Ident) return std::nullopt;
  return lb - 1;
}

void append(Tokens& out, const Tokens& t, size_t b, size_t e) {
  out.insert(out.end(), t.begin() + static_cast<long>(b), t.begin() + static_cast<long>(e));
}

// `name[E] = { [lo ... hi] = v, [i] = w };` -> `name[E] = {}; generated::fill_range(name, lo, hi,
// (v)); name[i] = (w);` `out` already ends with `name[E] =`; returns the index of the statement's
// ';'.
size_t fill_statements(const Tokens& t, size_t open, size_t close, const Token& name, Tokens& out) {
  const Token& at = t[open];
  auto punct = [&](const char* p) { out.push_back(make_token(TokKind::Punct, p, at, false)); };
  punct("{");
  punct("}");
  punct(";");
  for (size_t i = open + 1; i < close;) {
    size_t e = element_end(t, i, close);
    if (!t[i].is("["))
      throw FrontError(
          t[i].file, t[i].line,
          "a range designator with a non-constant bound cannot be mixed with positional elements");
    size_t rb = match_close(t, i);
    if (rb + 1 >= e || !t[rb + 1].is("="))
      throw FrontError(t[i].file, t[i].line, "expected '=' after array designator");
    size_t dots = i + 1;
    while (dots < rb && !t[dots].is("...")) ++dots;
    if (dots < rb) {
      out.push_back(make_token(TokKind::Ident, "::metalsim::generated::fill_range", at));
      punct("(");
      out.push_back(name);
      punct(",");
      append(out, t, i + 1, dots);
      punct(",");
      append(out, t, dots + 1, rb);
    } else {
      out.push_back(name);
      append(out, t, i, rb + 1);
      punct("=");
    }
    if (dots < rb) punct(",");
    punct("(");
    append(out, t, rb + 2, e);
    punct(")");
    if (dots < rb) punct(")");
    punct(";");
    i = e + 1;
  }
  return close + 1;
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
      if (rb + 1 >= e || !t[rb + 1].is("="))
        throw FrontError(t[i].file, t[i].line, "expected '=' after array designator");
      if (lo < 0 || hi < lo || hi > 65536)
        throw FrontError(t[i].file, t[i].line, "bad array designator range");
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
  std::vector<Scope> scope =
      ctx.macro_body ? std::vector<Scope>(t.size(), Scope::Namespace) : scope_map(t);
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].is("{")) {
      size_t close = match_close(t, i);
      if (has_designator(t, i, close) && !bounds_constant(t, i, close) &&
          scope[i] == Scope::Function) {
        if (auto name = local_array_name(t, i, close)) {
          i = fill_statements(t, i, close, t[*name], out);
          continue;
        }
      }
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
