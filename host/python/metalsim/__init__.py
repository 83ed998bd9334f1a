"""metalsim: Metal compute kernels on the CPU, with checks, from Python (docs/python.md).

    metalsim.metal_kernel(...)     MLX's mx.fast.metal_kernel: a body, a generated signature
    metalsim.compile_shader(src)   PyTorch's torch.mps.compile_shader: kernels as attributes
    metalsim.Device(checks=...)    default options for the kernels made through it
    metalsim.KernelError           what a failed check raises (BoundsError, RaceError, ...)
"""
import os as _os
import sys as _sys

# Kernels compiled at run time are shared objects that call into the engine linked into
# _metalsim; they find it only if its symbols are global, which Python's default RTLD_LOCAL
# would hide.
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _metalsim  # noqa: F401
finally:
    _sys.setdlopenflags(_flags)

from ._core import Device, default_device  # noqa: E402
from .dtypes import (BFloat16Array, DType, bfloat16, bfloat16_array, to_float32)  # noqa: E402
from .errors import (BarrierError, BoundsError, CompileError, KernelError, RaceError,  # noqa: E402
                     UninitError, ValidationError, WatchdogError)
from .mlx import MetalKernel  # noqa: E402
from .torch import ShaderLibrary  # noqa: E402

float32, float16, int32, uint32 = "float32", "float16", "int32", "uint32"
int8, uint8, int16, uint16, int64, uint64 = "int8", "uint8", "int16", "uint16", "int64", "uint64"
bool_ = "bool"


def metal_kernel(name, input_names, output_names, source, header="", ensure_row_contiguous=True,
                 atomic_outputs=False):
    """A kernel from the body of a Metal function, as MLX's mx.fast.metal_kernel."""
    return default_device.metal_kernel(name, input_names, output_names, source, header,
                                       ensure_row_contiguous, atomic_outputs)


def compile_shader(source):
    """A library of kernels from MSL source, as PyTorch's torch.mps.compile_shader."""
    return default_device.compile_shader(source)


__all__ = [
    "metal_kernel", "compile_shader", "Device", "MetalKernel", "ShaderLibrary", "KernelError",
    "BoundsError", "RaceError", "BarrierError", "UninitError", "WatchdogError",
    "ValidationError", "CompileError", "DType", "bfloat16", "bfloat16_array", "BFloat16Array",
    "to_float32",
]
