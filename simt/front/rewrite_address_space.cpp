// ------------------------------ address spaces
// `device` and `thread` disappear; `threadgroup` disappears from pointer and reference types
// (threadgroup variables were rewritten before); `constant` becomes `const`, or disappears when
// its declaration already says const (`constant const P& p`) or it qualifies a constructor's
// `this` (`S(T x) constant`). Words inside [[...]] are attributes, not address spaces:
// `[[threadgroup(0)]]` is left to the attribute rule.
//
// Memory coherence qualifiers (`volatile coherent(system) device uint* p`, MLX's fence.metal)
// are erased before any other rule sees the declaration: metalsim's device memory is the host's,
// coherent across threadgroups and with the host at every point.
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

void rewrite_coherence_qualifiers(Tokens& t, RewriteContext&) {
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    bool qualifier = t[i].is("coherent") && i + 3 < t.size() && t[i + 1].is("(") &&
                     (t[i + 2].is("device") || t[i + 2].is("system")) && t[i + 3].is(")");
    if (!qualifier) {
      out.push_back(t[i]);
      continue;
    }
    if (i + 4 < t.size() && t[i].space_before) t[i + 4].space_before = true;
    i += 3;
  }
  t = std::move(out);
}

}  // namespace metalsim::front
