"""The element types kernels take: NumPy's dtype, MSL's spelling, the name MLX gives it.

NumPy has no bfloat16: a bfloat16 array is a NumPy uint16 array of the bits, marked as
bfloat16 by the BFloat16Array subclass (made by `bfloat16_array`, turned back into float32 by
`BFloat16Array.to_float32()` or `to_float32`).
"""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    name: str          # what the user writes: "float32", "bfloat16", ...
    numpy: np.dtype    # the storage NumPy holds (uint16 for bfloat16)
    msl: str           # MLX's spelling in generated signatures (float16_t, int32_t, ...)


_TABLE = [
    DType("float32", np.dtype(np.float32), "float"),
    DType("float16", np.dtype(np.float16), "float16_t"),
    DType("bfloat16", np.dtype(np.uint16), "bfloat16_t"),
    DType("int32", np.dtype(np.int32), "int32_t"),
    DType("uint32", np.dtype(np.uint32), "uint32_t"),
    DType("int16", np.dtype(np.int16), "int16_t"),
    DType("uint16", np.dtype(np.uint16), "uint16_t"),
    DType("int8", np.dtype(np.int8), "int8_t"),
    DType("uint8", np.dtype(np.uint8), "uint8_t"),
    DType("bool", np.dtype(np.bool_), "bool"),
    DType("int64", np.dtype(np.int64), "int64_t"),
    DType("uint64", np.dtype(np.uint64), "uint64_t"),
]
BY_NAME = {d.name: d for d in _TABLE}
bfloat16 = BY_NAME["bfloat16"]
# NumPy dtypes to ours; uint16 means uint16 (a bfloat16 array says so by its class).
_BY_NUMPY = {d.numpy: d for d in _TABLE if d.name != "bfloat16"}

SUPPORTED = ", ".join(BY_NAME)


class BFloat16Array(np.ndarray):
    """A NumPy uint16 array holding bfloat16 bits; kernels see `bfloat16_t`."""

    def __array_finalize__(self, obj):
        pass

    def to_float32(self):
        return to_float32(self)


def bfloat16_array(values):
    """bfloat16 bits of `values` (rounded to nearest even), as a BFloat16Array."""
    f = np.ascontiguousarray(values, dtype=np.float32)
    bits = f.view(np.uint32)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    rounded = ((bits + rounding) >> 16).astype(np.uint16)
    rounded = np.where(np.isnan(f), np.uint16(0x7FC0), rounded)
    return rounded.view(BFloat16Array)


def to_float32(bits):
    """The float32 values of bfloat16 bits (a BFloat16Array or uint16 array)."""
    u = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return u.view(np.float32)


def dtype_of_array(array):
    """Our DType of a NumPy array, or None when kernels cannot take its type."""
    if isinstance(array, BFloat16Array):
        return bfloat16
    return _BY_NUMPY.get(array.dtype)


def as_dtype(value, what):
    """Our DType of `value`: a DType, a name ("float16"), a NumPy dtype or type, or
    metalsim.bfloat16. TypeError naming `what` otherwise."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in BY_NAME:
        return BY_NAME[value]
    try:
        found = _BY_NUMPY.get(np.dtype(value))
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"{what}: {value!r} is not a type kernels take (supported: {SUPPORTED})")
    return found
