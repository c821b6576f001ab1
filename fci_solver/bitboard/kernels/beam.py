"""A wide, shallow probe for a line down to the lower bound: a beam search, turn by turn.

Most deals end with as few stacks as the lower bound allows, and the exact search spends most of
a slow deal's states refuting its first, wrong choices before it finds such a line.  A beam keeps
the ``width`` most promising positions of each turn (bound first, then how near the tops are to
their eaters) and expands all of them: it does not commit to one first choice, and a line it
finds down to the bound is a proof.  It proves nothing when it finds none.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import _spread, discard_bound, lower_bound
from .keys import HOT, PHASE_BIT, stack_count
from .movegen import gen_children_below
from .perft import find_slot

SPREAD_SPAN = 4096  # a score is bound * SPREAD_SPAN + spread (a spread is below it on any board)


@njit(**HOT)
def beam_children(lk0, lk1, lmeta, first, n, target, ab, prey, mid, bydist, dstart, maxd, cmask, cellrc,
                  ck0, ck1, cmeta, score, parent, grp, clb, pos, stk, board, wk, skip, m):
    """The children of level keys ``first``..``n`` - 1 whose bound is at most ``target``, appended
    from index ``m`` with their score and their parent's index; returns (the level index it stopped
    at, the number of children written, the index of a child ending with at most ``target`` stacks
    or -1, the children generated).  It stops before a parent whose children might not fit: call
    again from there with larger buffers."""
    cap = ck0.shape[0]
    made = 0
    i = first
    while i < n:
        end = gen_children_below(np.uint64(lk0[i]), np.uint64(lk1[i]), lmeta[i], ab, prey, mid, bydist, dstart, maxd,
                                 ck0, ck1, cmeta, m, cap, pos, stk, board, grp, target + 1, cmask, cellrc, wk, skip,
                                 clb, 1)
        if end > cap:
            return i, m, -1, made
        made += end - m
        for j in range(m, end):
            b = clb[j]
            if b < 0:
                b = discard_bound(ck0[j], ck1[j], cmeta[j], cmask, cellrc, wk, target + 1)
            if b > target:
                continue
            if (cmeta[j] & PHASE_BIT) == 0 and stack_count(ck0[j], ck1[j]) <= target:
                parent[j] = i
                return i + 1, j + 1, j, made
            ck0[m] = ck0[j]
            ck1[m] = ck1[j]
            cmeta[m] = cmeta[j]
            score[m] = b * SPREAD_SPAN + _spread(ck0[j], ck1[j], cellrc, wk)
            parent[m] = i
            m += 1
        i += 1
    return i, m, -1, made


@njit(cache=True, nogil=True)
def score_order(score, n):
    """Indices ``0``..``n`` - 1 by score, lowest first, in index order among equal ones: the order
    of a stable sort, by counting, since scores are small integers (numba's merge sort took
    0.2 s on a million, most of a wide beam's selection)."""
    top = 0
    for i in range(n):
        top = max(top, score[i])
    start = np.zeros(top + 2, np.int64)
    for i in range(n):
        start[score[i] + 1] += 1
    for s in range(1, top + 2):
        start[s] += start[s - 1]
    order = np.empty(n, np.int64)
    for i in range(n):
        s = score[i]
        order[start[s]] = i
        start[s] += 1
    return order


@njit(cache=True, nogil=True)
def beam_select(ck0, ck1, cmeta, score, n, width, target, cmask, cellrc, wk):
    """Indices of the best ``width`` distinct children of ``n`` (lowest score first, generation
    order among equal ones) that the full bound (with where stacks can still meet) leaves at
    most ``target``."""
    order = score_order(score, n)
    keep = np.empty(min(width, n), np.int64)
    size = 4
    while size < 4 * width:
        size *= 2
    sk0 = np.zeros(size, np.uint64)  # the kept ones, as a set (perft's kind: never over a quarter full)
    sk1 = np.zeros(size, np.uint64)
    stag = np.zeros(size, np.uint8)
    kept = 0
    for idx in order:
        if kept == keep.shape[0]:
            break
        slot = find_slot(sk0, sk1, stag, ck0[idx], ck1[idx], cmeta[idx])
        if stag[slot] != 0 or lower_bound(ck0[idx], ck1[idx], cmeta[idx], cmask, cellrc, wk) > target:
            continue
        sk0[slot] = ck0[idx]
        sk1[slot] = ck1[idx]
        stag[slot] = np.uint8(cmeta[idx] + 1)
        keep[kept] = idx
        kept += 1
    return keep[:kept]
