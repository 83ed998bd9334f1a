"""Errors a Python user can act on: each names what was wrong and where."""
import numpy as np
import pytest

import metalsim

COPY = "uint i = thread_position_in_grid.x;\nout[i] = inp[i];"


def _copy(device):
    return device.metal_kernel(name="copy", input_names=["inp"], output_names=["out"],
                               source=COPY)


def _call(kernel, *inputs, **kwargs):
    args = dict(grid=(8, 1, 1), threadgroup=(8, 1, 1), output_shapes=[(8,)],
                output_dtypes=[np.float32])
    args.update(kwargs)
    return kernel(inputs=list(inputs), **args)


def test_a_missing_input_is_named(metalsim_device):
    with pytest.raises(ValueError, match=r"takes 1 inputs \(inp\), got 0: missing \['inp'\]"):
        _call(_copy(metalsim_device))


def test_a_double_input_is_a_type_error_naming_it(metalsim_device):
    with pytest.raises(TypeError, match=r"inputs\[0\] \('inp'\): dtype float64 .*float32"):
        _call(_copy(metalsim_device), np.zeros(8))


def test_an_unknown_output_dtype_is_a_type_error(metalsim_device):
    with pytest.raises(TypeError, match=r"output_dtypes\[0\] \('out'\): .*complex"):
        _call(_copy(metalsim_device), np.zeros(8, np.float32), output_dtypes=[np.complex64])


def test_output_shapes_of_the_wrong_count(metalsim_device):
    with pytest.raises(ValueError, match="output_shapes needs 1 shapes"):
        _call(_copy(metalsim_device), np.zeros(8, np.float32), output_shapes=[(8,), (8,)])


def test_a_bad_grid(metalsim_device):
    with pytest.raises(ValueError, match="grid must be 3 positive ints"):
        _call(_copy(metalsim_device), np.zeros(8, np.float32), grid=(0, 1, 1))


def test_a_bad_checks_value(metalsim_device):
    with pytest.raises(ValueError, match="checks='everything'"):
        _call(_copy(metalsim_device), np.zeros(8, np.float32), checks="everything")


def test_a_compile_error_names_the_body_line(metalsim_device):
    kernel = metalsim_device.metal_kernel(name="broken", input_names=["inp"], output_names=["out"],
                                          source="\n  uint i = thread_position_in_grid.x;\n"
                                                 "  out[i] = inp[i] + undefined_name;\n")
    with pytest.raises(metalsim.CompileError, match=r"broken\.metal:3:.*undefined_name"):
        _call(kernel, np.zeros(8, np.float32))


def test_a_compile_error_in_the_header_names_the_header_line(metalsim_device):
    kernel = metalsim_device.metal_kernel(name="hdr", input_names=["inp"], output_names=["out"],
                                          header="inline float twice(float x) {\n  return x * y;\n}",
                                          source=COPY)
    with pytest.raises(metalsim.CompileError, match=r"hdr\.header\.metal:2:"):
        _call(kernel, np.zeros(8, np.float32))


def test_an_out_of_bounds_read_names_line_thread_and_memory(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="overread", input_names=["inp"], output_names=["out"],
        source="uint i = thread_position_in_grid.x;\nout[i] = inp[i + 8];")
    with pytest.raises(metalsim.BoundsError) as caught:
        _call(kernel, np.arange(8, dtype=np.float32))
    r = caught.value.report
    assert (r.check, r.file, r.line, r.kernel) == ("bounds.device", "overread.metal", 2,
                                                   "custom_kernel_overread")
    assert "inp" in r.memory and r.offset == 32
    # Mode auto ran lane loops, which do not name the thread; the replay on fibers does.
    assert (r.thread, r.threadgroup) == ((0, 0, 0), (0, 0, 0))
    assert str(caught.value).startswith("========= bounds.device")
    assert "by thread (0,0,0) of threadgroup (0,0,0)" in str(caught.value)


