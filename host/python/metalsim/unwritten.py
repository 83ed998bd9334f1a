"""uninit.output for metal_kernel: output elements the kernel never wrote.

Without init_value, outputs start poisoned: every byte POISON (NaN in floats). With `init` in
the checks, an element still all POISON after the run is a suspect (a kernel may well write
those bytes: -1, UINT_MAX), so the dispatch runs again with outputs poisoned SECOND_POISON; a
suspect that is all SECOND_POISON then was never written. The report is made by the module, so
its text is the engine's Report::format, as for the other checks.
"""
import numpy as np

from . import _metalsim
from .errors import Report, UninitError

POISON = 0xFF
SECOND_POISON = 0x00


def _untouched(array, poison):
    """Per element (flat): whether every byte is `poison`."""
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return np.all(flat.reshape(array.size, -1) == poison, axis=1)


def _report(kernel, arg, array, never):
    count = int(never.sum())
    first = int(np.argmax(never))
    where = ", ".join(str(int(i)) for i in np.unravel_index(first, array.shape)) or "0"
    message = (f"{arg.name}[{where}] was never written ({count} of {array.size} elements never "
               f"written)")
    return _metalsim.uninit_output_report(kernel, f"buffer({arg.index}) '{arg.name}'",
                                          first * array.itemsize, message)


def check(kernel, output_args, outputs, rerun, source):
    """Raises UninitError naming the first element of each output never written. `rerun()`
    dispatches again with the outputs poisoned SECOND_POISON and returns them."""
    suspects = [_untouched(o, POISON) for o in outputs]
    if not any(s.any() for s in suspects):
        return
    again = rerun()
    native = [_report(kernel, arg, o, s & _untouched(a, SECOND_POISON))
              for arg, o, s, a in zip(output_args, outputs, suspects, again)
              if (s & _untouched(a, SECOND_POISON)).any()]
    if native:
        text = "".join(r.text for r in native).rstrip("\n")
        raise UninitError(text, [Report(r) for r in native], source)
