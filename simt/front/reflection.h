#pragma once
// What the front reads from kernel signatures: the reflection table it emits as
// metalsim::abi::KernelInfo, and the C++ it generates to bind arguments.
#include <string>
#include <vector>

#include "simt/front/lexer.h"

namespace metalsim::front {

enum class ArgKind { DeviceBuffer, ConstantBuffer, Threadgroup, Builtin, Texture, Sampler };

struct KernelArg {
  std::string name;  // as declared ("" when unnamed)
  ArgKind kind = ArgKind::DeviceBuffer;
  std::string index;  // N of [[buffer(N)]], [[threadgroup(N)]], [[texture(N)]], [[sampler(N)]]
  bool implicit_index = false;  // a buffer without [[buffer(N)]]: the lowest free index
  std::string type;             // as written: "device const half*"
  std::string element_type;     // C++ pointee (or the built-in's type): "const half"
  bool is_const = false;
  bool is_reference = false;
  std::string builtin;         // kind == Builtin: the attribute name
  int builtin_components = 0;  // 1, 2 or 3: from the declared type name (uint3 -> 3)
  std::string builtin_scalar;  // uint3 -> uint
  std::string active_if;       // [[function_constant(c)]]: c, the argument exists while true
};

struct ThreadgroupVariable {
  std::string name;
  std::string type;  // the C++ type of the whole variable: "float[256]"
  int line = 0;
  bool static_size = true;  // false: its type names kernel-local declarations
};

struct KernelDecl {
  std::string name;       // function name
  std::string host_name;  // [[host_name("...")]] on a non-template kernel, else name
  int file = 0;
  int line = 0;
  bool is_template = false;
  std::string template_params;  // "typename T, int N = 4" (text inside template<...>)
  std::vector<std::string> template_arg_names;  // T, N
  std::string erased_params;  // the parameter list as C++: "const T* in, uint3 gid"
  std::string entry_struct;   // "ms_kernel_f"; "ms_kernel_f_o2" for the 2nd template named f
  std::vector<KernelArg> args;
  std::string max_total_threads;                           // expression, "" when absent
  std::vector<ThreadgroupVariable> threadgroup_variables;  // declared directly in its body
};

struct FunctionConstantDecl {
  std::string name;
  std::string index;  // expression
  std::string type;
  int file = 0;
  int line = 0;
};

// Parses the kernel declared by tokens [head, close_paren]: `head` is the first token of the
// declaration, `name_at` the function name. Throws FrontError on unsupported parameters.
KernelDecl parse_kernel_signature(const Tokens& t, size_t head, size_t name_at);

// The generated C++ after a kernel's body: the entry struct (a template for a template
// kernel) and, for a plain kernel, its registration.
std::string kernel_entry_code(const KernelDecl& k, const std::string& file_name);

// Registration of one instance: `kernel_struct` is e.g. "ms_kernel_f<float>".
std::string kernel_instance_code(const std::string& host_name_expr,
                                 const std::string& kernel_struct, const std::string& unique);

}  // namespace metalsim::front
