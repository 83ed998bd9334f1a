#include "simt/front/token_util.h"

#include "simt/front/diagnostics.h"

namespace metalsim::front {

size_t match_close(const Tokens& t, size_t open) {
  const std::string& o = t[open].text;
  if (o == "<") {
    int depth = 0;
    for (size_t i = open; i < t.size(); ++i) {
      const Token& k = t[i];
      if (k.is("(") || k.is("[") || k.is("{")) {
        i = match_close(t, i);
        continue;
      }
      if (k.is("<")) ++depth;
      if (k.is(">")) --depth;
      if (k.is(">>")) depth -= 2;
      if (depth <= 0) return i;
      if (k.is(";") || k.is(")") || k.is("]") || k.is("}")) break;
    }
    throw FrontError(t[open].file, t[open].line, "unbalanced '<' in template argument list");
  }
  std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].kind != TokKind::Punct) continue;
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
  }
  throw FrontError(t[open].file, t[open].line, "unbalanced '" + o + "'");
}

bool is_attribute_start(const Tokens& t, size_t i) {
  return i + 1 < t.size() && t[i].is("[") && t[i + 1].is("[") && !t[i + 1].space_before;
}

size_t attribute_end(const Tokens& t, size_t i) {
  size_t close = match_close(t, i + 1);
  if (close + 1 >= t.size() || !t[close + 1].is("]")) {
    throw FrontError(t[i].file, t[i].line, "malformed attribute: expected ']]'");
  }
  return close + 2;
}

std::vector<Attribute> parse_attributes(const Tokens& t, size_t i) {
  std::vector<Attribute> out;
  size_t end = attribute_end(t, i) - 2;
  size_t k = i + 2;
  while (k < end) {
    Attribute a;
    a.line = t[k].line;
    while (k < end && !t[k].is(",") && !t[k].is("(")) a.name += t[k++].text;  // gnu::x
    if (k < end && t[k].is("(")) {
      size_t c = match_close(t, k);
      a.args = join(t, k + 1, c);
      a.has_args = true;
      k = c + 1;
    }
    if (!a.name.empty()) out.push_back(a);
    if (k < end && t[k].is(",")) ++k;
  }
  return out;
}

std::string join(const Tokens& t, size_t b, size_t e) {
  std::string s;
  for (size_t i = b; i < e && i < t.size(); ++i) {
    if (!s.empty() && t[i].space_before) s += ' ';
    s += t[i].text;
  }
  return s;
}

namespace {

bool is_function_head(const Tokens& t, size_t brace) {
  size_t i = brace;
  while (i > 0) {
    const Token& p = t[i - 1];
    if (p.is("]") && i >= 2 && t[i - 2].is("]")) {  // trailing attribute
      size_t k = i - 2;
      int depth = 0;
      while (k > 0) {
        if (t[k].is("]")) ++depth;
        if (t[k].is("[")) --depth;
        if (depth == 0) break;
        --k;
      }
      i = k;
      continue;
    }
    if (p.is("const") || p.is("volatile") || p.is("override") || p.is("final") ||
        p.is("noexcept") || is_address_space(p) || p.is("&") || p.is("&&")) {
      --i;
      continue;
    }
    return p.is(")");
  }
  return false;
}

Scope classify_brace(const Tokens& t, size_t brace) {
  if (is_function_head(t, brace)) return Scope::Function;
  size_t s = statement_start(t, brace);
  for (size_t k = s; k < brace; ++k) {
    if (t[k].is("namespace") ||
        (t[k].is("extern") && k + 1 < brace && t[k + 1].kind == TokKind::String)) {
      return Scope::Namespace;
    }
    if (t[k].is("=") || t[k].is("(")) return Scope::Initializer;
    if (t[k].is("struct") || t[k].is("class") || t[k].is("union") || t[k].is("enum"))
      return Scope::Class;
  }
  return Scope::Initializer;
}

}  // namespace

