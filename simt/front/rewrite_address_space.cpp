// ------------------------------ address spaces
// `device` and `thread` disappear; `threadgroup` disappears from pointer and reference types
// (threadgroup variables were rewritten before); `constant` becomes `const`, or disappears when
// its declaration already says const (`constant const P& p`). Words inside [[...]] are
// attributes, not address spaces: `[[threadgroup(0)]]` is left to the attribute rule.
#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
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

}  // namespace

void rewrite_address_space(Tokens& t, RewriteContext&) {
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (is_attribute_start(t, i)) {
      size_t e = attribute_end(t, i);
      out.insert(out.end(), t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(e));
      i = e - 1;
      continue;
    }
    const Token& k = t[i];
    bool member = i > 0 && (t[i - 1].is(".") || t[i - 1].is("->") || t[i - 1].is("::"));
    if (!is_address_space(k) || member) {
      out.push_back(k);
      continue;
    }
    if (k.is("constant") && !decl_has_const(t, i)) {
      out.push_back(make_token(TokKind::Ident, "const", k, k.space_before));
      continue;
    }
    // Dropped: keep the separation it gave.
    if (i + 1 < t.size() && k.space_before) t[i + 1].space_before = true;
  }
  t = std::move(out);
}

}  // namespace metalsim::front
