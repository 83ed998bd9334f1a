"""metal_kernel: MLX's mx.fast.metal_kernel on metalsim (mlx_source.py writes the source).

A call turns its inputs into device buffers, generates and compiles the kernel for the inputs'
types and ranks, the output types and the template (once per combination: later calls find it in
a dict), dispatches grid threads (dispatchThreads, the threadgroup clipped to the grid as MLX
does) and returns the outputs as NumPy arrays over the kernel's own buffers.
"""
import numbers

import numpy as np

from . import mlx_source, unwritten
from ._core import borrowable, compile_source, default_device, input_buffer, output_buffer, run
from .dtypes import BFloat16Array, DType, as_dtype, dtype_of_array, SUPPORTED


def _identifier(name, what):
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{what}: {name!r} is not a valid MSL identifier")
    return name


def _size3(value, what):
    """A grid or threadgroup as three positive ints."""
    try:
        dims = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"{what} must be a tuple of 3 ints, not {value!r}") from None
    if len(dims) != 3 or any(d < 1 for d in dims):
        raise ValueError(f"{what} must be 3 positive ints, not {value!r}")
    return dims


def _as_input(value, what):
    """An input as a NumPy array with its DType: arrays and anything with the buffer protocol
    as they are, Python scalars as MLX makes them (int32, float32, bool). A NumPy scalar keeps
    its type."""
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, bool):
        return np.asarray(value, dtype=np.bool_), as_dtype("bool", what)
    if isinstance(value, numbers.Integral) and not isinstance(value, np.ndarray):
        return np.asarray(value, dtype=np.int32), as_dtype("int32", what)
    if isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
        return np.asarray(value, dtype=np.float32), as_dtype("float32", what)
    try:
        array = value if isinstance(value, np.ndarray) else np.asarray(value)
    except Exception as e:
        raise TypeError(f"{what}: {type(value).__name__} is neither an array, a buffer nor a "
                        f"scalar ({e})") from None
    dtype = dtype_of_array(array)
    if dtype is None:
        hint = " (Metal has no double: pass .astype(np.float32))" if array.dtype == np.float64 else ""
        raise TypeError(f"{what}: dtype {array.dtype} is not a type kernels take{hint}; "
                        f"supported: {SUPPORTED}")
    return array, dtype


