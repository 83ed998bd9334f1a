// ------------------------------ kernels
// Every `kernel void f(...)` / `[[kernel]] void f(...)` definition: its signature goes into the
// reflection table (reflection.cpp), the `kernel` word goes, and after the closing brace the
// entry struct is emitted under a #line of the kernel's own line (kernel_entry.cpp), so errors
// in binding code name the kernel.
#include <set>

#include <map>

#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

bool has_kernel_attribute(const Tokens& t, size_t i) {
  if (!is_attribute_start(t, i)) return false;
  for (const Attribute& a : parse_attributes(t, i)) {
    if (a.name == "kernel") return true;
  }
  return false;
}

bool is_non_type_keyword(const Token& k) {
  return k.is("return") || k.is("case") || k.is("goto") || k.is("else") || k.is("do") ||
         k.is("throw") || k.is("sizeof") || k.is("new") || k.is("delete") || k.is("co_return") ||
         k.is("co_yield");
}

// Names declared in [b, e): `T x = ...`, `T x;`, `using X = ...`, `constexpr int N = ...`.
std::set<std::string> local_names(const Tokens& t, size_t b, size_t e) {
  std::set<std::string> names;
  for (size_t i = b + 1; i + 1 < e; ++i) {
    if (!t[i].ident()) continue;
    const Token& p = t[i - 1];
    const Token& n = t[i + 1];
    bool follows_type =
        (p.ident() && !is_non_type_keyword(p)) || p.is(">") || p.is(">>") || p.is("using");
    bool declarator_end = n.is("=") || n.is(";") || n.is("{") || n.is("[") || n.is(",");
    if (follows_type && declarator_end) names.insert(t[i].text);
  }
  return names;
}

void collect_threadgroup_variables(const Tokens& t, size_t body, size_t close, KernelDecl& k) {
  for (const ThreadgroupDeclaration& d : find_threadgroup_declarations(t, body + 1, close)) {
    std::set<std::string> locals = local_names(t, body + 1, d.begin);
    for (const auto& decl : d.declarators) {
      ThreadgroupVariable v;
      v.name = decl.name;
      v.type = join(t, d.type_begin, d.type_end) + join(t, decl.suffix_begin, decl.suffix_end);
      v.line = decl.line;
      for (size_t i = d.type_begin; i < decl.suffix_end; ++i) {
        if (t[i].ident() && locals.count(t[i].text)) v.static_size = false;
      }
      k.threadgroup_variables.push_back(v);
    }
  }
}

// Where a plain kernel's definition becomes `inline`: before its first token that is not an
// attribute (`[[kernel]]`, `[[host_name("x")]]`), so the kernel keyword or the return type
// follows. Not when it already says inline, static, constexpr or extern: SIZE_MAX. An inline
// function is compiled only where it is used, and a kernel is used only by its entry struct, so
// a compile that registers some kernels of a file (KERNELS, or a runtime compile of one
// function) does not compile the others.
size_t inline_position(const Tokens& t, size_t head, size_t name_at) {
  size_t at = head;
  while (at < name_at && is_attribute_start(t, at)) at = attribute_end(t, at);
  for (size_t i = head; i < name_at; ++i)
    if (t[i].is("inline") || t[i].is("static") || t[i].is("constexpr") || t[i].is("extern"))
      return static_cast<size_t>(-1);
  return at;
}

}  // namespace

void rewrite_kernels(Tokens& t, RewriteContext& ctx) {
  std::vector<Scope> scope = scope_map(t);
  Tokens out;
  out.reserve(t.size());
  std::vector<std::pair<size_t, Token>> inserts;  // after token index: a block
  std::vector<bool> drop(t.size(), false);
  std::vector<size_t> inline_at;                // `inline` goes before these tokens
  std::map<std::string, int> template_kernels;  // kernel templates of each name so far
  for (size_t i = 0; i < t.size(); ++i) {
    bool keyword = t[i].is("kernel") && t[i].ident();
    if (scope[i] == Scope::Function || !(keyword || has_kernel_attribute(t, i))) continue;
    if (ctx.macro_body)
      throw FrontError(t[i].file, t[i].line, "kernels defined inside a macro are not supported");
    size_t name_at = 0;
    for (size_t k = i; k < t.size(); ++k) {
      if (is_attribute_start(t, k)) {
        k = attribute_end(t, k) - 1;
        continue;
      }
      if (t[k].is(";") || t[k].is("{")) break;
      if (t[k].is("(") && k > 0 && t[k - 1].ident()) {
        name_at = k - 1;
        break;
      }
    }
    if (!name_at) throw FrontError(t[i].file, t[i].line, "kernel: expected `void name(...)`");
    if (keyword) drop[i] = true;
    size_t head = statement_start(t, i);
    size_t close_paren = match_close(t, name_at + 1);
    size_t after = close_paren + 1;
    while (after < t.size() && !t[after].is("{") && !t[after].is(";")) ++after;
    if (after >= t.size() || t[after].is(";")) {  // a declaration: nothing to register
      i = after;
      continue;
    }
    KernelDecl k = parse_kernel_signature(t, head, name_at);
    if (size_t at = inline_position(t, head, name_at);
        !k.is_template && scope[i] == Scope::Namespace && at != static_cast<size_t>(-1))
      inline_at.push_back(at);
    k.erased_params = erased_parameter_list(t, name_at + 1, close_paren);
    // Kernel templates may be overloaded (MLX's steel_gemm_masked.h has two block_masked_gemm):
    // each gets its own entry struct, which instances reach through overload resolution.
    int overload = k.is_template ? ++template_kernels[k.name] : 1;
    k.entry_struct = "ms_kernel_" + k.name + (overload > 1 ? "_o" + std::to_string(overload) : "");
    size_t close = match_close(t, after);
    collect_threadgroup_variables(t, after, close, k);
    Token block = make_token(TokKind::Raw, kernel_entry_code(k, ctx.file_name(k.file)), t[name_at]);
    block.block = true;
    inserts.emplace_back(close, block);
    ctx.kernels.push_back(std::move(k));
    i = close;
  }
  size_t next_insert = 0;
  size_t next_inline = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    while (next_inline < inline_at.size() && inline_at[next_inline] == i) {
      out.push_back(make_token(TokKind::Ident, "inline", t[i]));
      ++next_inline;
    }
    if (!drop[i]) out.push_back(t[i]);
    if (next_insert < inserts.size() && inserts[next_insert].first == i)
      out.push_back(inserts[next_insert++].second);
  }
  t = std::move(out);
}

}  // namespace metalsim::front
