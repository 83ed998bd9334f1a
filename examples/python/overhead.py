"""The per-call overhead of a cached metal_kernel call on small arrays, beyond the dispatch.

    build/release/metalsim-python examples/python/overhead.py

For each call it times the whole call (argument checks, the compiled kernel found in its dict,
input copies into device buffers, output buffers, the result) and, inside it, the dispatch
(_metalsim.dispatch: encoding, validation and the run of the kernel, what a C++ program calling
the host API pays too); the overhead is the difference, the median over many calls. It also
prints the dispatch alone with the same buffers every time, for comparison; the same call with
zero_copy=True (inputs bound where they lie, docs/python.md); and what binding one 16 MiB input
costs, copied and borrowed. Not asserted in tests: timings vary by machine and load.
"""
import statistics
import time

import numpy as np

import metalsim
from metalsim import _metalsim

SOURCE = """
    uint i = thread_position_in_grid.x;
    out[i] = a[i] * b[i] + 1.0f;
"""


def median_us(f, repeats=2000):
    for _ in range(50):
        f()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter_ns()
        f()
        samples.append(time.perf_counter_ns() - t)
    return statistics.median(samples) / 1000


def call_and_dispatch_us(kernel, args, repeats=2000):
    """Medians of the whole call, of the dispatch inside it and of their difference."""
    real = _metalsim.dispatch
    inner = []

    def timed(*a):
        t = time.perf_counter_ns()
        r = real(*a)
        inner.append(time.perf_counter_ns() - t)
        return r

    _metalsim.dispatch = timed
    try:
        for _ in range(50):
            kernel(**args)
        inner.clear()
        whole = []
        for _ in range(repeats):
            t = time.perf_counter_ns()
            kernel(**args)
            whole.append(time.perf_counter_ns() - t)
    finally:
        _metalsim.dispatch = real
    overhead = [w - d for w, d in zip(whole, inner)]
    return tuple(statistics.median(x) / 1000 for x in (whole, inner, overhead))


def main():
    device = metalsim.Device(workers=1)
    kernel = device.metal_kernel(name="fma", input_names=["a", "b"], output_names=["out"],
                                 source=SOURCE)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(256).astype(np.float32) for _ in range(2))
    args = dict(inputs=[a, b], grid=(256, 1, 1), threadgroup=(256, 1, 1),
                output_shapes=[a.shape], output_dtypes=[np.float32])
    out = kernel(**args)[0]
    np.testing.assert_allclose(out, a * b + 1, rtol=1e-6)

    pipeline, _ = next(iter(kernel._plans.values()))
    options = device.options()
    buffers = [(0, _metalsim.Buffer.copy_of(a)), (1, _metalsim.Buffer.copy_of(b)),
               (2, _metalsim.Buffer(a.nbytes))]
    alone = median_us(lambda: _metalsim.dispatch(pipeline, buffers, [], [], (256, 1, 1),
                                                 (256, 1, 1), options))
    whole, inner, overhead = call_and_dispatch_us(kernel, args)
    print(f"256 float32 elements, 2 inputs, 1 output, checks {options.checks}, 1 worker: "
          f"whole call {whole:.1f} us, its dispatch {inner:.1f} us, overhead {overhead:.1f} us "
          f"(the dispatch alone, same buffers each time: {alone:.1f} us)")
    whole, inner, overhead = call_and_dispatch_us(kernel, dict(args, zero_copy=True))
    print(f"  zero_copy=True: whole call {whole:.1f} us, its dispatch {inner:.1f} us, "
          f"overhead {overhead:.1f} us")
    big = rng.standard_normal(4 << 20).astype(np.float32)
    copied = median_us(lambda: _metalsim.Buffer.copy_of(big), repeats=50)
    borrowed = median_us(lambda: _metalsim.Buffer.borrow(big), repeats=50)
    print(f"  one 16 MiB input: copied {copied:.0f} us, borrowed {borrowed:.1f} us")


if __name__ == "__main__":
    main()
