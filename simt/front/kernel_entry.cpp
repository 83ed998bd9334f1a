// The C++ generated after each kernel: an entry that binds the arguments and walks the lanes,
// the reflection table, and the registration (see docs/front.md, "What a kernel becomes").
#include <string>

#include "simt/front/emitter.h"
#include "simt/front/reflection.h"

namespace metalsim::front {
namespace {

const char* kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::DeviceBuffer: return "DeviceBuffer";
    case ArgKind::ConstantBuffer: return "ConstantBuffer";
    case ArgKind::Threadgroup: return "Threadgroup";
    case ArgKind::Builtin: return "Builtin";
    case ArgKind::Texture: return "Texture";
    case ArgKind::Sampler: return "Sampler";
  }
  return "DeviceBuffer";
}

std::string arg_info(const KernelArg& a, size_t position) {
  std::string name = a.name.empty() ? "arg" + std::to_string(position) : a.name;
  std::string s =
      "{.name = " + c_string(name) + ", .kind = ::metalsim::abi::ArgKind::" + kind_name(a.kind);
  s += ", .index = " +
       (a.kind == ArgKind::Builtin ? std::string("0") : "static_cast<uint32_t>(" + a.index + ")");
  s += ", .type = " + c_string(a.type);
  s += std::string(", .is_const = ") + (a.is_const ? "true" : "false");
  s += std::string(", .is_reference = ") + (a.is_reference ? "true" : "false");
  s += ", .element_size = ::metalsim::generated::element_size<" + a.element_type + ">()";
  s += ", .element_align = ::metalsim::generated::element_align<" + a.element_type + ">()";
  if (a.kind == ArgKind::Builtin) s += ", .builtin = ::metalsim::abi::Builtin::" + a.builtin;
  if (a.kind == ArgKind::Texture)
    s += ", .texture = ::std::remove_cvref_t<" + a.type + ">::ms_reflection";
  if (!a.active_if.empty())
    s += ", .active = []() -> bool { return static_cast<bool>(" + a.active_if + "); }";
  return s + "}";
}

// A texture or sampler object, made from the dispatch's binding. A texture knows its index
// (bounds.texture names it) and, in the lane body, its lane (`lane`).
std::string bind_resource(const KernelArg& a, const std::string& var, const std::string& lane) {
  std::string type = "::std::remove_cvref_t<" + a.type + ">";
  if (a.kind == ArgKind::Sampler)
    return "    " + type + " " + var + "(ms_a.samplers[" + a.index + "]);\n";
  return "    " + type + " " + var + "(ms_a.textures[" + a.index + "], static_cast<uint32_t>(" +
         a.index + "), " + lane + ");\n";
}

// `lane`: the lane a texture reports, "ms_lane" in the lane body; the entry's fibers know their
// own lane.
std::string bind_arg(const KernelArg& a, size_t i, const std::string& lane) {
  std::string var = "ms_p" + std::to_string(i);
  if (a.kind == ArgKind::Builtin) return "";
  if (a.kind == ArgKind::Texture || a.kind == ArgKind::Sampler) return bind_resource(a, var, lane);
  std::string table = a.kind == ArgKind::Threadgroup ? "threadgroup" : "buffers";
  std::string cast = "static_cast<" + a.element_type + "*>(ms_a." + table + "[" + a.index + "])";
  return "    " + std::string(a.is_reference ? "auto& " : "auto* ") + var + " = " +
         (a.is_reference ? "*" : "") + cast + ";\n";
}

// `value`: how the lane's built-ins are read, "ms_c.value(" in the entry (the cursor's lane) or
// "ms_s.value(" in the lane body (the state, for lane ms_lane).
std::string pass_arg(const KernelArg& a, size_t i, const std::string& value,
                     const std::string& lane) {
  if (a.kind != ArgKind::Builtin) return "ms_p" + std::to_string(i);
  return "::metalsim::generated::builtin_cast<" + a.element_type + ", " + a.builtin_scalar + ", " +
         std::to_string(a.builtin_components) + ">(" + value +
         "::metalsim::abi::Builtin::" + a.builtin + lane + "))";
}

// The lane body (lane_loops.h): the same bindings and call as the entry, for one lane whose
// built-ins come from the state. The lane-loop pass finds it by its annotation and builds the
// kernel's lane loops from it; KernelInfo::lane_body's reference is what makes clang emit it.
std::string lane_body_code(const KernelDecl& k, const std::string& callee) {
  std::string s = "  [[clang::annotate(\"metalsim.lanes.body\")]]\n";
  // Constant memory is read only for the whole dispatch (MSL 4.2): the lane-loop pass may read a
  // value there again after a sync point instead of keeping it per lane (simt/lanes/remat.h).
  for (const KernelArg& a : k.args)
    if (a.kind == ArgKind::ConstantBuffer)
      s += "  [[clang::annotate(\"metalsim.lanes.constant_buffer\", static_cast<int>(" + a.index +
           "))]]\n";
  s += "  static void lane_body(const ::metalsim::abi::BoundArgs& ms_a, "
       "const ::metalsim::engine::LaneLoopState& ms_s, uint32_t ms_lane) {\n";
  s += "    (void)ms_a;\n    (void)ms_s;\n    (void)ms_lane;\n";
  std::string call = callee + "(";
  for (size_t i = 0; i < k.args.size(); ++i) {
    s += bind_arg(k.args[i], i, "ms_lane");
    call += (i ? ", " : "") + pass_arg(k.args[i], i, "ms_s.value(", ", ms_lane");
  }
  return s + "    " + call + ");\n  }\n";
}

