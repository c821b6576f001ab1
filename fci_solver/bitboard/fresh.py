"""Many searches, each from an empty table, in one kernel call at a time: the options of one
decision of the effort line (:mod:`fci_solver.effort`), each searched afresh.

The kernel (:func:`.kernels.effort_each`) runs the searches one after another until a chunk of
states is spent; between two calls this module looks for Ctrl-C and the deadline.
"""

from __future__ import annotations

import time

import numpy as np

from .. import interrupt
from . import kernels as K
from .engine import Engine
from .search import check_overflow, walk_arrays

NOT_WITHIN, REFUTED = K.NOT_WITHIN, K.REFUTED
# States per kernel call.  The main thread runs the call on one thread, and Ctrl-C is taken
# between calls: a search state near the start of a deal can cost 60-100 us, so a call stays
# within a tenth of a second, against a call's own cost of a few microseconds.
CHUNK = 1000


def fresh_needs(eng: Engine, keys: np.ndarray, need: np.ndarray, beta: int, budget: int, least: np.ndarray,
                slots: int, rows: int, deadline: float | None = None, report=None) -> int:
    """For each row ``[k0, k1, meta]`` of ``keys`` whose ``need`` is -1: the states a search from an
    empty table (near-first order, both orders of a double move) needs to find a line below
    ``beta`` stacks, capped at ``min(budget, least[0])``; else :data:`NOT_WITHIN` or, when the
    search ended without one, :data:`REFUTED`.  ``need`` is written in place and ``least[0]``
    lowered to each figure found (threads may share it).  Each search's table is a power of two
    of at least ``slots`` entries a state of its cap, at most ``rows``.  Returns the states spent;
    raises :class:`TimeoutError` once ``deadline`` passes.  ``report(n)``: n more keys done."""
    k0 = np.ascontiguousarray(keys[:, 0])
    k1 = np.ascontiguousarray(keys[:, 1])
    meta = keys[:, 2].astype(np.int64)
    tbuf = np.zeros((rows, K.FIELDS), np.uint64)
    fr, ctl, inc = walk_arrays()
    ctl[1] = 1  # no search under way: the kernel starts one
    ck0, ck1, cmeta, clb, cgrp = eng.buffers()
    i = spent = 0
    while i < need.shape[0]:
        interrupt.check()
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeoutError
        ctl[2] = 0
        ctl[4] = CHUNK
        j = K.effort_each(k0, k1, meta, need, i, beta, budget, least, slots, tbuf, fr, ck0, ck1, cmeta, clb, cgrp,
                          eng.ab, eng.prey, eng.mid, eng.reach, eng.bydist, eng.dstart, eng.maxd, eng.cmask,
                          eng.cellrc, ctl, inc, eng.work)
        spent += int(ctl[2])
        check_overflow(int(ctl[1]))
        if report and j > i:
            report(j - i)
        i = j
    return spent
