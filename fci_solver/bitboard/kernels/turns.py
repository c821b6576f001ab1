"""Every full turn of a run of positions, listed at once, each with the index of its position.

The perfect-play graph lists the next positions of every position it holds (172,000 for an
expert puzzle, a hundred turns each): one call for a run of positions, into flat arrays, costs
less than a call and a Python tuple for every turn.  The rows are then sorted position by position
and their distinct next positions picked out here too (numpy's lexsort and unique over a slice
cost the graph's main thread 2.4 times as much).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import WORK
from .keys import HOT, NCARDS, PHASE_BIT
from .movegen import gen_turns_into
from .table import _hash


@njit(**HOT)
def list_turns(pk0, pk1, pmeta, start, n, limit, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, cpar, work,
               got):
    """List every way to play a turn from positions ``start..n-1`` into the buffer from index 0:
    its full-turn next position (an after-Whale half-step is replaced by the turns after it) and,
    in ``cpar``, the index of the position.  Stops after the position that brings the count to
    ``limit`` or more, or before one whose turns would not fit.  Returns the index of the first
    position not listed (-1 when the first one's turns alone overflow the buffer); ``got[0]``
    becomes the number listed.  ``work`` is the search's scratch."""
    cap = ck0.shape[0]
    pos = work[0:NCARDS]
    stk = work[NCARDS:2 * NCARDS]
    board = work[2 * NCARDS + WORK:2 * NCARDS + WORK + bydist.shape[0]]
    nogrp = work[0:0]
    base = 0
    i = start
    while i < n and base < limit:
        # both orders of a double move (once = 0): each is a way to play the turn
        end = gen_turns_into(pk0[i], pk1[i], pmeta[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, base, cap,
                             pos, stk, board, nogrp, 0)
        if end > cap:
            got[0] = base
            return -1 if base == 0 else i
        w = base
        for j in range(base, end):
            if (cmeta[j] & PHASE_BIT) == 0:
                ck0[w] = ck0[j]
                ck1[w] = ck1[j]
                cmeta[w] = cmeta[j]
                cpar[w] = i
                w += 1
        base = w
        i += 1
    got[0] = base
    return i


@njit(**HOT)
def _before(ck0, ck1, cmeta, a, b):
    """Whether row a's next position sorts before row b's (as the tuple (k0, k1, meta))."""
    if ck0[a] != ck0[b]:
        return ck0[a] < ck0[b]
    if ck1[a] != ck1[b]:
        return ck1[a] < ck1[b]
    return cmeta[a] < cmeta[b]


@njit(**HOT)
def _sort_run(ck0, ck1, cmeta, order, lo, hi, tmp):
    """Sort ``order[lo:hi]`` (row indices) stably by next position: insertion for a few rows (most
    positions), else a bottom-up merge through ``tmp`` (the Whale's turns: thousands)."""
    if hi - lo <= 32:
        for j in range(lo + 1, hi):
            x = order[j]
            i = j - 1
            while i >= lo and _before(ck0, ck1, cmeta, x, order[i]):
                order[i + 1] = order[i]
                i -= 1
            order[i + 1] = x
        return
    n = hi - lo
    src = order[lo:hi]
    dst = tmp[:n]
    swapped = False
    width = 1
    while width < n:
        s = 0
        while s < n:
            m = min(s + width, n)
            e = min(s + 2 * width, n)
            a = s
            b = m
            for o in range(s, e):
                if a < m and (b >= e or not _before(ck0, ck1, cmeta, src[b], src[a])):
                    dst[o] = src[a]
                    a += 1
                else:
                    dst[o] = src[b]
                    b += 1
            s = e
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:
        for o in range(n):
            order[lo + o] = src[o]


@njit(**HOT)
def group_rows(ck0, ck1, cmeta, cpar, n, order, tmp):
    """Row indices ``order[:n]`` by position, then by next position, ties in listing order (rows
    come position by position); ``tmp`` is scratch of n words."""
    for j in range(n):
        order[j] = j
    lo = 0
    while lo < n:
        hi = lo + 1
        while hi < n and cpar[hi] == cpar[lo]:
            hi += 1
        _sort_run(ck0, ck1, cmeta, order, lo, hi, tmp)
        lo = hi


@njit(cache=True, nogil=True)
def first_seen(k0, k1, meta, n):
    """The indices of the first rows of ``k0, k1, meta`` (n of them) to hold each distinct key,
    in row order (an open-addressed set over the slice)."""
    size = 1 << 4
    while size < 2 * n:
        size <<= 1
    mask = np.uint64(size - 1)
    at = np.full(size, -1, np.int64)
    out = np.empty(n, np.int64)
    m = 0
    for j in range(n):
        i = _hash(k0[j], k1[j], meta[j]) & mask
        while True:
            r = at[i]
            if r < 0:
                at[i] = j
                out[m] = j
                m += 1
                break
            if k0[r] == k0[j] and k1[r] == k1[j] and meta[r] == meta[j]:
                break
            i = (i + np.uint64(1)) & mask
    return out[:m]
