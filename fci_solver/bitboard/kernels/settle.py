"""Many positions classified at once without a search: by the bound, the table, or as a game end.

The perfect-play graph asks of millions of next positions whether each can still reach the
minimum; late in the game most are answered by the bound or by what earlier searches left in the
table, and one kernel call over a batch costs less than a search call per position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import lower_bound
from .keys import HOT, NCARDS, stack_count
from .movegen import no_turn
from .table import tt_lookup


@njit(**HOT)
def known_values(ck0, ck1, cmeta, n, beta, tt, cmask, cellrc, reach, wk, out):
    """For each of the first ``n`` keys, into ``out``: its exact value, or a bound >= ``beta``, when
    the bound, the table or the key alone tells it (``known[j] = 1``), else -1.

    wk: int64[WORK] scratch (its first NCARDS words also serve the game-end test).
    """
    settled = 0
    for j in range(n):
        k0 = ck0[j]
        k1 = ck1[j]
        meta = cmeta[j]
        lb = lower_bound(k0, k1, meta, cmask, cellrc, wk)
        if lb >= beta:
            out[j] = lb
            settled += 1
            continue
        w = tt_lookup(tt, k0, k1, meta)
        if w >= 0 and ((w >> 8) == 1 or (w & 255) >= beta):
            out[j] = w & 255
            settled += 1
            continue
        if (meta & 2) == 0 and no_turn(k0, k1, meta, reach, wk[:NCARDS]):
            out[j] = stack_count(k0, k1)
            settled += 1
            continue
        out[j] = -1
    return settled
