"""The MLX-style softmax against NumPy, on random inputs from a fixed seed."""
import numpy as np
import pytest

import softmax


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("rows,cols,threadgroup", [(3, 4097, 256), (5, 31, 32), (2, 100, 96),
                                                   (1, 1, 1), (4, 1000, 1024)])
def test_softmax_matches_numpy(metalsim_device, dtype, rows, cols, threadgroup):
    x = (np.random.default_rng(7).standard_normal((rows, cols)) * 4).astype(dtype)
    kernel = softmax.make_kernel(metalsim_device)
    got = softmax.softmax(kernel, x, threadgroup)
    assert got.shape == x.shape and got.dtype == x.dtype
    softmax.assert_close(got, x)


def test_softmax_under_every_check_and_a_random_schedule(metalsim_device):
    x = np.random.default_rng(11).standard_normal((3, 300)).astype(np.float32)
    kernel = softmax.make_kernel(metalsim_device)
    got = softmax.softmax(kernel, x, 64, checks="all", schedule="random:5")
    softmax.assert_close(got, x)
