"""metalsim.metal_kernel against NumPy: MLX's documented example, every dtype, strided inputs,
templates, scalars, atomics and init_value, several outputs."""
import numpy as np
import pytest

import metalsim

RNG_SEED = 2026


def rng():
    return np.random.default_rng(RNG_SEED)


def test_mlx_documented_exp_example(metalsim_device):
    # MLX's own example: a float16 input read through a float template type.
    kernel = metalsim_device.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                          source="""
        uint elem = thread_position_in_grid.x;
        T tmp = inp[elem];
        out[elem] = metal::exp(tmp);
    """)
    a = rng().standard_normal((4, 16)).astype(np.float16)
    out = kernel(inputs=[a], template=[("T", np.float32)], grid=(a.size, 1, 1),
                 threadgroup=(256, 1, 1), output_shapes=[a.shape], output_dtypes=[a.dtype])[0]
    assert out.shape == a.shape and out.dtype == np.float16
    # One rounding to half of the float exp: within half an ulp of half, plus float's error.
    np.testing.assert_allclose(out, np.exp(a.astype(np.float64)), rtol=np.finfo(np.float16).eps,
                               atol=0)


def _random_of(dtype, shape):
    if dtype == "bool":
        return rng().integers(0, 2, shape).astype(np.bool_)
    if dtype == "bfloat16":
        return metalsim.bfloat16_array(rng().standard_normal(shape))
    np_type = np.dtype(dtype)
    if np_type.kind == "f":
        return rng().standard_normal(shape).astype(np_type)
    info = np.iinfo(np_type)
    return rng().integers(info.min, info.max, shape, dtype=np_type, endpoint=True)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "uint32", "int8",
                                   "uint8", "int16", "uint16", "bool", "int64", "uint64"])
def test_every_dtype_round_trips_bit_exactly(metalsim_device, dtype):
    kernel = metalsim_device.metal_kernel(
        name="copy", input_names=["inp"], output_names=["out"],
        source="uint i = thread_position_in_grid.x; out[i] = inp[i];")
    a = _random_of(dtype, (3, 37))
    out = kernel(inputs=[a], grid=(a.size, 1, 1), threadgroup=(64, 1, 1),
                 output_shapes=[a.shape], output_dtypes=[dtype])[0]
    assert out.dtype == a.dtype and type(out) is type(a)
    np.testing.assert_array_equal(out.view(np.uint8), a.view(np.uint8))


def test_strided_input_without_a_copy_to_row_major(metalsim_device):
    # ensure_row_contiguous=False: the kernel gets the array as it lies in memory, with its
    # strides, and walks it with elem_to_loc, as MLX kernels do.
    kernel = metalsim_device.metal_kernel(
        name="gather", input_names=["inp"], output_names=["out"], ensure_row_contiguous=False,
        source="""
        uint elem = thread_position_in_grid.x;
        out[elem] = inp[elem_to_loc(elem, inp_shape, inp_strides, inp_ndim)];
    """)
    base = rng().standard_normal((6, 10)).astype(np.float32)
    for view in (base.T, base[::2, 1:], base[:, 3], base[::-1]):
        out = kernel(inputs=[view], grid=(view.size, 1, 1), threadgroup=(32, 1, 1),
                     output_shapes=[(view.size,)], output_dtypes=[np.float32])[0]
        np.testing.assert_array_equal(out, np.ascontiguousarray(view).reshape(-1))


def test_template_values_and_scalar_inputs(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="scale", input_names=["inp", "factor"], output_names=["out"],
        source="""
        uint i = thread_position_in_grid.x;
        out[i] = Negate ? -(inp[i] * factor * N) : inp[i] * factor * N;
    """)
    a = rng().standard_normal(100).astype(np.float32)
    for n, negate in ((3, True), (2, False)):
        out = kernel(inputs=[a, 0.5], template=[("N", n), ("Negate", negate)],
                     grid=(100, 1, 1), threadgroup=(32, 1, 1), output_shapes=[a.shape],
                     output_dtypes=[np.float32])[0]
        want = a * np.float32(0.5) * np.float32(n) * (-1 if negate else 1)
        np.testing.assert_array_equal(out, want)
    # A NumPy scalar keeps its type (float16 here), a Python float becomes float32, as in MLX.
    assert "const constant float16_t& factor" in kernel.full_source(
        [a, np.float16(0.5)], [np.float32], template=[("N", 3), ("Negate", True)])
    assert "custom_kernel_scale_3_true" in kernel.full_source(
        [a, 0.5], [np.float32], template=[("N", 3), ("Negate", True)])


