// ------------------------------ threadgroup variables
// `threadgroup T name[N];` in a kernel or helper body is storage the whole threadgroup shares:
//   using ms_tg_t_name = T[N];
//   static ::metalsim::engine::ThreadgroupVariableSite ms_tg_site_name{sizeof, alignof, "name",
//   file, line}; ms_tg_t_name& name =
//   *static_cast<ms_tg_t_name*>(::metalsim::engine::threadgroup_variable(ms_tg_site_name));
// all on the declaration's line. `threadgroup T* p` (a pointer) is left to the address-space rule.
// An initialiser is dropped (see find_threadgroup_declarations).
#include "simt/front/diagnostics.h"
#include "simt/front/emitter.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

bool starts_statement(const Tokens& t, size_t i, size_t b) {
  if (i == b) return true;
  const Token& p = t[i - 1];
  return p.is(";") || p.is("{") || p.is("}") || p.is(":") || p.kind == TokKind::Directive ||
         p.kind == TokKind::Raw;
}

// Just past an initialiser starting at `i`: the ',' or ';' that ends it at depth 0.
size_t initializer_end(const Tokens& t, size_t i, size_t e) {
  for (; i < e; ++i) {
    if (t[i].is("(") || t[i].is("[") || t[i].is("{")) {
      i = match_close(t, i);
      continue;
    }
    if (t[i].is(",") || t[i].is(";")) return i;
  }
  return e;
}

}  // namespace

std::vector<ThreadgroupDeclaration> find_threadgroup_declarations(const Tokens& t, size_t b,
                                                                  size_t e) {
  std::vector<ThreadgroupDeclaration> out;
  for (size_t i = b; i < e; ++i) {
    if (is_attribute_start(t, i)) {
      i = attribute_end(t, i) - 1;
      continue;
    }
    if (!t[i].is("threadgroup") || !starts_statement(t, i, b)) continue;
    size_t k = i + 1;
    size_t last_ident = 0;
    while (k < e && (t[k].ident() || t[k].is("::") || t[k].is("<"))) {
      if (t[k].is("<")) {
        k = match_close(t, k) + 1;
        continue;
      }
      last_ident = k++;
    }
    if (k >= e || t[k].is("*") || t[k].is("&") || t[k].is("(") || last_ident <= i + 1)
      continue;  // a pointer
    ThreadgroupDeclaration d;
    d.begin = i;
    d.type_begin = i + 1;
    d.type_end = last_ident;
    size_t n = last_ident;
    while (true) {
      if (n >= e || !t[n].ident())
        throw FrontError(t[i].file, t[i].line, "threadgroup variable: expected a name");
      ThreadgroupDeclaration::Declarator decl{t[n].text, n + 1, n + 1, t[n].line};
      size_t s = n + 1;
      while (s < e && t[s].is("[")) s = match_close(t, s) + 1;
      decl.suffix_end = s;
      d.declarators.push_back(decl);
      // `threadgroup float buf[32] = {0};` (MLX's layer_norm): Apple's compiler accepts it and the
      // storage is not initialised by it (no thread runs the initialiser; MLX zeroes the buffer
      // itself right after), so the initialiser is dropped and the storage starts uninitialised,
      // as every threadgroup variable does here (the init check reports a read before a write).
      if (s < e && t[s].is("=")) s = initializer_end(t, s + 1, e);
      if (s < e && t[s].is(",")) {
        n = s + 1;
        continue;
      }
      if (s >= e || !t[s].is(";"))
        throw FrontError(t[i].file, t[i].line,
                         "threadgroup variable '" + decl.name + "': expected ';'");
      d.end = s;
      break;
    }
    out.push_back(d);
    i = d.end;
  }
  return out;
}

void rewrite_threadgroup_variables(Tokens& t, RewriteContext& ctx) {
  std::vector<Scope> scope =
      ctx.macro_body ? std::vector<Scope>(t.size(), Scope::Function) : scope_map(t);
  std::vector<ThreadgroupDeclaration> decls = find_threadgroup_declarations(t, 0, t.size());
  if (decls.empty()) return;
  Tokens out;
  size_t next = 0;
  for (const ThreadgroupDeclaration& d : decls) {
    const Token& at = t[d.begin];
    if (scope[d.begin] != Scope::Function) {
      throw FrontError(at.file, at.line,
                       "threadgroup variables are only allowed in kernel and function bodies");
    }
    out.insert(out.end(), t.begin() + static_cast<long>(next),
               t.begin() + static_cast<long>(d.begin));
    std::string base = join(t, d.type_begin, d.type_end);
    std::string code;
    for (const auto& decl : d.declarators) {
      std::string type = "ms_tg_t_" + decl.name;
      std::string site = "ms_tg_site_" + decl.name;
      std::string file = ctx.macro_body ? "__FILE__" : c_string(ctx.file_name(at.file));
      std::string line = ctx.macro_body ? "__LINE__" : std::to_string(decl.line);
      code += code.empty() ? "" : " ";
      code += "using " + type + " = " + base + join(t, decl.suffix_begin, decl.suffix_end) + "; ";
      code += "static ::metalsim::engine::ThreadgroupVariableSite " + site +
              "{static_cast<uint32_t>(sizeof(" + type + ")), static_cast<uint32_t>(alignof(" +
              type + ")), " + c_string(decl.name) + ", " + file + ", " + line + "}; ";
      code += type + "& " + decl.name + " = *static_cast<" + type +
              "*>(::metalsim::engine::threadgroup_variable(" + site + ")); (void)" + decl.name +
              ";";
    }
    out.push_back(make_token(TokKind::Raw, code, at, at.space_before));
    next = d.end + 1;
  }
  out.insert(out.end(), t.begin() + static_cast<long>(next), t.end());
  t = std::move(out);
}

}  // namespace metalsim::front
