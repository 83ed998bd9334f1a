"""metalsim.compile_shader as PyTorch documents torch.mps.compile_shader: kernels as attributes,
arrays written in place, scalars packed as the kernel declares them."""
import numpy as np
import pytest

import metalsim

SOURCE = """
#include <metal_stdlib>
using namespace metal;

kernel void full(device float* out, constant float& val, uint idx [[thread_position_in_grid]]) {
  out[idx] = val;
}

kernel void axpy(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],
                 constant float& a [[buffer(2)]], constant uint& n [[buffer(3)]],
                 uint i [[thread_position_in_grid]]) {
  if (i < n) y[i] = a * x[i] + y[i];
}

kernel void overrun(device int* out, uint i [[thread_position_in_grid]]) {
  out[i + 1] = int(i);
}
"""


@pytest.fixture
def lib(metalsim_device):
    return metalsim_device.compile_shader(SOURCE)


def test_pytorch_documented_full_example(lib):
    x = np.zeros(16, dtype=np.float32)
    lib.full(x, 3.14)
    np.testing.assert_array_equal(x, np.full(16, 3.14, dtype=np.float32))


def test_in_place_with_threads_group_size_and_typed_scalars(lib):
    rng = np.random.default_rng(5)
    y = rng.standard_normal(1000).astype(np.float32)
    x = rng.standard_normal(1000).astype(np.float32)
    y0, x0 = y.copy(), x.copy()
    lib.axpy(y, x, 2.5, 1000, threads=1024, group_size=64)  # n is a uint: packed as 4 bytes
    np.testing.assert_array_equal(y, np.float32(2.5) * x0 + y0)
    np.testing.assert_array_equal(x, x0)  # const: left as it was


def test_kernels_are_attributes(lib):
    assert {"full", "axpy", "overrun"} <= set(dir(lib))
    with pytest.raises(AttributeError, match=r"no kernel 'fill' in the library \(it has: .*full"):
        lib.fill


def test_argument_errors_name_the_argument(lib):
    y = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"misses arguments: 'a' \[\[buffer\(2\)\]\].*'n'"):
        lib.axpy(y, y)
    with pytest.raises(TypeError, match=r"argument 1 has dtype int32 but .*'x' \[\[buffer\(1\)\]\]"):
        lib.axpy(y, np.zeros(4, np.int32), 1.0, 4)
    with pytest.raises(TypeError, match=r"argument 3: 2.5 is not a whole number"):
        lib.axpy(y, y, 1.0, 2.5)


def test_a_bounds_error_names_the_source_line_and_leaves_the_array(lib):
    out = np.full(8, -1, dtype=np.int32)
    with pytest.raises(metalsim.BoundsError) as caught:
        lib.overrun(out)
    assert (caught.value.report.file, caught.value.report.line) == ("program_source", 16)
    np.testing.assert_array_equal(out, np.full(8, -1, dtype=np.int32))


def test_a_compile_error_names_the_line(metalsim_device):
    with pytest.raises(metalsim.CompileError, match=r"program_source:3:"):
        metalsim_device.compile_shader("#include <metal_stdlib>\nkernel void k(device int* p) {\n"
                                       "  p[0] = nope;\n}\n")
