"""Every full turn of a run of positions, listed at once, each with the index of its position.

The perfect-play graph lists the next positions of every position it holds (172,000 for an
expert puzzle, a hundred turns each): one call for a run of positions, into flat arrays, costs
less than a call and a Python tuple for every turn.
"""

from __future__ import annotations

from numba import njit

from .bound import WORK
from .keys import HOT, NCARDS, PHASE_BIT
from .movegen import gen_turns_into


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
