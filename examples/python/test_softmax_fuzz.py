"""A fuzz of the softmax's sizes: rows, columns around the threadgroup width, threadgroups that
leave the last simdgroup partial. Hypothesis shrinks a failure to the smallest case."""
import numpy as np
from hypothesis import given, settings, strategies as st

import metalsim
import softmax

_device = metalsim.Device()
_kernel = softmax.make_kernel(_device)


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 6), cols=st.integers(1, 700),
       threadgroup=st.sampled_from([1, 7, 32, 33, 64, 100, 256, 1024]),
       dtype=st.sampled_from([np.float32, np.float16]), seed=st.integers(0, 2**32 - 1))
def test_softmax_any_size(rows, cols, threadgroup, dtype, seed):
    x = (np.random.default_rng(seed).standard_normal((rows, cols)) * 3).astype(dtype)
    softmax.assert_close(softmax.softmax(_kernel, x, threadgroup), x)
