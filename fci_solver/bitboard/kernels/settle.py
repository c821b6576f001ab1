"""Many positions classified at once without a search: by the bound, the table, or as a game end.

The perfect-play graph asks of millions of next positions whether each can still reach the
minimum; late in the game most are answered by the bound or by what earlier searches left in the
table, and one kernel call over a batch costs less than a search call per position.
"""

from __future__ import annotations

from numba import njit

from .dfs import entry_value
from .keys import HOT, NCARDS, stack_count


@njit(**HOT)
def known_values(ck0, ck1, cmeta, n, beta, tt, cmask, cellrc, reach, wk, out):
    """For each of the first ``n`` keys, into ``out``: its exact value, or a bound >= ``beta``,
    where the bound, the table or the key alone tells it (as the search tells it when it enters
    a node), else -1.  wk: int64[WORK] scratch (its first NCARDS words also serve the game-end
    test)."""
    for j in range(n):
        k0 = ck0[j]
        k1 = ck1[j]
        ret, _, over = entry_value(k0, k1, cmeta[j], beta, tt, cmask, cellrc, reach, wk, wk[:NCARDS])
        out[j] = stack_count(k0, k1) if over else ret
