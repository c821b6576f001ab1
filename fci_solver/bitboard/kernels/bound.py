"""The sound lower bound on the stacks left (the same bound as :mod:`fci_solver.bound`)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .keys import HOT, INF, NCARDS, RACCOON, _code, _lowest, _popcount, tops_of


@njit(**HOT)
def lower_bound(k0, k1, meta, cmask, cellrc, wk):
    """Same bound as :func:`fci_solver.bound.lower_bound` (see there for why it is sound).

    cmask: [cards whose eats can discard, cards whose ability moves or swaps stacks, those of them that
    move only their own stack], as bit masks;
    cellrc: per cell its row, column and a two-word mask of the cells within distance 2;
    wk: int64[WORK] scratch space (no allocation per call).
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, 2, 0)


@njit(**HOT)
def quick_bound(k0, k1, meta, cmask, cellrc, wk):
    """The bound without geometry (where stacks can still meet) and without the search over discard choices (each discard is
    assumed to remove one stuck unstacked top): cheap enough to run on every generated child.

    The search prunes children with it, then those it leaves with :func:`discard_bound`, then
    (where cards move stacks) the full bound on those that are no game end, before it enters any.
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, 0, 0)


@njit(**HOT)
def discard_bound(k0, k1, meta, cmask, cellrc, wk, beta=INF):
    """The bound with the search over discard choices but without geometry: what the search
    gives a generated child, before entering it (only where the quick bound is below ``beta``
    is the discard search run).  On wide boards most children the quick bound leaves are cut by
    it (cross seed 151, both sea animals: 8.45 million of the 8.75 million children entered only
    to be cut by their bound), and entering one costs more.
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, 1, beta)


@njit(**HOT)
def _bound(k0, k1, meta, cmask, cellrc, wk, level, beta):
    # level: 0 quick, 1 with the discard search where the quick one is below beta, 2 with the
    # discard search and geometry (the full bound)
    # bit masks, not arrays: this runs once per generated child
    tops, stacked = tops_of(k0, k1)
    shark = meta & 1
    discards = 1 if ((meta >> 2) & 7) == RACCOON else 0
    src = tops & cmask[0]
    while src:
        c = _lowest(src)
        src &= src - 1
        below = tops & ((1 << c) - 1)
        near = below >> (c - 3) if c >= 3 else below
        discards += _popcount(near) + shark
    less = 1 if shark == 1 and _popcount(tops) >= 2 else 0  # the Shark's one eat
    if level < 2:
        st = _stuck_plain(tops)
        loose = _popcount(st & ~stacked) - discards
        n = _popcount(st & stacked) + (loose if loose > 0 else 0) - less
        if level == 0 or n >= beta:
            return n if n > 1 else 1  # (builtin max and min are calls here, not inlined)
    n = _fewest_stuck(tops, stacked, discards, wk, True)
    if level == 2 and n < _popcount(tops) and (meta & 2) == 0 and _still(k0, k1, tops, cmask[1] & ~cmask[2], cmask[2], shark, cellrc, wk):
        n = _fewest_stuck(tops, stacked, discards, wk, False)
    n -= less
    return n if n > 1 else 1


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
def _stuck_plain(r):
    """Tops of ``r`` that no top of ``r`` can eat (an eater is 1-3 higher)."""
    return r & ~((r >> 1) | (r >> 2) | (r >> 3))


@njit(**HOT)
def _stuck(r, wk, plain):
    """Tops of ``r`` that no top of ``r`` can eat: one 1-3 above (``plain``), or, if not, one
    of wk[t], the cards that may ever eat t."""
    if plain:
        return _stuck_plain(r)
    st = 0
    x = r
    while x:
        t = _lowest(x)
        x &= x - 1
        if (r & wk[t]) == 0:
            st |= 1 << t
    return st


DISCARD_DEPTH = 3
WORK = 7 * NCARDS + 128  # scratch space of the bound: eaters per card, then the discard search's
# stack (or, before it, the cells, the tops by cell and the reach sets of _still)


@njit(**HOT)
def _fewest_stuck(tops, stacked, discards, wk, plain):
    """The fewest stuck tops left after discarding at most ``discards`` unstacked tops.

    Only a top that is stuck when it goes is worth discarding, highest first, and a discarded top
    never ate (it would be stacked), so it is no eater: its prey may become stuck in turn.  The
    choices are searched ``DISCARD_DEPTH`` deep; below that, each remaining discard is assumed to
    remove one stuck unstacked top.
    """
    st = _stuck(tops, wk, plain)
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
        st = _stuck(r, wk, plain)
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
def _far_prey(tops, r, c):
    """Whether some top has cards above it that could eat it by value but none within distance 2:
    only then is the reach analysis worth its cost (the bound computes it only then)."""
    x = tops
    while x:
        t = _lowest(x)
        x &= x - 1
        eat = tops & (7 << (t + 1))
        if eat:
            near = False
            while eat:
                e = _lowest(eat)
                eat &= eat - 1
                if abs(r[t] - r[e]) + abs(c[t] - c[e]) <= 2:
                    near = True
                    break
            if not near:
                return True
    return False


