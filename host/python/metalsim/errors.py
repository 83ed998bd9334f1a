"""What a kernel run or a compile raises.

KernelError's message is the text the metalsim program prints for the reports (the check, the
kernel, the thread, the .metal line, the memory); `reports` holds them as objects with
attributes (check, family, severity, kernel, threadgroup, thread, file, line, memory, offset,
message, ...).
The subclass follows the first report's check.
"""


class Report:
    """One finding, as the C++ report has it (simt/report/report.h): check ("bounds.device"),
    family ("mem"), severity ("error", or "warning" for barrier.exited), kernel, threadgroup and
    thread (tuples, None where not known), simdgroup, simd_lane, file and line (the user's .metal
    line), other_file, other_line and other_lanes (what it conflicted with), memory
    ("buffer(1) 'out'"), offset (bytes), message, repeats, and text (the lines the metalsim
    program prints)."""

    FIELDS = ("check", "family", "severity", "kernel", "threadgroup", "thread", "simdgroup",
              "simd_lane", "file", "line", "other_file", "other_line", "other_lanes", "memory",
              "offset", "message", "repeats", "text")
    __slots__ = FIELDS

    def __init__(self, native, rename=lambda text: text):
        for field in self.FIELDS:
            value = getattr(native, field)
            setattr(self, field, rename(value) if field in ("file", "other_file", "text") else value)

    def __repr__(self):
        return f"<metalsim Report {self.check} at {self.file}:{self.line}>"


class CompileError(Exception):
    """The kernel's source did not compile; the message names the user's file and line."""

    def __init__(self, message, source=""):
        super().__init__(message)
        self.source = source  # the full source that was compiled


class KernelError(RuntimeError):
    """A dispatch ended with reports (a check failed, validation refused it, ...)."""

    def __init__(self, message, reports=(), source=""):
        super().__init__(message)
        self.reports = list(reports)
        self.source = source  # the full source of the kernel that ran

    @property
    def report(self):
        return self.reports[0] if self.reports else None


class BoundsError(KernelError):
    """bounds.device, bounds.threadgroup, bounds.texture, kernel.fault, stack.overflow."""


class RaceError(KernelError):
    """race.threadgroup, race.device, race.dispatch, race.schedule."""


class BarrierError(KernelError):
    """barrier.divergent, simd.partial, sync.deadlock; barrier.exited with METALSIM_STRICT=1."""


class UninitError(KernelError):
    """uninit.threadgroup, uninit.output."""


class WatchdogError(KernelError, TimeoutError):
    """watchdog.timeout: the dispatch ran past its time limit (watchdog= seconds)."""


class ValidationError(KernelError):
    """api.* and limit.*: the dispatch was refused before it ran."""


_BY_PREFIX = [
    ("bounds.", BoundsError), ("kernel.fault", BoundsError), ("stack.", BoundsError),
    ("race.", RaceError),
    ("barrier.", BarrierError), ("simd.partial", BarrierError), ("sync.", BarrierError),
    ("uninit.", UninitError),
    ("watchdog.", WatchdogError),
    ("api.", ValidationError), ("limit.", ValidationError),
]


def error_class(check):
    """The KernelError subclass of a check id ("bounds.device" -> BoundsError)."""
    for prefix, cls in _BY_PREFIX:
        if check.startswith(prefix):
            return cls
    return KernelError


def kernel_error(text, reports, source=""):
    """The exception for a failed dispatch: the class of its first report."""
    cls = error_class(reports[0].check) if reports else KernelError
    return cls(text, reports, source)


# Shown as metalsim.BoundsError in tracebacks: the name users import.
for _cls in (Report, CompileError, KernelError, BoundsError, RaceError, BarrierError,
             UninitError, WatchdogError, ValidationError):
    _cls.__module__ = "metalsim"
