"""Arrays bound without a copy (zero_copy=True, with mem among the checks): compile_shader's
kernels write a borrowed array in place, metal_kernel's read their inputs where they lie, and the
results match NumPy; where the layout does not allow it, or mem is off, arrays are copied as
before. Bounds of a borrowed array end with its last 16-byte granule (docs/python.md)."""
import numpy as np
import pytest

import metalsim
from metalsim import _core, _metalsim

SOURCE = """
#include <metal_stdlib>
using namespace metal;

kernel void axpy(device float* y [[buffer(0)]], const device float* x [[buffer(1)]],
                 constant float& a [[buffer(2)]], constant uint& n [[buffer(3)]],
                 uint i [[thread_position_in_grid]]) {
  if (i < n) y[i] = a * x[i] + y[i];
}

kernel void overrun(device int* out, uint i [[thread_position_in_grid]]) {
  out[i + 1] = int(i);
}
"""

EXP_BODY = """
    uint elem = thread_position_in_grid.x;
    out[elem] = metal::exp(inp[elem]);
"""


def counted(call):
    """How many arrays `call` copied and borrowed."""
    before = dict(_core.counts)
    call()
    return {k: _core.counts[k] - before[k] for k in before}


@pytest.fixture
def lib():
    return metalsim.Device(zero_copy=True).compile_shader(SOURCE)


def test_a_borrowed_buffer_is_the_arrays_memory():
    a = np.arange(10, dtype=np.float32)
    borrowed = _metalsim.Buffer.borrow(a, True)
    assert borrowed.no_copy and borrowed.address == a.ctypes.data and len(borrowed) == a.nbytes
    copy = _metalsim.Buffer.copy_of(a)
    assert not copy.no_copy and copy.address != a.ctypes.data
    with pytest.raises(ValueError, match="read-only"):
        _metalsim.Buffer.borrow(np.frombuffer(bytes(8), np.float32), True)  # read-only


def test_compile_shader_writes_a_borrowed_array_in_place(lib):
    rng = np.random.default_rng(27)
    y = rng.standard_normal(1000).astype(np.float32)
    x = rng.standard_normal(1000).astype(np.float32)
    want = np.float32(2.5) * x + y
    assert counted(lambda: lib.axpy(y, x, 2.5, 1000, threads=1024, group_size=64)) == {
        "copied": 0, "borrowed": 2}
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)


def test_a_borrowed_array_holds_what_the_kernel_wrote_before_a_report(lib):
    # Seven ints (28 bytes): out[7] lies in the rest of their last granule, so it is caught; the
    # stores before it went to the array itself (a copy would have left it as it was).
    big = np.full(12, -1, dtype=np.int32)
    out = big[:7]
    with pytest.raises(metalsim.BoundsError) as caught:
        lib.overrun(out, mode="fibers")  # lanes one by one: 0 to 5 store, 6 is stopped
    report = caught.value.report
    assert (report.file, report.line, report.offset) == ("program_source", 12, 28)
    np.testing.assert_array_equal(big, [-1, 0, 1, 2, 3, 4, 5, -1, -1, -1, -1, -1])


def test_bounds_of_a_borrowed_array_end_with_its_last_granule(lib):
    # Eight ints (32 bytes, two whole granules): out[8] is the next granule, memory the shadow
    # knows nothing of (here the rest of `big`). Copied, the same call raises BoundsError.
    big = np.full(12, -1, dtype=np.int32)
    lib.overrun(big[:8], mode="fibers")
    np.testing.assert_array_equal(big, [-1, 0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1])
    with pytest.raises(metalsim.BoundsError):
        lib.overrun(big[:8], zero_copy=False)


def test_arrays_are_copied_where_their_layout_or_the_checks_do_not_allow_it(lib):
    rng = np.random.default_rng(28)
    x = rng.standard_normal(64).astype(np.float32)
    y = rng.standard_normal(128).astype(np.float32)
    strided = y[::2]  # written: copied, and written back
    want = np.float32(2.0) * x + strided
    assert counted(lambda: lib.axpy(strided, x, 2.0, 64)) == {"copied": 1, "borrowed": 1}
    np.testing.assert_allclose(y[::2], want, rtol=1e-6, atol=1e-6)
    y2 = y[:64].copy()
    want = np.float32(2.0) * x + y2
    assert counted(lambda: lib.axpy(y2, x, 2.0, 64, checks="sync")) == {"copied": 2,
                                                                        "borrowed": 0}
    np.testing.assert_allclose(y2, want, rtol=1e-6, atol=1e-6)


def test_metal_kernel_reads_borrowed_inputs():
    device = metalsim.Device(zero_copy=True)
    kernel = device.metal_kernel(name="zexp", input_names=["inp"], output_names=["out"],
                                 source=EXP_BODY)
    a = np.random.default_rng(29).standard_normal((8, 33)).astype(np.float32)

    def call(array, **kwargs):
        return kernel(inputs=[array], grid=(array.size, 1, 1), threadgroup=(64, 1, 1),
                      output_shapes=[array.shape], output_dtypes=[np.float32], **kwargs)[0]

    got = []
    assert counted(lambda: got.append(call(a))) == {"copied": 0, "borrowed": 1}
    np.testing.assert_allclose(got[0], np.exp(a), rtol=1e-6)
    # Elements not aligned to their type: copied.
    raw = np.zeros(a.nbytes + 4, dtype=np.uint8)
    unaligned = raw[2:2 + a.nbytes].view(np.float32).reshape(a.shape)
    unaligned[...] = a
    assert not unaligned.flags.aligned
    assert counted(lambda: got.append(call(unaligned))) == {"copied": 1, "borrowed": 0}
    np.testing.assert_allclose(got[1], np.exp(a), rtol=1e-6)
    # No mem: the guard page after a copy is the only bounds check, so the input is copied.
    assert counted(lambda: got.append(call(a, checks="sync"))) == {"copied": 1, "borrowed": 0}
    # zero_copy off (the default): copied.
    assert counted(lambda: call(a, zero_copy=False)) == {"copied": 1, "borrowed": 0}
