"""What both APIs share: the device and its options, compiling with a cache, buffers, and a
dispatch that raises the errors of errors.py."""
import math
import os

import numpy as np

from . import _metalsim
from .errors import CompileError, Report, kernel_error

# A test suite must not hang on a kernel that never returns: without METALSIM_WATCHDOG, a
# dispatch is stopped after this many seconds and raises WatchdogError (watchdog=0: no limit).
DEFAULT_WATCHDOG_SECONDS = 60.0

_libraries = {}  # source -> _metalsim.Library: compiled once per process


def compile_source(source):
    """The library of `source`, compiled once per process (and cached on disk across processes
    by the runtime compiler: $XDG_CACHE_HOME/metalsim or ~/.cache/metalsim)."""
    library = _libraries.get(source)
    if library is None:
        library, error = _metalsim.compile(source)
        if library is None:
            raise CompileError(error, source)
        _libraries[source] = library
    return library


class Device:
    """Default execution options for the kernels made through it; every call may override them.

    checks: "sync,mem" (the default), "all", "none", or a comma list of sync, init, mem, race.
    mode: "auto" (default), "fibers" or "loops". schedule: "in-order", "reversed", "random",
    "random:SEED". workers: threads (0: every core). watchdog: seconds (0: no limit).
    Unset values come from METALSIM_CHECKS, METALSIM_MODE, ... as for C++ programs.
    zero_copy: bind C-contiguous, aligned arrays without a copy when `mem` is among the checks
    (see borrowable and docs/python.md: bounds past such an array's end are checked less far).
    """

    def __init__(self, checks=None, mode=None, schedule=None, workers=None, watchdog=None,
                 zero_copy=False):
        self.defaults = dict(checks=checks, mode=mode, schedule=schedule, workers=workers,
                             watchdog=watchdog)
        self.zero_copy = zero_copy
        self._options = {}

    def options(self, checks=None, mode=None, schedule=None, workers=None, watchdog=None):
        """The _metalsim.Options of a call (made once per distinct combination)."""
        key = (checks, mode, schedule, workers, watchdog)
        options = self._options.get(key)
        if options is None:
            given = dict(checks=checks, mode=mode, schedule=schedule, workers=workers,
                         watchdog=watchdog)
            merged = {k: (v if v is not None else self.defaults[k]) for k, v in given.items()}
            if merged["watchdog"] is None and "METALSIM_WATCHDOG" not in os.environ:
                merged["watchdog"] = DEFAULT_WATCHDOG_SECONDS
            options = _metalsim.Options(**merged)
            self._options[key] = options
        return options

    def borrows(self, options, zero_copy=None):
        """Whether a call with these options binds arrays without a copy (see borrowable)."""
        wanted = self.zero_copy if zero_copy is None else zero_copy
        return bool(wanted) and "mem" in options.checks.split(",")

    def metal_kernel(self, *args, **kwargs):
        from .mlx import MetalKernel
        return MetalKernel(*args, device=self, **kwargs)

    def compile_shader(self, source):
        from .torch import ShaderLibrary
        return ShaderLibrary(source, device=self)


default_device = Device()


# For tests: how many arrays were copied into device buffers, and how many bound without a copy.
counts = {"copied": 0, "borrowed": 0}


def borrowable(array, writable=False):
    """Whether an array can be bound as it lies (a no-copy buffer over its memory): a NumPy
    array, C-contiguous, its elements aligned, not empty, and writable if the kernel writes it."""
    return (isinstance(array, np.ndarray) and array.flags.c_contiguous and array.flags.aligned
            and array.size > 0 and (array.flags.writeable or not writable))


def input_buffer(array, label, borrow=False, writable=False):
    """A device buffer for a C-contiguous array: the array's own memory when `borrow` (the
    caller checked borrowable()), else a copy (see py_buffer.h for why inputs are copied)."""
    if borrow:
        buffer = _metalsim.Buffer.borrow(array, writable)
        counts["borrowed"] += 1
    else:
        buffer = _metalsim.Buffer.copy_of(array)
        counts["copied"] += 1
    buffer.label = label
    return buffer


def output_buffer(shape, dtype, label):
    """A device buffer and the NumPy array over it (no copy: the array is the buffer); its
    contents are unspecified until the caller fills them."""
    count = math.prod(shape)
    buffer = _metalsim.Buffer.empty(count * dtype.itemsize)
    buffer.label = label
    array = np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)
    return buffer, array


def _renaming(reports, names):
    """The names of generated #line files as they were written: addr2line puts the working
    directory of the process that compiled the kernel in front of a relative #line name (the
    engine strips it from "program_source" only), giving "/home/me/myexp.metal"."""
    prefixes = set()
    for r in reports:
        for file in (r.file, r.other_file):
            for name in names:
                if file.endswith("/" + name):
                    prefixes.add(file[:-len(name)])
    if not prefixes:
        return lambda text: text

    def rename(text):
        for prefix in prefixes:
            for name in names:
                text = text.replace(prefix + name, name)
        return text
    return rename


def _on_fibers(options):
    """The same options on fibers, where every report names its thread."""
    return _metalsim.Options(checks=options.checks, mode="fibers", schedule=options.schedule,
                             workers=options.workers, watchdog=options.watchdog)


def _thread_unnamed(reports):
    """Lane loops run many lanes at once: a fault there names the threadgroup, not the thread
    (docs/lanes.md). A watchdog report is not replayed: it would only wait as long again."""
    return any(r.threadgroup is not None and r.thread is None for r in reports) and not any(
        r.check == "watchdog.timeout" for r in reports)


def run(pipeline, prepare, grid, group, options, source, names=(), threadgroups=False):
    """One dispatch of the buffers prepare() makes: (buffers, bytes_args, result) -> result.
    Raises the KernelError subclass of its first report. A report that does not name its thread
    (lane loops, mode auto) is replayed on fibers from newly prepared buffers, as the metalsim
    program's fuzz does, so the error names the thread. `names`: the #line file names the
    source was generated with."""
    buffers, bytes_args, result = prepare()
    found = _metalsim.dispatch(pipeline, buffers, bytes_args, [], grid, group, options,
                               threadgroups)
    if not found.reports:
        return result
    if options.mode == "auto" and _thread_unnamed(found.reports):
        buffers, bytes_args, _ = prepare()
        again = _metalsim.dispatch(pipeline, buffers, bytes_args, [], grid, group,
                                   _on_fibers(options), threadgroups)
        if again.reports:
            found = again
    rename = _renaming(found.reports, names)
    reports = [Report(r, rename) for r in found.reports]
    raise kernel_error(rename(found.error.rstrip("\n")), reports, source)
