"""Many searches from an empty table, one after another in one kernel call: the options of a
decision of the effort line (:mod:`fci_solver.effort`).

An option's effort is the states a search started afresh needs to prove it keeps the minimum,
so each search gets a table of its own, zeroed first.  A decision with the Whale has 10^4-10^5
options, most settled within a few states: one call over them all costs less than a call each
(eight-card deal 3 with both sea animals: 70% of the effort line's time was the calls).
"""

from __future__ import annotations

from numba import njit

from .dfs import search, start_walk
from .keys import HOT

MIN_ENTRIES = 1 << 10  # the smallest table a search gets
# need[i] on return: the states that proved key i, or one of these
NOT_WITHIN = -2  # not proven within the cap
REFUTED = -3  # the search ended within the cap: the minimum is not reachable (no larger cap proves it)


@njit(**HOT)
def table_entries(slots, cap, rows):
    """The power of two of at least ``slots`` entries a state of ``cap`` (MIN_ENTRIES at least),
    at most ``rows``."""
    want = slots * cap
    e = MIN_ENTRIES
    while e < want:
        e *= 2
    return min(e, rows)


@njit(**HOT)
def _zero(tt, n):
    for r in range(n):
        tt[r, 0] = 0
        tt[r, 1] = 0
        tt[r, 2] = 0


@njit(**HOT)
def effort_each(ck0s, ck1s, cmetas, need, i, beta, budget, least, slots, tbuf,
                fr, ck0, ck1, cmeta, clb, grp, ab, prey, mid, reach, bydist, dstart, maxd, cmask, cellrc,
                ctl, inc, work):
    """Search each key from index ``i`` on whose ``need`` is -1 afresh (near-first order, both
    orders of a double move, a zeroed table of :func:`table_entries` of ``tbuf``'s rows), with a
    cap of ``min(budget, least[0])`` states, for a line below ``beta`` stacks; write to ``need``
    the states that proved it, or NOT_WITHIN, or REFUTED; lower ``least[0]`` to each figure found
    (other threads may share ``least``: a stale read only searches further).  Runs until ctl[4]
    states are spent and returns the index to go on from.

    Call with ctl[1] = 1 and ctl[2] = 0 the first time: a search the call's budget cut leaves
    ctl[1] = 0, its frames and table in place (ctl[12] its states, ctl[13] its cap, ctl[14] its
    table's entries), and the next call resumes it.  ctl[1] = 3 on return: the child buffer
    overflowed.  ctl[2] adds up the states of the call.
    """
    n = need.shape[0]
    call = ctl[4]
    while i < n:
        if ctl[1] != 0:
            if need[i] != -1:
                i += 1
                continue
            cap = min(budget, least[0])
            ctl[13] = cap
            ctl[14] = table_entries(slots, cap, tbuf.shape[0])
            _zero(tbuf, ctl[14])
            start_walk(fr, ctl, ck0s[i], ck1s[i], cmetas[i], beta, 0, 1, 0, 0)
            ctl[12] = 0
        if ctl[2] >= call:
            break
        ctl[4] = min(call - ctl[2], ctl[13] - ctl[12])
        before = ctl[2]
        search(fr, ck0, ck1, cmeta, clb, grp, tbuf[:ctl[14]], ab, prey, mid, reach, bydist, dstart, maxd, cmask,
               cellrc, ctl, inc, work)
        ctl[12] += ctl[2] - before
        if ctl[1] == 3:
            break
        if ctl[1] == 1:
            if ctl[3] < beta:
                need[i] = ctl[12]
                if ctl[12] < least[0]:
                    least[0] = ctl[12]
            else:
                need[i] = REFUTED
        elif ctl[12] >= ctl[13]:
            need[i] = NOT_WITHIN
            ctl[1] = 1  # the next key starts a search of its own
        else:
            break  # the call's budget ran out: resumed next call
        i += 1
    ctl[4] = call
    return i
