"""Binding compile_shader's positional arguments to a kernel's [[buffer(i)]] arguments.

As PyTorch binds them: the i-th argument is [[buffer(i)]]. An array binds to a pointer argument;
a scalar to a `constant T&` (or `constant T*`) argument, packed as the kernel declares T (the
front's reflection knows it: no arg_casts needed, though arg_casts= is honoured).
"""
import numbers

import numpy as np

from .dtypes import as_dtype, dtype_of_array

# MSL scalar type names (as the front reflects them) to NumPy.
_SCALAR_TYPES = {
    "float": np.float32, "half": np.float16, "bfloat": np.uint16,
    "int": np.int32, "uint": np.uint32, "unsigned int": np.uint32, "int32_t": np.int32,
    "uint32_t": np.uint32, "short": np.int16, "ushort": np.uint16, "int16_t": np.int16,
    "uint16_t": np.uint16, "char": np.int8, "uchar": np.uint8, "int8_t": np.int8,
    "uint8_t": np.uint8, "bool": np.bool_, "long": np.int64, "ulong": np.uint64,
    "int64_t": np.int64, "uint64_t": np.uint64, "size_t": np.uint64,
}


def element_type(arg):
    """The NumPy type of a reflected argument's element, or None for a struct or vector."""
    words = [w for w in arg["type"].replace("*", " ").replace("&", " ").split()
             if w not in ("const", "device", "constant", "volatile", "metal::")]
    name = " ".join(words).replace("metal::", "")
    found = _SCALAR_TYPES.get(name)
    return np.dtype(found) if found is not None else None


def describe(arg):
    return f"'{arg['name']}' [[buffer({arg['index']})]] ({arg['type']})"


def check_array(i, array, arg):
    """TypeError naming the argument when an array cannot bind to it."""
    if arg["is_reference"]:
        raise TypeError(f"argument {i} is an array but the kernel's {describe(arg)} is a single "
                        f"value: pass a scalar")
    if dtype_of_array(array) is None:
        raise TypeError(f"argument {i} (for {describe(arg)}): dtype {array.dtype} is not a type "
                        f"kernels take")
    want = element_type(arg)
    if want is not None and want != array.dtype:
        raise TypeError(f"argument {i} has dtype {array.dtype} but the kernel's {describe(arg)} "
                        f"holds {want}")
    if want is None and arg["element_size"] and array.nbytes % arg["element_size"]:
        raise TypeError(f"argument {i}: {array.nbytes} bytes are not a whole number of the "
                        f"kernel's {describe(arg)} elements of {arg['element_size']} bytes")
    if arg["kind"] == "device" and not arg["is_const"] and not array.flags.writeable:
        raise ValueError(f"argument {i} is read-only but the kernel writes {describe(arg)}")


def scalar_bytes(i, value, arg, cast):
    """The bytes of a scalar for a `constant T&` argument."""
    if arg["kind"] == "device" and not arg["is_const"]:
        raise TypeError(f"argument {i} is a scalar but the kernel's {describe(arg)} is written "
                        f"by the kernel: pass an array")
    want = as_dtype(cast, f"arg_casts[{i}]").numpy if cast is not None else element_type(arg)
    if want is None:
        raise TypeError(f"argument {i} is a scalar but the kernel's {describe(arg)} is not a "
                        f"scalar type: pass an array of its bytes")
    if isinstance(value, numbers.Real) and want.kind in "iub" and value != int(value):
        raise TypeError(f"argument {i}: {value!r} is not a whole number, but {describe(arg)} "
                        f"is an integer")
    return np.asarray(value).astype(want).tobytes()
