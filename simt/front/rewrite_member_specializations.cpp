// ------------------------------ explicit specializations of member functions in the class
// MSL's compiler (Clang) accepts `template <> R f(Args)` inside a class, specializing a member
// function template there (CWG 727; MLX's unary.h: `template <> uint8_t operator()(uint8_t x)`).
// GCC rejects it ("explicit specialization in non-namespace scope"), so the rule drops the
// `template <>`: the member becomes a non-template overload. A call whose argument types are
// the specialization's then picks it (a non-template beats a template specialization with the
// same conversions), and other calls deduce the template as before. What differs: a call that
// names the template arguments (`op.template operator()<T>(x)`) gets the primary template.
// Specializations that name their arguments (`template <> int f<int>(int)`) and member class
// specializations are left as written.
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

// Whether tokens from `b` (just past `template <>`) declare a member function without explicit
// template arguments: the first '(' at depth 0 comes before any '{', ';' or '=' and follows a
// name or an operator, not a '>' closing a template argument list.
bool declares_plain_function(const Tokens& t, size_t b) {
  for (size_t i = b; i < t.size(); ++i) {
    const Token& k = t[i];
    if (k.is("struct") || k.is("class") || k.is("union") || k.is("{") || k.is(";") || k.is("=")) {
      return false;
    }
    if (k.is("<") && i > b && t[i - 1].is("operator")) continue;  // operator< is a name
    if (k.is("<")) {
      i = match_close(t, i);
      continue;
    }
    if (!k.is("(")) continue;
    if (i > b && t[i - 1].is("operator")) return true;  // operator() (...)
    const Token& before = t[i - 1];
    return i > b && !before.is(">") && !before.is(">>");
  }
  return false;
}

}  // namespace

void rewrite_member_specializations(Tokens& t, RewriteContext& ctx) {
  if (ctx.macro_body) return;  // no scope map there
  const std::vector<Scope> scope = scope_map(t);
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    const bool empty_template_head = t[i].is("template") && i + 2 < t.size() && t[i + 1].is("<") &&
                                     t[i + 2].is(">");
    if (empty_template_head && scope[i] == Scope::Class && declares_plain_function(t, i + 3)) {
      t[i + 3].space_before = t[i + 3].space_before || t[i].space_before;
      i += 2;
      continue;
    }
    out.push_back(t[i]);
  }
  t = std::move(out);
}

}  // namespace metalsim::front