@njit(**HOT)
def _prey(e, tops, shark):
    """The tops ``e`` could eat by value (with the Shark, any lower one)."""
    prey = tops & ((1 << e) - 1)
    if shark == 0 and e > 3:
        prey &= 7 << (e - 3)
    return prey


@njit(**HOT)
def _meets(a, b, S, N, F):
    return ((F >> a) & 1) != 0 or ((F >> b) & 1) != 0 or (N[a] & S[b]) != 0


@njit(**HOT)
def _still(k0, k1, tops, movers, own, shark, cellrc, wk):
    """Whether no ability can ever move another card's stack (and some top's eaters are all far
    from it); if so, wk[t] becomes the cards that may ever come within reach of t and eat it (see
    fci_solver.bound.reach_sets for why).

    movers: the cards whose ability moves or swaps any stack; own: those that move their own.
    S[c] (a card mask) holds the cards whose cells c's stack may yet stand on: it moves only onto
    what it eats.  N[c] is every card within distance 2 of one of them.  F: the cards that may go
    anywhere (an ``own`` mover that may eat, and whatever may eat such a card).  c may ever eat q
    only if one of them is in F or N[c] meets S[q].
    """
    r = wk[NCARDS:2 * NCARDS]
    c = wk[2 * NCARDS:3 * NCARDS]
    near = wk[3 * NCARDS:4 * NCARDS]
    S = wk[4 * NCARDS:5 * NCARDS]
    N = wk[5 * NCARDS:6 * NCARDS]
    cell_of = wk[6 * NCARDS:7 * NCARDS]
    at = wk[7 * NCARDS:7 * NCARDS + 128]  # the top on a cell (read only where the mask says one is)
    occ0 = np.uint64(0)
    occ1 = np.uint64(0)
    x = tops
    while x:
        i = _lowest(x)
        x &= x - 1
        cell = (np.int64(_code(k0, k1, i)) - 1) >> 1
        r[i] = cellrc[cell, 0]
        c[i] = cellrc[cell, 1]
        cell_of[i] = cell
        at[cell] = i
        if cell < 64:
            occ0 |= np.uint64(1) << np.uint64(cell)
        else:
            occ1 |= np.uint64(1) << np.uint64(cell - 64)
    # cheap refusals first: a mover already within reach of its prey, or no top worth it
    x = tops & movers
    while x:
        m = _lowest(x)
        x &= x - 1
        prey = _prey(m, tops, shark)
        while prey:
            q = _lowest(prey)
            prey &= prey - 1
            if abs(r[m] - r[q]) + abs(c[m] - c[q]) <= 2:
                return False
    if not _far_prey(tops, r, c):
        return False
    # the tops within distance 2 of each: its cell's neighbourhood mask against the occupied cells
    # (pairs measured one by one cost a tenth of a plain solve)
    x = tops
    while x:
        i = _lowest(x)
        x &= x - 1
        cell = cell_of[i]
        m = 0
        y = np.uint64(cellrc[cell, 2]) & occ0
        while y:
            m |= 1 << at[trailing_zeros(y)]
            y &= y - np.uint64(1)
        y = np.uint64(cellrc[cell, 3]) & occ1
        while y:
            m |= 1 << at[64 + trailing_zeros(y)]
            y &= y - np.uint64(1)
        near[i] = m
        S[i] = 1 << i
        N[i] = m
    # S, N and F of a card depend only on its own and on its prey's, all lower cards: settled in
    # one pass from the lowest card up, each card's own prey looked at until nothing changes
    F = 0
    x = tops
    while x:
        e = _lowest(x)
        x &= x - 1
        changed = True
        while changed:
            changed = False
            prey = _prey(e, tops, shark)
            while prey:
                q = _lowest(prey)
                prey &= prey - 1
                if not _meets(e, q, S, N, F):
                    continue
                new = S[q] & ~S[e]
                if new != 0:
                    S[e] |= new
                    while new:
                        j = _lowest(new)
                        new &= new - 1
                        N[e] |= near[j]
                    changed = True
                if ((F >> e) & 1) == 0 and (((F >> q) & 1) != 0 or ((own >> e) & 1) != 0):
                    F |= 1 << e
                    changed = True
    x = tops & movers
    while x:
        m = _lowest(x)
        x &= x - 1
        prey = _prey(m, tops, shark)
        while prey:
            q = _lowest(prey)
            prey &= prey - 1
            if _meets(m, q, S, N, F):
                return False
    x = tops
    while x:
        t = _lowest(x)
        x &= x - 1
        eat = tops & (7 << (t + 1))
        e_ok = 0
        while eat:
            e = _lowest(eat)
            eat &= eat - 1
            if _meets(e, t, S, N, F):
                e_ok |= 1 << e
        wk[t] = e_ok
    return True