std::vector<Scope> scope_map(const Tokens& t, std::vector<Scope>* opened) {
  std::vector<Scope> out(t.size(), Scope::Namespace);
  if (opened) opened->assign(t.size(), Scope::Namespace);
  std::vector<Scope> stack;
  for (size_t i = 0; i < t.size(); ++i) {
    Scope cur = stack.empty() ? Scope::Namespace : stack.back();
    out[i] = cur;
    if (t[i].is("{")) {
      stack.push_back(cur == Scope::Function ? Scope::Function : classify_brace(t, i));
      if (opened) (*opened)[i] = stack.back();
    } else if (t[i].is("}") && !stack.empty()) {
      stack.pop_back();
      out[i] = stack.empty() ? Scope::Namespace : stack.back();
    }
  }
  return out;
}

size_t statement_start(const Tokens& t, size_t i) {
  int depth = 0;
  while (i > 0) {
    const Token& p = t[i - 1];
    if (p.kind == TokKind::Directive) break;
    // A statement another rule already replaced by generated code (an explicit instantiation
    // became a registration: `static const ...{...};`) ends where that code ends.
    if (p.kind == TokKind::Raw && !p.text.empty() && (p.text.back() == ';' || p.text.back() == '}'))
      break;
    if (p.kind == TokKind::Punct) {
      if (p.text == ")" || p.text == "]") ++depth;
      if (p.text == "(" || p.text == "[") {
        if (depth == 0) break;
        --depth;
      }
      if (p.text == "}") {
        if (depth == 0) break;
      }
      if (depth == 0 && (p.text == ";" || p.text == "{")) break;
    }
    --i;
  }
  return i;
}

size_t statement_end(const Tokens& t, size_t i) {
  for (size_t k = i; k < t.size(); ++k) {
    if (t[k].is("(") || t[k].is("[") || t[k].is("{")) {
      k = match_close(t, k);
      continue;
    }
    if (t[k].is(";")) return k;
    if (t[k].is("}") || t[k].is(")")) return k;
  }
  return t.size();
}

bool is_address_space(const Token& tok) {
  return tok.ident() && (tok.text == "device" || tok.text == "constant" || tok.text == "thread" ||
                         tok.text == "threadgroup");
}

namespace {

bool decl_has_const(const Tokens& t, size_t i) {
  for (size_t k = i + 1; k < t.size(); ++k) {  // forward over the type
    if (t[k].is("const")) return true;
    if (t[k].is("<")) {
      k = match_close(t, k);
      continue;
    }
    if (!(t[k].ident() || t[k].is("::"))) break;
  }
  for (size_t k = i; k > 0; --k) {  // back over the specifiers before it
    const Token& p = t[k - 1];
    if (p.is("const")) return true;
    if (!(p.ident() || p.is("::"))) break;
  }
  return false;
}

bool qualifies_constructor(const Tokens& t, size_t i) {
  if (i == 0 || !t[i - 1].is(")")) return false;
  size_t k = i - 1;
  for (int depth = 0;; --k) {  // back to the matching '('
    if (t[k].is(")")) ++depth;
    if (t[k].is("(") && --depth == 0) break;
    if (k == 0) return false;
  }
  if (k == 0 || !t[k - 1].ident()) return false;
  const std::string& name = t[k - 1].text;
  for (size_t c = 0; c + 1 < t.size(); ++c) {
    if ((t[c].is("struct") || t[c].is("class")) && t[c + 1].text == name) return true;
  }
  return false;
}

}  // namespace

bool constant_becomes_const(const Tokens& t, size_t i) {
  return !decl_has_const(t, i) && !qualifies_constructor(t, i);
}

std::string erased_parameter_list(const Tokens& t, size_t open, size_t close) {
  std::string s;
  for (size_t i = open + 1; i < close; ++i) {
    if (is_attribute_start(t, i)) {
      i = attribute_end(t, i) - 1;
      continue;
    }
    if (is_address_space(t[i])) {
      if (t[i].is("constant") && constant_becomes_const(t, i)) s += "const ";
      continue;
    }
    s += t[i].text;
    s += ' ';
  }
  if (!s.empty()) s.pop_back();
  return s;
}

}  // namespace metalsim::front
