# The metalsim_device fixture and the --metalsim-* options (metalsim/pytest_plugin.py).
pytest_plugins = ["metalsim.pytest_plugin"]