def test_atomic_outputs_with_init_value(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="histogram", input_names=["values"], output_names=["counts"], atomic_outputs=True,
        source="""
        uint i = thread_position_in_grid.x;
        atomic_fetch_add_explicit(&counts[values[i]], 1, memory_order_relaxed);
    """)
    values = rng().integers(0, 16, 1000).astype(np.int32)
    counts = kernel(inputs=[values], grid=(1000, 1, 1), threadgroup=(128, 1, 1),
                    output_shapes=[(16,)], output_dtypes=[np.int32], init_value=0)[0]
    np.testing.assert_array_equal(counts, np.bincount(values, minlength=16))


def test_several_outputs_and_untouched_elements_stay_poisoned(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="split", input_names=["inp"], output_names=["lo", "hi"],
        source="""
        uint i = thread_position_in_grid.x;
        if (i % 2 == 0) lo[i / 2] = inp[i]; else hi[i / 2] = inp[i] + 1;
    """)
    a = rng().standard_normal(64).astype(np.float32)
    lo, hi = kernel(inputs=[a], grid=(64, 1, 1), threadgroup=(64, 1, 1),
                    output_shapes=[(33,), (32,)], output_dtypes=["float32", "float32"])
    np.testing.assert_array_equal(lo[:32], a[0::2])
    np.testing.assert_array_equal(hi, a[1::2] + 1)
    assert np.isnan(lo[32])  # never written: the poison shows, not a plausible 0


def test_signature_as_mlx_generates_it():
    kernel = metalsim.metal_kernel(name="sig", input_names=["a", "s"], output_names=["o"],
                                   source="o[0] = a[a_ndim] + s + thread_index_in_simdgroup;")
    source = kernel.full_source([np.zeros(4, np.float16), np.float32(1)], [np.float16])
    assert "const device float16_t* a [[buffer(0)]]," in source
    assert "const constant int& a_ndim [[buffer(1)]]," in source
    assert "const constant float& s [[buffer(2)]]," in source
    assert "device float16_t* o [[buffer(3)]]," in source
    assert "uint thread_index_in_simdgroup [[thread_index_in_simdgroup]]) {" in source
    assert "a_shape" not in source and "thread_position_in_grid [[" not in source
    assert '#line 1 "sig.metal"' in source


def test_kernels_are_compiled_once_per_combination(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="twice", input_names=["inp"], output_names=["out"],
        source="uint i = thread_position_in_grid.x; out[i] = inp[i] * 2;")
    for dtype in (np.float32, np.float32, np.int32, np.float32):
        a = np.arange(8).astype(dtype)
        out = kernel(inputs=[a], grid=(8, 1, 1), threadgroup=(8, 1, 1), output_shapes=[(8,)],
                     output_dtypes=[dtype])[0]
        np.testing.assert_array_equal(out, a * 2)
    assert len(kernel._plans) == 2


def test_inputs_with_the_buffer_protocol(metalsim_device):
    import array
    kernel = metalsim_device.metal_kernel(
        name="halve", input_names=["inp"], output_names=["out"],
        source="uint i = thread_position_in_grid.x; out[i] = inp[i] / 2;")
    values = rng().standard_normal(20).astype(np.float32)
    for source in (array.array("f", values.tolist()), memoryview(values)):
        out = kernel(inputs=[source], grid=(20, 1, 1), threadgroup=(32, 1, 1),
                     output_shapes=[(20,)], output_dtypes=[np.float32])[0]
        np.testing.assert_array_equal(out, values / 2)
