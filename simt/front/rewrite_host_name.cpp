// ------------------------------ [[host_name]] instantiations
// `template [[host_name("f_float")]] [[kernel]] decltype(f<float>) f<float>;` (clang and gcc
// reject host_name there) becomes the registration of `ms_kernel_f<float>` (the entry struct
// emitted after the kernel template) under the host name. Inside a #define body (MLX's
// instantiate_kernel) the struct name is pasted, `ms_kernel_ ## func`, and the object gets a
// __COUNTER__ name, so the macro may be expanded many times.
#include "simt/front/diagnostics.h"
#include "simt/front/rewrites.h"
#include "simt/front/token_util.h"

namespace metalsim::front {
namespace {

struct Instance {
  std::string host_name;
  std::string qualifier;  // "ns::" when the template is named qualified
  std::string function;
  std::string template_args;   // "<float, 4>"
  std::string deduced_params;  // no template arguments: the parameter list, as C++
};

// The entry struct of the instance, through the declarations emitted with each kernel template
// (kernel_entry.cpp): `decltype(ms_kernel_pick_f<float, 4>())`, or, when the parameter types
// decide the arguments, `decltype(ms_kernel_deduce_f(static_cast<void (*)(...)>(nullptr)))`.
std::string entry_struct(const Instance& inst, bool macro) {
  std::string pick = macro ? "ms_kernel_pick_ ## " : "ms_kernel_pick_";
  if (inst.deduced_params.empty() && !inst.template_args.empty())
    return "decltype(" + inst.qualifier + pick + inst.function + inst.template_args + "())";
  std::string deduce = macro ? "ms_kernel_deduce_ ## " : "ms_kernel_deduce_";
  return "decltype(" + inst.qualifier + deduce + inst.function + "(static_cast<void (*)(" +
         inst.deduced_params + ")>(nullptr)))";
}

// `template [[host_name("n")]] [[kernel]] void f(const device float* in [[buffer(0)]], ...);`:
// no template arguments, the parameter types decide them (MLX's conv.metal). The entry struct
// is named through the kernel's deduction declaration (kernel_entry.cpp).
bool deduced_instance(const Tokens& t, size_t b, size_t e, Instance& out) {
  size_t open = b;
  while (open < e && !t[open].is("(")) {
    if (is_attribute_start(t, open)) open = attribute_end(t, open) - 1;
    ++open;
  }
  const Token& at = t[b];
  if (open >= e || open == b || !t[open - 1].ident())
    throw FrontError(
        at.file, at.line,
        "[[host_name]] instantiation: expected the kernel template as name<args> or name(params)");
  size_t name = open - 1;
  while (name >= 2 && t[name - 1].is("##") && t[name - 2].ident()) name -= 2;  // pasted in a macro
  out.deduced_params = erased_parameter_list(t, open, match_close(t, open));
  out.function = join(t, name, open);
  return true;
}

bool parse_instance(const Tokens& t, size_t b, size_t e, Instance& out) {
  bool kernel = false;
  size_t k = b + 1;
  while (k < e && is_attribute_start(t, k)) {
    for (const Attribute& a : parse_attributes(t, k)) {
      if (a.name == "host_name") out.host_name = a.args;
      if (a.name == "kernel") kernel = true;
    }
    k = attribute_end(t, k);
  }
  size_t cand = 0, cand_close = 0;
  for (; k < e; ++k) {
    if (t[k].is("kernel")) kernel = true;
    if (is_attribute_start(t, k)) {
      for (const Attribute& a : parse_attributes(t, k)) kernel = kernel || a.name == "kernel";
      k = attribute_end(t, k) - 1;
      continue;
    }
    if (t[k].is("(")) {
      if (cand) break;
      k = match_close(t, k);
      continue;
    }
    if (t[k].ident() && k + 1 < e && t[k + 1].is("<")) {
      cand = k;
      cand_close = match_close(t, k + 1);
      k = cand_close;
    }
  }
  if (!kernel && out.host_name.empty()) return false;  // an ordinary explicit instantiation
  const Token& at = t[b];
  if (out.host_name.empty())
    throw FrontError(at.file, at.line,
                     "explicit instantiation of a kernel needs [[host_name(\"...\")]]");
  if (!cand) return deduced_instance(t, b, e, out);
  // In a #define body the name may be pasted: `binary_op_##bopt<T, U, Op>` (MLX binary.metal).
  size_t name_begin = cand;
  while (name_begin >= 2 && t[name_begin - 1].is("##") && t[name_begin - 2].ident())
    name_begin -= 2;
  size_t q = name_begin;
  while (q >= 2 && t[q - 1].is("::") && t[q - 2].ident()) q -= 2;
  out.qualifier = join(t, q, name_begin);
  out.function = join(t, name_begin, cand + 1);
  out.template_args = join(t, cand + 1, cand_close + 1);
  return true;
}

}  // namespace

void rewrite_host_name_instances(Tokens& t, RewriteContext& ctx) {
  Tokens out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (!(t[i].is("template") && is_attribute_start(t, i + 1))) {
      out.push_back(t[i]);
      continue;
    }
    size_t e = statement_end(t, i);
    if (e >= t.size() || !t[e].is(";"))
      throw FrontError(t[i].file, t[i].line, "explicit instantiation: expected ';'");
    Instance inst;
    if (!parse_instance(t, i, e, inst)) {
      out.push_back(t[i]);
      continue;
    }
    std::string code;
    std::string unique = ctx.macro_body ? "METALSIM_FRONT_CAT(ms_minst_, __COUNTER__)"
                                        : "ms_inst_" + std::to_string(ctx.counter++);
    code = kernel_instance_code(inst.host_name, entry_struct(inst, ctx.macro_body), unique);
    out.push_back(make_token(TokKind::Raw, code, t[i], t[i].space_before));
    i = e;
  }
  t = std::move(out);
}

}  // namespace metalsim::front
