"""perft's level sets: every full-turn state one turn after a level, inserted into an
open-addressing set that the caller grows."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import WORK
from .keys import HOT, NCARDS, PHASE_BIT
from .movegen import gen_children_into
from .table import _hash


@njit(**HOT)
def find_slot(sk0, sk1, stag, k0, k1, meta):
    """The slot of a state in an open-addressing table without replacement (the DAG walk's,
    perft's sets; stag = meta + 1, 0 = empty): where it is, or the empty slot where it goes;
    -1 when the table is full."""
    mask = np.uint64(sk0.shape[0] - 1)
    i = _hash(k0, k1, meta) & mask
    tag = np.uint8(meta + 1)
    for _ in range(sk0.shape[0]):
        if stag[i] == 0 or (stag[i] == tag and sk0[i] == k0 and sk1[i] == k1):
            return np.int64(i)
        i = (i + np.uint64(1)) & mask
    return np.int64(-1)


@njit(**HOT)
def _set_add(sk0, sk1, stag, k0, k1, meta):
    """Add a state to a set kept under half full (so it has a slot); 1 if it was new."""
    h = find_slot(sk0, sk1, stag, k0, k1, meta)
    new = 0
    if stag[h] == 0:
        sk0[h] = k0
        sk1[h] = k1
        stag[h] = np.uint8(meta + 1)
        new = 1
    return new


@njit(**HOT)
def set_rehash(ok0, ok1, otag, sk0, sk1, stag):
    """Move every state of one set into a larger one."""
    for h in range(ok0.shape[0]):
        if otag[h] != 0:
            _set_add(sk0, sk1, stag, ok0[h], ok1[h], np.int64(otag[h]) - 1)


@njit(**HOT)
def next_level(lk0, lk1, lmeta, start, n, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, work,
               sk0, sk1, stag, count):
    """perft's step: every full-turn state one turn after the states ``start..n-1`` of a level,
    added to a set (open addressing over sk0, sk1, stag; its size a power of two) that holds
    ``count[0]`` states, which is updated.  ``work`` is the search's scratch.

    Returns the level index to resume from (that state's turns again: a set does not mind) once
    the caller has grown the set (it stops when the set is more than half full), ``n`` when done,
    or -1 when the child buffer overflows.  After-Whale half-steps are expanded: a level holds
    only full turns (RULES.md, "Perft").
    """
    cap = ck0.shape[0]
    limit = sk0.shape[0] // 2
    pos = work[0:NCARDS]
    stk = work[NCARDS:2 * NCARDS]
    board = work[2 * NCARDS + WORK:]
    nogrp = work[0:0]
    added = count[0]
    i = start
    full = False
    while i < n and not full:
        end = gen_children_into(lk0[i], lk1[i], lmeta[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, 0, cap,
                                pos, stk, board, nogrp)
        if end > cap:
            return -1
        j = 0
        while j < end and not full:
            if (cmeta[j] & PHASE_BIT) != 0:
                # the turns after this Whale move go after the node's own children
                hi = gen_children_into(ck0[j], ck1[j], cmeta[j], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta,
                                       end, cap, pos, stk, board, nogrp)
                if hi > cap:
                    return -1
                for t in range(end, hi):
                    added += _set_add(sk0, sk1, stag, ck0[t], ck1[t], cmeta[t])
            else:
                added += _set_add(sk0, sk1, stag, ck0[j], ck1[j], cmeta[j])
            # checked per child (a Whale move adds at most a few thousand): the set never fills
            full = added > limit
            j += 1
        if not full:
            i += 1
    count[0] = added
    return i
