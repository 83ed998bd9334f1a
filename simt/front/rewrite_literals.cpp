// ------------------------------ half literals
// MSL's `h` suffix (1.0h, 1h, .5h, 2e-3h) has no C++ spelling: it becomes half(1.0).
#include "simt/front/rewrites.h"

namespace metalsim::front {

void rewrite_literals(Tokens& t, RewriteContext&) {
  Tokens out;
  out.reserve(t.size());
  for (const Token& k : t) {
    bool hex = k.text.size() > 1 && k.text[0] == '0' && (k.text[1] == 'x' || k.text[1] == 'X');
    if (k.kind != TokKind::Number || hex || (k.text.back() != 'h' && k.text.back() != 'H')) {
      out.push_back(k);
      continue;
    }
    out.push_back(make_token(TokKind::Ident, "half", k, k.space_before));
    out.push_back(make_token(TokKind::Punct, "(", k, false));
    out.push_back(make_token(TokKind::Number, k.text.substr(0, k.text.size() - 1), k, false));
    out.push_back(make_token(TokKind::Punct, ")", k, false));
  }
  t = std::move(out);
}

}  // namespace metalsim::front
