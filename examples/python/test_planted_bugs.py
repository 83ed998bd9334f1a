"""Bugs planted in small kernels, each caught with the .metal line of the user's body."""
import numpy as np
import pytest

import metalsim

# Each thread writes its slot, then reads its neighbour's: without the barrier the read races
# with the neighbour's write.
RACE = """
    uint i = thread_position_in_threadgroup.x;
    uint n = threads_per_threadgroup.x;
    threadgroup float slots[64];
    slots[i] = x[thread_position_in_grid.x];
    BARRIER
    out[thread_position_in_grid.x] = slots[(i + 1) % n];
"""


def _shift_kernel(device, barrier):
    source = RACE.replace("BARRIER", barrier)
    return device.metal_kernel(name="shift" + ("" if barrier else "_racy"), input_names=["x"],
                               output_names=["out"], source=source)


def _shift(kernel, x, **options):
    return kernel(inputs=[x], grid=(x.size, 1, 1), threadgroup=(64, 1, 1),
                  output_shapes=[x.shape], output_dtypes=[x.dtype], **options)[0]


def test_the_race_is_caught_naming_both_lines(metalsim_device):
    x = np.random.default_rng(1).standard_normal(128).astype(np.float32)
    kernel = _shift_kernel(metalsim_device, "")
    with pytest.raises(metalsim.RaceError) as caught:
        _shift(kernel, x, checks="all")
    report = caught.value.report
    assert report.check == "race.threadgroup"
    assert report.file == "shift_racy.metal"
    assert {report.line, report.other_line} == {5, 7}  # the write and the read of slots
    assert "race.threadgroup" in str(caught.value) and "shift_racy.metal" in str(caught.value)


def test_with_the_barrier_there_is_no_race(metalsim_device):
    x = np.random.default_rng(2).standard_normal(128).astype(np.float32)
    kernel = _shift_kernel(metalsim_device, "threadgroup_barrier(mem_flags::mem_threadgroup);")
    got = _shift(kernel, x, checks="all")
    want = x.reshape(2, 64)[:, np.r_[1:64, 0]].reshape(-1)
    np.testing.assert_array_equal(got, want)


def test_an_out_of_bounds_write_names_the_body_line(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="offbyone", input_names=["inp"], output_names=["out"],
        source="""
    uint elem = thread_position_in_grid.x;
    out[elem + 1] = inp[elem];
""")
    a = np.arange(64, dtype=np.float32)
    with pytest.raises(metalsim.BoundsError) as caught:
        kernel(inputs=[a], grid=(64, 1, 1), threadgroup=(32, 1, 1), output_shapes=[a.shape],
               output_dtypes=[a.dtype])
    report = caught.value.report
    assert report.check == "bounds.device"
    assert (report.file, report.line) == ("offbyone.metal", 3)
    assert "offbyone.metal:3" in str(caught.value)
