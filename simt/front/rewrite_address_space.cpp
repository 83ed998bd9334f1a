// ------------------------------ address spaces
// `device` and `thread` disappear; `threadgroup` disappears from pointer and reference types
// (threadgroup variables were rewritten before); `constant` becomes `const`, or disappears when
// its declaration already says const (`constant const P& p`) or it qualifies a constructor's
// `this` (`S(T x) constant`). Words inside [[...]] are attributes, not address spaces:
// `[[threadgroup(0)]]` is left to the attribute rule.
#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {

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
    if (k.is("constant") && constant_becomes_const(t, i)) {
      out.push_back(make_token(TokKind::Ident, "const", k, k.space_before));
      continue;
    }
    // Dropped: keep the separation it gave.
    if (i + 1 < t.size() && k.space_before) t[i + 1].space_before = true;
  }
  t = std::move(out);
}

}  // namespace metalsim::front