def test_a_divergent_barrier(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="diverge", input_names=["inp"], output_names=["out"],
        source="""uint i = thread_position_in_grid.x;
if (i < 4) threadgroup_barrier(mem_flags::mem_threadgroup);
else threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = inp[i];""")
    with pytest.raises(metalsim.BarrierError) as caught:
        _call(kernel, np.zeros(8, np.float32))
    assert caught.value.report.file == "diverge.metal"
    assert caught.value.report.check == "barrier.divergent"
    assert caught.value.report.severity == "error"


def test_a_barrier_after_some_threads_returned_runs_to_the_end(metalsim_device):
    # barrier.exited is a portability warning (Apple GPUs run this to the end): no exception.
    kernel = metalsim_device.metal_kernel(
        name="exited", input_names=["inp"], output_names=["out"],
        source="""uint i = thread_position_in_grid.x;
if (i >= 4) return;
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = inp[i];""")
    out = _call(kernel, np.arange(8, dtype=np.float32), init_value=0)[0]
    assert list(np.asarray(out)) == [0, 1, 2, 3, 0, 0, 0, 0]


def test_a_read_of_unwritten_threadgroup_memory(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="uninit", input_names=["inp"], output_names=["out"],
        source="""uint i = thread_position_in_threadgroup.x;
threadgroup float t[8];
if (i > 0) t[i] = inp[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = t[(i + 7) % 8];""")
    with pytest.raises(metalsim.UninitError) as caught:
        _call(kernel, np.ones(8, np.float32), checks="sync,init,mem")
    assert (caught.value.report.file, caught.value.report.line) == ("uninit.metal", 5)


def test_a_kernel_that_never_returns_is_stopped_by_the_watchdog(metalsim_device):
    # Waits for a flag nothing sets (an atomic load: a loop C++ may not assume finishes).
    kernel = metalsim_device.metal_kernel(
        name="forever", input_names=["inp"], output_names=["flag"], atomic_outputs=True,
        source="""uint spins = 0;
while (atomic_load_explicit(&flag[0], memory_order_relaxed) == 0) ++spins;
atomic_store_explicit(&flag[1], spins + uint(inp[0]), memory_order_relaxed);""")
    with pytest.raises(metalsim.WatchdogError) as caught:
        _call(kernel, np.zeros(1, np.uint32), output_shapes=[(2,)], output_dtypes=[np.uint32],
              init_value=0, watchdog=1.0)
    assert caught.value.report.check == "watchdog.timeout"
    assert isinstance(caught.value, TimeoutError)


def test_verbose_prints_the_source_numbered_as_reports_name_it(metalsim_device, capsys):
    _call(_copy(metalsim_device), np.zeros(8, np.float32), verbose=True)
    printed = capsys.readouterr().out
    assert "copy.metal:2 | out[i] = inp[i];" in printed
    assert "[[kernel]] void custom_kernel_copy(" in printed


def test_output_elements_never_written_with_init_checks(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="evens", input_names=["inp"], output_names=["out"],
        source="uint i = thread_position_in_grid.x;\nif (i % 2 == 0) out[i] = inp[i];")
    with pytest.raises(metalsim.UninitError) as caught:
        _call(kernel, np.ones(8, np.float32), checks="sync,init,mem")
    r = caught.value.report
    assert (r.check, r.kernel, r.offset) == ("uninit.output", "custom_kernel_evens", 4)
    assert "out[1] was never written (4 of 8 elements never written)" in str(caught.value)
    # Without init the poison stays for the caller to see (NaN), as MLX's garbage would.
    assert np.isnan(_call(kernel, np.ones(8, np.float32))[0][1::2]).all()


def test_writing_the_poison_bytes_is_not_a_finding(metalsim_device):
    kernel = metalsim_device.metal_kernel(
        name="minus_one", input_names=["inp"], output_names=["out"],
        source="uint i = thread_position_in_grid.x;\nout[i] = inp[i] - 1;")
    out = _call(kernel, np.zeros(8, np.int32), output_dtypes=[np.int32], checks="all")[0]
    np.testing.assert_array_equal(out, np.full(8, -1, np.int32))  # all bytes 0xFF, all written