std::string threadgroup_bytes(const KernelDecl& k) {
  std::string s = "::metalsim::generated::threadgroup_bytes({";
  bool first = true;
  for (const ThreadgroupVariable& v : k.threadgroup_variables) {
    if (!v.static_size) continue;
    s += first ? "" : ", ";
    s += "{sizeof(" + v.type + "), alignof(" + v.type + ")}";
    first = false;
  }
  return s + "})";
}

// How an instance names a kernel template's entry struct: through overload resolution, so that
// overloaded kernel templates (MLX's two block_masked_gemm) each reach their own.
//   ms_kernel_pick_f<float, 4>() : instances that name the template arguments,
//     `decltype(ms_kernel_pick_f<float, 4>())`;
//   ms_kernel_deduce_f(void (*)(params)) : instances that let the parameter types decide them
//     (MLX's conv.metal: `template [[host_name("...")]] [[kernel]] void naive_unfold_Nd(const
//     device float* in [[buffer(0)]], ...);`), `decltype(ms_kernel_deduce_f(static_cast<void
//     (*)(const float*, ...)>(nullptr)))`.
// Declarations only: they are named in decltype, never called.
std::string deduction_code(const KernelDecl& k, const std::string& callee) {
  std::string entry = k.entry_struct + callee.substr(k.name.size());
  std::string head = "template <" + k.template_params + ">\n";
  return head + entry + " ms_kernel_pick_" + k.name + "();\n" + head + entry +
         " ms_kernel_deduce_" + k.name + "(void (*)(" + k.erased_params + "));\n";
}

}  // namespace

std::string kernel_entry_code(const KernelDecl& k, const std::string& file_name) {
  std::string s;
  std::string callee = k.name;
  if (k.is_template) {
    s += "template <" + k.template_params + ">\n";
    callee += "<";
    for (size_t i = 0; i < k.template_arg_names.size(); ++i)
      callee += (i ? ", " : "") + k.template_arg_names[i];
    callee += ">";
  }
  s += "struct " + k.entry_struct + " {\n";
  // The mark by which the access-check pass finds the entry to copy into the kernel's fast
  // variant (simt/instrument/fast_variant.h).
  s += "  [[clang::annotate(\"metalsim.kernel.entry\")]]\n";
  s += "  static void entry(const ::metalsim::abi::BoundArgs& ms_a, "
       "::metalsim::abi::LaneCursor& ms_c) {\n";
  if (k.args.empty() || k.args.size() == 0) s += "    (void)ms_a;\n";
  std::string call = callee + "(";
  for (size_t i = 0; i < k.args.size(); ++i) {
    s += bind_arg(k.args[i], i, "::metalsim::abi::kUnknownLane");
    call += (i ? ", " : "") + pass_arg(k.args[i], i, "ms_c.value(", "");
  }
  s += "    while (ms_c.next()) " + call + ");\n  }\n";
  s += lane_body_code(k, callee);
  if (!k.args.empty()) {
    s += "  static constexpr ::metalsim::abi::ArgInfo ms_args[] = {\n";
    for (size_t i = 0; i < k.args.size(); ++i) s += "      " + arg_info(k.args[i], i) + ",\n";
    s += "  };\n";
  }
  s += "  static ::metalsim::abi::KernelInfo info(const char* ms_name) {\n";
  s += "    return {.name = ms_name, .source_file = " + c_string(file_name) +
       ", .source_line = " + std::to_string(k.line);
  s += std::string(", .args = ") + (k.args.empty() ? "{}" : "ms_args");
  s += ", .entry = &entry, .static_threadgroup_bytes = " + threadgroup_bytes(k);
  s += ", .max_total_threads_per_threadgroup = " +
       (k.max_total_threads.empty() ? std::string("0")
                                    : "static_cast<uint32_t>(" + k.max_total_threads + ")");
  s += ", .function_constants = ::ms_function_constants(), .lane_body = &lane_body};\n  }\n};\n";
  if (!k.is_template)
    s += kernel_instance_code(k.host_name, k.entry_struct, "ms_inst_" + k.name) + "\n";
  else s += deduction_code(k, callee);
  return s;
}

std::string kernel_instance_code(const std::string& host_name_expr,
                                 const std::string& kernel_struct, const std::string& unique) {
  // The entry struct as a type argument, so that an instance the library's KERNELS list leaves
  // out never instantiates it (generated_code.h, SelectedKernelInstance).
  return "static const ::metalsim::generated::SelectedKernelInstance<"
         "::metalsim::generated::kernel_selected(" +
         host_name_expr + ")> " + unique + "{std::type_identity<" + kernel_struct + ">{}, " +
         host_name_expr + "};";
}

}  // namespace metalsim::front
