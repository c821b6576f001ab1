"""The sound lower bound on the stacks left (the same bound as :mod:`fci_solver.bound`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import HOT, INF, NCARDS, RACCOON, _code, _lowest, _popcount


@njit(**HOT)
def lower_bound(k0, k1, meta, cmask, cellrc, wk):
    """Same bound as :func:`fci_solver.bound.lower_bound` (see there for why it is sound).

    cmask: [cards whose eats can discard, cards whose ability moves or swaps stacks], as bit masks;
    cellrc: (row, col) of each cell; wk: int64[WORK] scratch space (no allocation per call).
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, True)


@njit(**HOT)
def quick_bound(k0, k1, meta, cmask, cellrc, wk):
    """The bound without islands and without the search over discard choices (each discard is
    assumed to remove one stuck unstacked top): cheap enough to run on every generated child.

    The search orders and prunes children with it and applies the full bound when it enters one.
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, False)


@njit(**HOT)
def _bound(k0, k1, meta, cmask, cellrc, wk, islands):
    # bit masks, not arrays: this runs once per generated child
    tops = 0
    stacked = 0
    for i in range(NCARDS):
        code = _code(k0, k1, i)
        if code != 0:
            tops |= 1 << i
            if (np.int64(code) - 1) & 1:
                stacked |= 1 << i
    shark = meta & 1
    discards = 1 if ((meta >> 2) & 7) == RACCOON else 0
    src = tops & cmask[0]
    while src:
        c = _lowest(src)
        src &= src - 1
        below = tops & ((1 << c) - 1)
        near = below >> (c - 3) if c >= 3 else below
        discards += _popcount(near) + shark
    wk[0] = tops
    if islands:
        n = _fewest_stuck(tops, stacked, discards, wk, 1)
        if n < _popcount(tops) and (meta & 2) == 0 and not _can_move(tops, cmask[1], shark):
            nisl = _islands(k0, k1, tops, cellrc, wk)
            n = _fewest_stuck(tops, stacked, discards, wk, nisl)
    else:
        st = _stuck(tops, wk, 1)
        loose = _popcount(st & ~stacked) - discards
        n = _popcount(st & stacked) + (loose if loose > 0 else 0)
    if shark == 1 and _popcount(tops) >= 2:
        n -= 1
    return n if n > 1 else 1  # (builtin max and min are calls here, not inlined)


@njit(**HOT)
def _spread(k0, k1, cellrc, wk):
    """How far the tops are from their nearest possible eater: sum over tops with an eater on top
    of (Manhattan distance to the nearest one - 1).  A tie-break for move ordering only."""
    r = wk[NCARDS:NCARDS + NCARDS]
    c = wk[NCARDS + NCARDS:NCARDS + 2 * NCARDS]
    tops = 0
    for i in range(NCARDS):
        code = _code(k0, k1, i)
        if code != 0:
            tops |= 1 << i
            cell = (np.int64(code) - 1) >> 1
            r[i] = cellrc[cell, 0]
            c[i] = cellrc[cell, 1]
    s = 0
    for t in range(NCARDS - 1):
        if (tops >> t) & 1:
            best = INF
            for e in range(t + 1, min(t + 4, NCARDS)):
                if (tops >> e) & 1:
                    dd = abs(r[t] - r[e]) + abs(c[t] - c[e])
                    if dd < best:
                        best = dd
            if best < INF:
                s += best - 1
    return s


@njit(**HOT)
def _stuck(r, wk, nisl):
    """Tops of ``r`` that no top of ``r`` in their island (masks in wk[:nisl]) can eat (an eater is 1-3 higher)."""
    st = 0
    for i in range(nisl):
        m = r & wk[i]
        st |= m & ~((m >> 1) | (m >> 2) | (m >> 3))
    return st


DISCARD_DEPTH = 3


DISCARD_DEPTH = 3
WORK = NCARDS + 192  # scratch space of the bound: island masks, then the discard search's stack


@njit(**HOT)
def _fewest_stuck(tops, stacked, discards, wk, nisl):
    """The fewest stuck tops left after discarding at most ``discards`` unstacked tops.

    Only a top that is stuck when it goes is worth discarding, highest first, and a discarded top
    never ate (it would be stacked), so it is no eater: its prey may become stuck in turn.  The
    choices are searched ``DISCARD_DEPTH`` deep; below that, each remaining discard is assumed to
    remove one stuck unstacked top.
    """
    st = _stuck(tops, wk, nisl)
    if discards == 0:
        return _popcount(st)
    best = INF
    rs = wk[NCARDS:NCARDS + 64]
    last = wk[NCARDS + 64:NCARDS + 128]
    depth = wk[NCARDS + 128:NCARDS + 192]
    rs[0] = tops
    last[0] = NCARDS
    depth[0] = 0
    sp = 1  # pending choices: at most 16 per level on DISCARD_DEPTH levels, 48 < 64
    while sp > 0:
        sp -= 1
        r = rs[sp]
        d = depth[sp]
        below = last[sp]
        st = _stuck(r, wk, nisl)
        left = discards - d
        if d == DISCARD_DEPTH:
            loose = _popcount(st & ~stacked) - left
            v = _popcount(st & stacked) + (loose if loose > 0 else 0)
        else:
            v = _popcount(st)
            if left > 0:
                cand = st & ~stacked & ((1 << below) - 1)
                while cand:
                    u = _lowest(cand)
                    cand &= cand - 1
                    rs[sp] = r & ~(1 << u)
                    last[sp] = u
                    depth[sp] = d + 1
                    sp += 1
        if v < best:
            best = v
    return best


@njit(**HOT)
def _can_move(tops, movers, shark):
    """Whether a card that moves or swaps stacks is on top and has something it can still eat."""
    m = tops & movers
    while m:
        c = _lowest(m)
        m &= m - 1
        below = tops & ((1 << c) - 1)
        if shark == 1 and below != 0:
            return True
        if (below >> (c - 3) if c >= 3 else below) != 0:
            return True
    return False


@njit(**HOT)
def _islands(k0, k1, tops, cellrc, wk):
    """Split the tops into islands: groups linked by steps of Manhattan distance <= 2 between
    their stacks' cells.  Writes the islands' card masks into ``wk`` and returns how many."""
    r = wk[NCARDS:NCARDS + NCARDS]  # free until _fewest_stuck runs on the islands
    c = wk[NCARDS + NCARDS:NCARDS + 2 * NCARDS]
    for i in range(NCARDS):
        if (tops >> i) & 1:
            code = _code(k0, k1, i)
            cell = (np.int64(code) - 1) >> 1
            r[i] = cellrc[cell, 0]
            c[i] = cellrc[cell, 1]
    nisl = 0
    left = tops
    while left:
        island = 1 << _lowest(left)
        frontier = island
        while frontier:
            i = _lowest(frontier)
            frontier &= frontier - 1
            rest = left & ~island
            while rest:
                j = _lowest(rest)
                rest &= rest - 1
                if abs(r[i] - r[j]) + abs(c[i] - c[j]) <= 2:
                    island |= 1 << j
                    frontier |= 1 << j
        left &= ~island
        wk[nisl] = island
        nisl += 1
    return nisl
