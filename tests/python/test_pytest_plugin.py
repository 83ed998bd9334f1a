"""The pytest plugin: --metalsim-* options reach the metalsim_device fixture's kernels."""
import subprocess
import sys
import textwrap

import numpy as np


def test_options_reach_the_fixture(tmp_path):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["metalsim.pytest_plugin"]\n')
    (tmp_path / "test_inner.py").write_text(textwrap.dedent("""
        def test_defaults(metalsim_device):
            assert metalsim_device.defaults["checks"] == "sync,race"
            assert metalsim_device.defaults["schedule"] == "random:3"
            assert metalsim_device.options().checks == "sync,race"
            assert metalsim_device.options().schedule == "random:3"
            assert metalsim_device.zero_copy
    """))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--metalsim-checks=sync,race", "--metalsim-schedule=random:3",
                          "--metalsim-zero-copy", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_fixture_makes_working_kernels(metalsim_device):
    kernel = metalsim_device.metal_kernel(name="neg", input_names=["a"], output_names=["b"],
                                          source="uint i = thread_position_in_grid.x; b[i] = -a[i];")
    a = np.random.default_rng(3).standard_normal(40).astype(np.float32)
    b = kernel(inputs=[a], grid=(40, 1, 1), threadgroup=(32, 1, 1), output_shapes=[a.shape],
               output_dtypes=[a.dtype])[0]
    np.testing.assert_array_equal(b, -a)
