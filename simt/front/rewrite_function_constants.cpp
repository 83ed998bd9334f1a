// ------------------------------ function constants
// `constant T name [[function_constant(N)]];` at namespace scope becomes
// `const ::metalsim::generated::FunctionConstant<T> name{N};`, an object whose `operator T()`
// reads the running dispatch's value (engine::function_constant(N); T{} when unset) and that
// is_function_constant_defined(name) accepts. A program-scope constant whose initialiser
// names a function constant (`constant bool has_b = is_function_constant_defined(b) && b;`) is
// re-evaluated per read through DerivedConstant<T>, since its value too is set per pipeline.
#include <set>

#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

constexpr const char* kRt = "::metalsim::generated::";

}  // namespace

void rewrite_function_constants(Tokens& t, RewriteContext& ctx) {
  std::vector<Scope> scope = scope_map(t);
  std::set<std::string> names;
  for (const auto& fc : ctx.function_constants) names.insert(fc.name);
  for (const auto& d : ctx.derived_constants) names.insert(d);
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& at = t[i];
    if (!(at.is("constant") && scope[i] == Scope::Namespace && statement_start(t, i) == i)) {
      out.push_back(at);
      continue;
    }
    size_t e = statement_end(t, i);
    size_t attr = e, eq = e;
    for (size_t k = i; k < e; ++k) {
      if (is_attribute_start(t, k) && attr == e) attr = k;
      if (t[k].is("=") && eq == e) eq = k;
    }
    std::string index;
    if (attr < e) {
      for (const Attribute& a : parse_attributes(t, attr)) {
        if (a.name == "function_constant") index = a.args;
      }
    }
    if (!index.empty()) {
      size_t name_at = attr - 1;
      if (!t[name_at].ident() || name_at <= i + 1 || eq < e) {
        throw FrontError(at.file, at.line,
                         "expected `constant TYPE NAME [[function_constant(N)]];`");
      }
      FunctionConstantDecl fc{t[name_at].text, index, join(t, i + 1, name_at), at.file, at.line};
      ctx.function_constants.push_back(fc);
      names.insert(fc.name);
      std::string code = std::string("const ") + kRt + "FunctionConstant<" + fc.type + "> " +
                         fc.name + "{static_cast<uint32_t>(" + fc.index + ")};";
      out.push_back(make_token(TokKind::Raw, code, at, at.space_before));
      i = e;
      continue;
    }
    bool derived = false;
    for (size_t k = eq + 1; k < e; ++k)
      derived = derived || (t[k].ident() && names.count(t[k].text));
    if (!derived) {
      out.push_back(at);
      continue;
    }
    size_t name_at = eq - 1;
    if (!t[name_at].ident() || name_at <= i + 1) {
      throw FrontError(at.file, at.line,
                       "a program-scope constant computed from a function constant must read "
                       "`constant TYPE NAME = expr;`");
    }
    std::string type = join(t, i + 1, name_at);
    std::string name = t[name_at].text;
    ctx.derived_constants.push_back(name);
    names.insert(name);
    out.push_back(make_token(TokKind::Raw,
                             std::string("const ") + kRt + "DerivedConstant<" + type + "> " + name +
                                 "{+[]() -> " + type + " { return",
                             at, at.space_before));
    for (size_t k = eq + 1; k < e; ++k) out.push_back(t[k]);
    out.push_back(make_token(TokKind::Raw, "; }};", t[e], false));
    i = e;
  }
  t = std::move(out);
}

}  // namespace metalsim::front
