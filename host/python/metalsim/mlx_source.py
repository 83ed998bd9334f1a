"""The full MSL of an MLX-style kernel: the signature MLX would generate around the user's body.

    [prelude: metal_stdlib, MLX's type names, elem_to_loc]
    [#line 1 "NAME.header.metal"] header
    template <typename T, int N, ...>             (when template= is given)
    [[kernel]] void custom_kernel_NAME(
      const device T0* in0 [[buffer(0)]],         inputs in order; 0-d: const constant T0& in0
      const constant int* in0_shape [[buffer(1)]],    ... _shape/_strides/_ndim when the body
      const constant int64_t* in0_strides [[buffer(2)]],  names them
      const constant int& in0_ndim [[buffer(3)]],
      device U0* out0 [[buffer(4)]],              outputs (device atomic<U0>* with atomic_outputs)
      uint3 thread_position_in_grid [[thread_position_in_grid]], ...   attributes the body names
    ) {
    #line 1 "NAME.metal"
    body
    #line N "program_source"
    }
    template [[host_name("custom_kernel_NAME_float_3")]] [[kernel]]
        decltype(custom_kernel_NAME<float, 3>) custom_kernel_NAME<float, 3>;

The #line directives make compile errors and check reports name the line of the user's body
(line 1 is the first line of the `source` string) or header; the wrapper's own lines keep their
line numbers in the generated text ("program_source", Metal's name for a source string).
"""
import re
from dataclasses import dataclass

# The thread attributes a body may name, with the type MLX declares them as.
ATTRIBUTES = [
    ("thread_position_in_grid", "uint3"),
    ("threads_per_grid", "uint3"),
    ("thread_position_in_threadgroup", "uint3"),
    ("threads_per_threadgroup", "uint3"),
    ("threadgroup_position_in_grid", "uint3"),
    ("threadgroups_per_grid", "uint3"),
    ("thread_index_in_threadgroup", "uint"),
    ("thread_index_in_simdgroup", "uint"),
    ("simdgroup_index_in_threadgroup", "uint"),
    ("simdgroups_per_threadgroup", "uint"),
    ("threads_per_simdgroup", "uint"),
    ("thread_execution_width", "uint"),
    ("thread_index_in_quadgroup", "uint"),
    ("quadgroup_index_in_threadgroup", "uint"),
    ("quadgroups_per_threadgroup", "uint"),
]

# What MLX's kernels see besides metal_stdlib: its type names and elem_to_loc (the element's
# offset in a strided array), written here from their documented meaning.
PRELUDE = """#include <metal_stdlib>
using namespace metal;
typedef half float16_t;
typedef bfloat bfloat16_t;

template <typename IdxT = int64_t>
inline IdxT elem_to_loc(IdxT elem, constant const int* shape, constant const int64_t* strides,
                        int ndim) {
  IdxT loc = 0;
  for (int i = ndim - 1; i >= 0 && elem > 0; --i) {
    loc += (elem % shape[i]) * IdxT(strides[i]);
    elem /= shape[i];
  }
  return loc;
}
"""


def _words(text):
    """The identifiers of `text`: what decides which optional arguments the signature gets."""
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


@dataclass(frozen=True)
class BodyUse:
    """What a body names: decided once per kernel, not per call."""
    attributes: tuple      # (name, type) of the attributes used, in ATTRIBUTES order
    shape_args: frozenset  # "inp_shape", "inp_strides", "inp_ndim", ... that appear


def body_use(source, input_names):
    words = _words(source)
    attributes = tuple(a for a in ATTRIBUTES if a[0] in words)
    wanted = {f"{n}_{s}" for n in input_names for s in ("shape", "strides", "ndim")}
    return BodyUse(attributes, frozenset(wanted & words))


@dataclass(frozen=True)
class Argument:
    """A buffer argument of the signature, in [[buffer(index)]] order."""
    name: str
    index: int
    role: str   # "input", "scalar" (0-d input), "shape", "strides", "ndim", "output"
    owner: int  # the input's or output's position