def _strided_span(array):
    """The array's elements as they lie in memory (for ensure_row_contiguous=False): the span
    from its first to its last element, and its strides in elements. Falls back to a row-major
    copy where the layout cannot be passed as is (negative or unaligned strides)."""
    item = array.itemsize
    if array.size == 0:
        return np.zeros(0, array.dtype), [0] * array.ndim
    if any(s < 0 or s % item for s in array.strides):
        array = np.ascontiguousarray(array)
    count = 1 + sum((n - 1) * (s // item) for n, s in zip(array.shape, array.strides))
    span = np.lib.stride_tricks.as_strided(array, shape=(count,), strides=(item,))
    return np.ascontiguousarray(span), [s // item for s in array.strides]


def _template(template):
    """[(name, int | bool | DType)] from MLX's list of pairs (or a dict)."""
    if template is None:
        return ()
    items = template.items() if isinstance(template, dict) else template
    out = []
    for pair in items:
        name, value = pair
        _identifier(name, "template")
        if not isinstance(value, (bool, int, np.integer)):
            value = as_dtype(value, f"template argument '{name}'")
        elif isinstance(value, np.integer):
            value = int(value)
        out.append((name, value))
    return tuple(out)


class MetalKernel:
    """The callable metal_kernel returns; see metalsim.metal_kernel and docs/python.md."""

    def __init__(self, name, input_names, output_names, source, header="",
                 ensure_row_contiguous=True, atomic_outputs=False, device=None):
        self.name = _identifier(name, "name")
        self.input_names = [_identifier(n, "input_names") for n in input_names]
        self.output_names = [_identifier(n, "output_names") for n in output_names]
        duplicates = {n for n in self.input_names + self.output_names
                      if (self.input_names + self.output_names).count(n) > 1}
        if duplicates:
            raise ValueError(f"metal_kernel '{name}': names used twice: {sorted(duplicates)}")
        self.source = source
        self.header = header
        self.ensure_row_contiguous = ensure_row_contiguous
        self.atomic_outputs = atomic_outputs
        self.device = device or default_device
        self._use = mlx_source.body_use(source, self.input_names)
        self._plans = {}  # (input types and ranks, output types, template) -> (pipeline, Generated)

    # ------------------------------ arguments
    def _inputs(self, inputs):
        if isinstance(inputs, dict):
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError(f"kernel '{self.name}': missing inputs {missing}")
            inputs = [inputs[n] for n in self.input_names]
        inputs = list(inputs)
        if len(inputs) != len(self.input_names):
            missing = self.input_names[len(inputs):]
            raise ValueError(
                f"kernel '{self.name}' takes {len(self.input_names)} inputs "
                f"({', '.join(self.input_names)}), got {len(inputs)}"
                + (f": missing {missing}" if missing else ""))
        return [_as_input(v, f"inputs[{i}] ('{self.input_names[i]}')")
                for i, v in enumerate(inputs)]

    def _outputs(self, output_shapes, output_dtypes):
        count = len(self.output_names)
        if output_shapes is None or len(output_shapes) != count:
            raise ValueError(f"kernel '{self.name}': output_shapes needs {count} shapes (for "
                             f"{', '.join(self.output_names)}), got {output_shapes!r}")
        if output_dtypes is None or len(output_dtypes) != count:
            raise ValueError(f"kernel '{self.name}': output_dtypes needs {count} types (for "
                             f"{', '.join(self.output_names)}), got {output_dtypes!r}")
        shapes = []
        for i, shape in enumerate(output_shapes):
            what = f"output_shapes[{i}] ('{self.output_names[i]}')"
            shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
            if any(not isinstance(n, numbers.Integral) or n < 0 for n in shape):
                raise ValueError(f"{what}: {shape!r} is not a shape of non-negative ints")
            shapes.append(tuple(int(n) for n in shape))
        dtypes = [as_dtype(d, f"output_dtypes[{i}] ('{self.output_names[i]}')")
                  for i, d in enumerate(output_dtypes)]
        return shapes, dtypes

    # ------------------------------ compile once per combination
    def _plan(self, in_dtypes, in_ndims, out_dtypes, template):
        key = (tuple(d.name for d in in_dtypes), tuple(in_ndims),
               tuple(d.name for d in out_dtypes), template)
        plan = self._plans.get(key)
        if plan is None:
            generated = mlx_source.generate(
                self.name, self.source, self.header, self.input_names,
                [d.msl for d in in_dtypes], in_ndims, self.output_names,
                [d.msl for d in out_dtypes], template, self.atomic_outputs, self._use)
            library = compile_source(generated.source)
            plan = (library.pipeline(generated.host_name), generated)
            self._plans[key] = plan
        return plan

    def full_source(self, inputs, output_dtypes, template=None):
        """The generated source for these inputs, output types and template (what verbose=True
        prints, without line numbers)."""
        arrays = self._inputs(inputs)
        dtypes = [as_dtype(d, "output_dtypes") for d in output_dtypes]
        return mlx_source.generate(
            self.name, self.source, self.header, self.input_names,
            [d.msl for _, d in arrays], [a.ndim for a, _ in arrays], self.output_names,
            [d.msl for d in dtypes], _template(template), self.atomic_outputs, self._use).source

    # ------------------------------ the call
    def __call__(self, inputs, output_shapes=None, output_dtypes=None, grid=None,
                 threadgroup=None, template=None, init_value=None, verbose=False, stream=None,
                 checks=None, mode=None, schedule=None, workers=None, watchdog=None,
                 zero_copy=None):
        arrays = self._inputs(inputs)
        shapes, out_dtypes = self._outputs(output_shapes, output_dtypes)
        grid = _size3(grid, f"kernel '{self.name}': grid")
        group = _size3(threadgroup, f"kernel '{self.name}': threadgroup")
        group = tuple(min(t, g) for t, g in zip(group, grid))  # as MLX: never wider than the grid
        template = _template(template)
        pipeline, generated = self._plan([d for _, d in arrays], [a.ndim for a, _ in arrays],
                                         out_dtypes, template)
        if verbose:
            print(mlx_source.listing(generated, self.name))
        options = self.device.options(checks, mode, schedule, workers, watchdog)
        borrow = self.device.borrows(options, zero_copy)

        def dispatch(poison):
            return run(pipeline,
                       lambda: self._bind(generated.arguments, arrays, shapes, out_dtypes,
                                          init_value, poison, borrow),
                       grid, group, options, generated.source,
                       names=(f"{self.name}.metal", f"{self.name}.header.metal"))

        outputs = dispatch(unwritten.POISON)
        if init_value is None and "init" in options.checks.split(","):
            unwritten.check(pipeline.name, [a for a in generated.arguments if a.role == "output"],
                            outputs, lambda: dispatch(unwritten.SECOND_POISON), generated.source)
        return outputs

    def _bind(self, arguments, arrays, shapes, out_dtypes, init_value, poison, borrow):
        buffers, bytes_args, outputs = [], [], []
        strides = {}
        for arg in arguments:
            if arg.role == "input":
                array, _ = arrays[arg.owner]
                if self.ensure_row_contiguous or array.flags.c_contiguous:
                    data = np.ascontiguousarray(array)
                    if f"{arg.name}_strides" in self._use.shape_args:
                        strides[arg.owner] = [s // data.itemsize for s in data.strides]
                else:
                    data, strides[arg.owner] = _strided_span(array)
                buffers.append((arg.index, input_buffer(data, arg.name,
                                                        borrow and borrowable(data))))
            elif arg.role == "scalar":
                bytes_args.append((arg.index, np.ascontiguousarray(arrays[arg.owner][0]).tobytes()))
            elif arg.role in ("shape", "strides", "ndim"):
                bytes_args.append((arg.index, self._shape_bytes(arg, arrays, strides)))
            else:
                buffers.append((arg.index, self._output(arg, shapes, out_dtypes, init_value,
                                                        poison, outputs)))
        return buffers, bytes_args, outputs

    @staticmethod
    def _shape_bytes(arg, arrays, strides):
        array, _ = arrays[arg.owner]
        if arg.role == "ndim":
            return np.int32(array.ndim).tobytes()
        if arg.role == "shape":
            return np.array(array.shape or (0,), dtype=np.int32).tobytes()
        element_strides = strides.get(arg.owner)
        if element_strides is None:  # a 0-d input: no strides to speak of
            element_strides = [s // max(array.itemsize, 1) for s in array.strides]
        return np.array(element_strides or [0], dtype=np.int64).tobytes()

    @staticmethod
    def _output(arg, shapes, out_dtypes, init_value, poison, outputs):
        dtype = out_dtypes[arg.owner]
        buffer, array = output_buffer(shapes[arg.owner], dtype.numpy, arg.name)
        if init_value is not None:
            array[...] = init_value
        else:
            # MLX leaves outputs uninitialised; a poison (NaN in floats) makes an element the
            # kernel never wrote stand out instead of reading as a plausible 0 (unwritten.py).
            array.view(np.uint8)[...] = poison
        if dtype.name == "bfloat16":
            array = array.view(BFloat16Array)
        outputs.append(array)
        return buffer
