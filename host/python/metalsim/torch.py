"""compile_shader: PyTorch's torch.mps.compile_shader on metalsim.

    lib = metalsim.compile_shader(source)     # every kernel of the source
    lib.fill(out, 3.0)                        # out is written in place, as a tensor would be
    lib.fill(out, 3.0, threads=n, group_size=64)

threads (an int or up to 3 ints; default: the first array's size) is the grid in threads
(dispatchThreads); group_size (default: as many of them as one threadgroup may hold) the
threadgroup.
"""
import numbers

import numpy as np

from . import torch_args
from ._core import borrowable, compile_source, default_device, input_buffer, run


def _size3(value, what):
    dims = (value,) if isinstance(value, numbers.Integral) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(not isinstance(d, numbers.Integral) or d < 1 for d in dims):
        raise ValueError(f"{what} must be a positive int or up to 3 of them, not {value!r}")
    return tuple(int(d) for d in dims) + (1,) * (3 - len(dims))


class ShaderKernel:
    """One kernel of a ShaderLibrary, called with its [[buffer(i)]] arguments in order."""

    def __init__(self, pipeline, source, device):
        self._pipeline = pipeline
        self._source = source
        self._device = device
        self.name = pipeline.name
        self._args = {a["index"]: a for a in pipeline.arguments
                      if a["kind"] in ("device", "constant")}
        self.max_total_threads_per_threadgroup = pipeline.max_total_threads_per_threadgroup
        self.thread_execution_width = pipeline.thread_execution_width
        self.static_thread_group_memory_length = pipeline.static_threadgroup_memory_length

    def __call__(self, *args, threads=None, group_size=None, arg_casts=None, checks=None,
                 mode=None, schedule=None, workers=None, watchdog=None, zero_copy=None):
        missing = [torch_args.describe(a) for i, a in self._args.items() if i >= len(args)]
        if missing:
            raise TypeError(f"kernel '{self.name}' misses arguments: {', '.join(missing)}")
        arrays, scalars = {}, {}
        for i, value in enumerate(args):
            arg = self._args.get(i)
            if arg is None:
                raise TypeError(f"argument {i}: kernel '{self.name}' has no [[buffer({i})]]")
            if isinstance(value, np.ndarray) and value.ndim > 0:
                torch_args.check_array(i, value, arg)
                arrays[i] = value
            else:
                cast = (arg_casts or {}).get(i)
                scalars[i] = torch_args.scalar_bytes(i, value, arg, cast)
        first = next(iter(arrays.values()), None)
        grid = _size3(threads if threads is not None else (first.size if first is not None else 1),
                      f"kernel '{self.name}': threads")
        if group_size is None:
            group_size = min(grid[0], self.max_total_threads_per_threadgroup)
        group = _size3(group_size, f"kernel '{self.name}': group_size")
        options = self._device.options(checks, mode, schedule, workers, watchdog)
        borrow = self._device.borrows(options, zero_copy)
        written = run(self._pipeline, lambda: self._bind(arrays, scalars, borrow), grid, group,
                      options, self._source)
        # Copies are written back in place, as with tensors: only once the kernel has run
        # without a report. A borrowed array was written by the kernel itself.
        for array, buffer in written:
            array[...] = np.frombuffer(buffer, dtype=array.dtype,
                                       count=array.size).reshape(array.shape)

    def _bind(self, arrays, scalars, borrow):
        """Buffers for the arrays: the arrays' own memory when `borrow` and their layout allows
        (_core.borrowable), else copies (see py_buffer.h for why); the scalars' bytes; and the
        (array, copy) pairs to write back, of the copies the kernel writes."""
        buffers, written = [], []
        for i, array in arrays.items():
            arg = self._args[i]
            writes = arg["kind"] == "device" and not arg["is_const"]
            if borrow and borrowable(array, writes):
                buffers.append((i, input_buffer(array, arg["name"], True, writes)))
                continue
            buffer = input_buffer(np.ascontiguousarray(array), arg["name"])
            buffers.append((i, buffer))
            if writes:
                written.append((array, buffer))
        return buffers, list(scalars.items()), written


class ShaderLibrary:
    """What compile_shader returns: each kernel of the source as an attribute."""

    def __init__(self, source, device=None):
        self._device = device or default_device
        self._source = source
        self._library = compile_source(source)
        self._names = list(self._library.function_names())
        self._kernels = {}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        kernel = self._kernels.get(name)
        if kernel is None:
            if name not in self._names:
                raise AttributeError(f"no kernel '{name}' in the library (it has: "
                                     f"{', '.join(self._names)})")
            kernel = ShaderKernel(self._library.pipeline(name), self._source, self._device)
            self._kernels[name] = kernel
        return kernel

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._names))