def _template_text(value):
    """A template value as MSL writes it, and as the kernel's host name spells it."""
    if isinstance(value, bool):
        return ("true" if value else "false"), ("true" if value else "false")
    if isinstance(value, int):
        return str(value), str(value).replace("-", "n")
    return value.msl, value.name  # a DType


def signature_arguments(input_names, input_ndims, output_names, use):
    """The buffer arguments in index order: each input and the shape arguments the body names
    for it, then the outputs."""
    args = []
    for i, name in enumerate(input_names):
        args.append(Argument(name, len(args), "scalar" if input_ndims[i] == 0 else "input", i))
        for suffix in ("shape", "strides", "ndim"):
            if f"{name}_{suffix}" in use.shape_args:
                args.append(Argument(f"{name}_{suffix}", len(args), suffix, i))
    for o, name in enumerate(output_names):
        args.append(Argument(name, len(args), "output", o))
    return args


def _declaration(arg, input_types, output_types, atomic_outputs):
    if arg.role == "input":
        return f"const device {input_types[arg.owner]}* {arg.name}"
    if arg.role == "scalar":
        return f"const constant {input_types[arg.owner]}& {arg.name}"
    if arg.role == "shape":
        return f"const constant int* {arg.name}"
    if arg.role == "strides":
        return f"const constant int64_t* {arg.name}"
    if arg.role == "ndim":
        return f"const constant int& {arg.name}"
    t = output_types[arg.owner]
    return f"device atomic<{t}>* {arg.name}" if atomic_outputs else f"device {t}* {arg.name}"


@dataclass(frozen=True)
class Generated:
    source: str       # the full MSL
    host_name: str    # the kernel's name in the library
    arguments: tuple  # Argument, in index order
    body_first_line: int  # the generated line holding the body's line 1 (for verbose listings)


def generate(name, body, header, input_names, input_types, input_ndims, output_names,
             output_types, template, atomic_outputs, use):
    """The full source of one instantiation. input_types/output_types: MSL type names;
    template: [(name, int | bool | DType)]."""
    function = f"custom_kernel_{name}"
    host_name = function + "".join("_" + _template_text(v)[1] for _, v in template)
    args = signature_arguments(input_names, input_ndims, output_names, use)
    lines = PRELUDE.rstrip("\n").split("\n")
    if header:
        lines.append(f'#line 1 "{name}.header.metal"')
        lines += header.split("\n")
        lines.append(f'#line {len(lines) + 2} "program_source"')
    if template:
        params = ", ".join(("typename " if not isinstance(v, (bool, int)) else
                            ("bool " if isinstance(v, bool) else "int ")) + n for n, v in template)
        lines.append(f"template <{params}>")
    decls = [_declaration(a, input_types, output_types, atomic_outputs) + f" [[buffer({a.index})]]"
             for a in args]
    decls += [f"{t} {n} [[{n}]]" for n, t in use.attributes]
    lines.append(f"[[kernel]] void {function}(")
    lines += ["    " + d + ("," if i + 1 < len(decls) else ") {") for i, d in enumerate(decls)]
    if not decls:
        lines[-1] += ") {"
    lines.append(f'#line 1 "{name}.metal"')
    body_first_line = len(lines) + 1
    lines += body.split("\n")
    lines.append(f'#line {len(lines) + 2} "program_source"')
    lines.append("}")
    if template:
        values = ", ".join(_template_text(v)[0] for _, v in template)
        lines.append(f'template [[host_name("{host_name}")]] [[kernel]] '
                     f"decltype({function}<{values}>) {function}<{values}>;")
    return Generated("\n".join(lines) + "\n", host_name, tuple(args), body_first_line)


def listing(generated, name):
    """The source with a gutter of the lines reports name: the body's and header's own line
    numbers, the wrapper's line in program_source. What verbose=True prints."""
    out = []
    file, number = "program_source", 1
    for text in generated.source.split("\n")[:-1]:
        m = re.match(r'#line (\d+)(?: "([^"]*)")?$', text)
        if m:
            out.append(f"{'':>22} | {text}")
            number, file = int(m.group(1)), m.group(2) or file
            continue
        where = f"{file}:{number}" if file != "program_source" else f"{number}"
        out.append(f"{where:>22} | {text}")
        number += 1
    return "\n".join(out)
