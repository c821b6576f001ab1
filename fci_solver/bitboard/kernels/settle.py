"""Many positions classified at once: first by the bound, the table, or as a game end, then by
one search each, run one after another in the same kernel call.

The perfect-play graph asks of millions of next positions whether each can still reach the
minimum; late in the game most are answered by the bound or by what earlier searches left in the
table, and those left take a few states each: one kernel call over a batch costs less than a
call per position (turn 8 of an expert puzzle: 178,000 searches of 3 states each, 6 s, most of
it the calls).
"""

from __future__ import annotations

from numba import njit

from .dfs import entry_value, search, start_walk
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
        ret, _, over = entry_value(k0, k1, cmeta[j], beta, tt, cmask, cellrc, reach, wk, wk[:NCARDS], wk[:0])
        out[j] = stack_count(k0, k1) if over else ret


@njit(**HOT)
def search_each(ck0s, ck1s, cmetas, out, i, beta, floor, near, once, each,
                fr, ck0, ck1, cmeta, clb, grp, tt, ab, prey, mid, reach, bydist, dstart, maxd, cmask, cellrc,
                ctl, inc, work):
    """Search each key from index ``i`` on whose ``out`` is still -1, one after another, writing
    its value (exact, or a bound >= ``beta``) to ``out``, until ctl[4] states have been spent;
    returns the index to go on from.  ``floor``, ``near`` and ``once`` as the search's ctl[10], ctl[9]
    and ctl[11].  ``each`` > 0: a search not done within that many states is given up, its ``out``
    set to -2 (a lower bound on the size of the perfect-play graph settles next positions so).

    Call with ctl[1] = 1 and ctl[2] = ctl[8] = 0 the first time: a search the budget cut leaves
    ctl[1] = 0 and its frames in place (ctl[12]: the states it has spent), and the next call
    resumes it.  ctl[1] = 3 on return: the child buffer overflowed.  ctl[2] and ctl[8] add up the
    states and table entries of the call.
    """
    n = out.shape[0]
    budget = ctl[4]
    while i < n:
        if ctl[1] != 0:
            if out[i] >= 0:
                i += 1
                continue
            start_walk(fr, ctl, ck0s[i], ck1s[i], cmetas[i], beta, 0, near, floor, once)
            ctl[12] = 0
        if ctl[2] >= budget:
            break
        ctl[4] = budget - ctl[2]
        if each > 0 and ctl[4] > each - ctl[12]:
            ctl[4] = each - ctl[12]
        before = ctl[2]
        search(fr, ck0, ck1, cmeta, clb, grp, tt, ab, prey, mid, reach, bydist, dstart, maxd, cmask, cellrc,
               ctl, inc, work)
        ctl[12] += ctl[2] - before
        if ctl[1] == 0 and each > 0 and ctl[12] >= each:
            out[i] = -2  # given up: the next key starts a search of its own
            ctl[1] = 1
            i += 1
            continue
        if ctl[1] != 1:
            break  # the budget ran out (0) or the buffer overflowed (3)
        out[i] = ctl[3]
        i += 1
    ctl[4] = budget
    return i
