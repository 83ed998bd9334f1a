// ------------------------------ function constants
// `constant T name [[function_constant(N)]];` at namespace scope becomes
// `const ::metalsim::generated::FunctionConstant<T> name{N};`, an object whose `operator T()`
// reads the running dispatch's value (engine::function_constant(N); T{} when unset) and that
// is_function_constant_defined(name) accepts. A program-scope constant whose initialiser
// names a function constant (`constant bool has_b = is_function_constant_defined(b) && b;`) is
// re-evaluated per read through DerivedConstant<T>, since its value too is set per pipeline.
// Either may start with more specifiers (`static constant constexpr const`), spelled out or
// through a macro of specifiers only.
#include <set>

#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

constexpr const char* kRt = "::metalsim::generated::";

bool specifier_word(const std::string& w) {
  return w == "static" || w == "constant" || w == "constexpr" || w == "const" || w == "inline";
}

// Macros whose whole body is declaration specifiers: MLX declares its function constants as
// `STEEL_CONST bool inv_ [[function_constant(0)]];` with
// `#define STEEL_CONST static constant constexpr const`. The front does not expand macros, so it
// learns these from the file's #defines.
std::set<std::string> specifier_macros(const Tokens& t) {
  std::set<std::string> out;
  for (const Token& k : t) {
    if (k.kind != TokKind::Directive) continue;
    std::vector<std::string> words;
    std::string w;
    for (char c : k.text + " ") {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\\') {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else {
        w += c;
      }
    }
    // "#define NAME spec...", or "#" "define" NAME spec...
    size_t name = words.size() > 0 && words[0] == "#define"                     ? 1
                  : words.size() > 1 && words[0] == "#" && words[1] == "define" ? 2
                                                                                : 0;
    if (name == 0 || name + 1 >= words.size() || words[name].find('(') != std::string::npos)
      continue;
    bool all = true;
    for (size_t i = name + 1; i < words.size(); ++i) all = all && specifier_word(words[i]);
    if (all) out.insert(words[name]);
  }
  return out;
}

// The first token after the specifiers of a program-scope declaration starting at `i`
// (`constant`, `static constexpr const`, a specifier macro), or `i` when it has none that makes it
// a constant.
size_t after_constant_specifiers(const Tokens& t, size_t i, size_t e,
                                 const std::set<std::string>& macros) {
  size_t k = i;
  bool constant = false;
  while (k < e && t[k].ident() && (specifier_word(t[k].text) || macros.count(t[k].text))) {
    constant = constant || t[k].is("constant") || macros.count(t[k].text);
    ++k;
  }
  return constant ? k : i;
}

}  // namespace

void rewrite_function_constants(Tokens& t, RewriteContext& ctx) {
  std::vector<Scope> scope = scope_map(t);
  std::set<std::string> names;
  for (const auto& fc : ctx.function_constants) names.insert(fc.name);
  for (const auto& d : ctx.derived_constants) names.insert(d);
  Tokens out;
  out.reserve(t.size());
  std::set<std::string> macros = specifier_macros(t);
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& at = t[i];
    bool candidate = at.ident() && (specifier_word(at.text) || macros.count(at.text)) &&
                     scope[i] == Scope::Namespace && statement_start(t, i) == i;
    if (!candidate) {
      out.push_back(at);
      continue;
    }
    size_t e = statement_end(t, i);
    size_t type_at = after_constant_specifiers(t, i, e, macros);
    if (type_at == i) {
      out.push_back(at);
      continue;
    }
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
      if (!t[name_at].ident() || name_at <= type_at || eq < e) {
        throw FrontError(at.file, at.line,
                         "expected `constant TYPE NAME [[function_constant(N)]];`");
      }
      FunctionConstantDecl fc{t[name_at].text, index, join(t, type_at, name_at), at.file, at.line};
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
    if (!t[name_at].ident() || name_at <= type_at) {
      throw FrontError(at.file, at.line,
                       "a program-scope constant computed from a function constant must read "
                       "`constant TYPE NAME = expr;`");
    }
    std::string type = join(t, type_at, name_at);
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
