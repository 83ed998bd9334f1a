"""pytest plugin: the `metalsim_device` fixture and options to run a suite's kernels under other
checks, schedules or modes without editing it.

    # conftest.py
    pytest_plugins = ["metalsim.pytest_plugin"]

    def test_softmax(metalsim_device):
        kernel = metalsim_device.metal_kernel(name="softmax", ...)

    pytest --metalsim-checks=all --metalsim-schedule=random:7
"""
import pytest

import metalsim


def pytest_addoption(parser):
    group = parser.getgroup("metalsim")
    group.addoption("--metalsim-checks", default=None,
                    help="checks of metalsim_device's kernels (default: sync,mem)")
    group.addoption("--metalsim-schedule", default=None,
                    help="schedule: in-order, reversed, random, random:SEED")
    group.addoption("--metalsim-mode", default=None, help="auto, fibers or loops")
    group.addoption("--metalsim-watchdog", default=None, type=float,
                    help="seconds a dispatch may run (default 60)")
    group.addoption("--metalsim-zero-copy", action="store_true", default=False,
                    help="bind arrays without a copy where their layout allows (with mem)")


@pytest.fixture
def metalsim_device(request):
    """A metalsim.Device with the command line's options: make kernels with its metal_kernel
    and compile_shader."""
    option = request.config.getoption
    return metalsim.Device(checks=option("--metalsim-checks"),
                           schedule=option("--metalsim-schedule"),
                           mode=option("--metalsim-mode"),
                           watchdog=option("--metalsim-watchdog"),
                           zero_copy=option("--metalsim-zero-copy"))
