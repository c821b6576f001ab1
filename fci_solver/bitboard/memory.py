"""Large zeroed arrays, their pages faulted in a slice at a time so that Ctrl-C is answered.

numpy's zeros come from the system untouched, and the first touch of each page costs a fault
(here, with numpy asking for 2 MB pages and the kernel compacting memory to find them, up to
seconds a gigabyte).  Left to the kernels, the first call into a large fresh array takes those
faults in one uninterruptible call (a search table of 2^26 entries: 3.6 s; a perft set of 2^27
slots: 5-6 s).  Touched here first, the cost is the same, paid between looks at Ctrl-C.
"""

from __future__ import annotations

import os

import numpy as np

from ..interrupt import check as check_interrupt

SLICE_BYTES = 48 << 20  # touched between two looks at Ctrl-C (a few hundredths of a second)


def machine_bytes() -> int:
    """This machine's memory (8 GiB where the system does not tell)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def zeros(shape, dtype, touch_above: int = 0) -> np.ndarray:
    """``np.zeros(shape, dtype)``; one of more than ``touch_above`` bytes is faulted in first."""
    a = np.zeros(shape, dtype)
    if a.nbytes > touch_above:
        flat = a.reshape(-1)
        step = max(1, SLICE_BYTES // a.itemsize)
        for lo in range(0, flat.shape[0], step):
            flat[lo:lo + step] = 0
            check_interrupt()
    return a


LINE = 128  # bytes: two cache lines, since the next line is fetched with one


def apart(shape, dtype) -> np.ndarray:
    """An array of zeros on cache lines of its own: small arrays that two threads
    write at once (each its own search's control words and scratch), when numpy puts them side
    by side, share a line, which then moves between the cores at every write."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.empty(n * dtype.itemsize + 3 * LINE, np.uint8)
    start = -raw.ctypes.data % LINE + LINE
    a = raw[start:start + n * dtype.itemsize].view(dtype).reshape(shape)
    a[...] = 0
    return a
