"""perft's level sets: every full-turn state one turn after a level, in an open-addressing
set that the caller grows.

A level is made in two steps that can run on different threads: the children of a run of the
level are listed into a buffer (:func:`level_children`), and a buffer's children are added to
the set (:func:`add_children`).  Listing is work for the CPU; adding waits on memory (the
standard layout's perft(3): 39 million children, 11.7 million distinct, in a 570 MB set), and
a second thread adding to the same set was no faster here, so one thread adds while the others
list.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import WORK
from .keys import HOT, NCARDS, PHASE_BIT
from .movegen import gen_children_into, gen_turns_into
from .table import _hash, _prefetch

AHEAD = 16  # children between a slot's load and its use in add_children


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
def add_children(ck0, ck1, cmeta, start, n, sk0, sk1, stag, count):
    """Add children ``start..n-1`` to the set (``count[0]`` states, updated), skipping
    after-Whale half-steps (a level holds full turns only).  Stops at the first new child that
    would leave the set more than half full and returns its index (the caller grows the set and
    goes on from there); ``n`` when done."""
    half = sk0.shape[0] // 2
    mask = np.uint64(sk0.shape[0] - 1)
    added = count[0]
    j = start
    while j < n:
        # Start loading the slot of the child AHEAD places on: an add waits on memory, and loads
        # begun early overlap (standard perft(3)'s adds: 2.1-2.3 -> 1.1-1.3 s)
        a = j + AHEAD
        if a < n:
            q = np.int64(_hash(ck0[a], ck1[a], cmeta[a]) & mask)
            _prefetch(stag, q)
            _prefetch(sk0, q)
            _prefetch(sk1, q)
        m = cmeta[j]
        if (m & PHASE_BIT) == 0:
            h = find_slot(sk0, sk1, stag, ck0[j], ck1[j], m)
            if stag[h] == 0:
                if added >= half:
                    break
                sk0[h] = ck0[j]
                sk1[h] = ck1[j]
                stag[h] = np.uint8(m + 1)
                added += 1
        j += 1
    count[0] = added
    return j


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
def set_rehash(ok0, ok1, otag, lo, hi, sk0, sk1, stag):
    """Move the states in slots ``lo..hi-1`` of one set into a larger one."""
    for h in range(lo, hi):
        if otag[h] != 0:
            _set_add(sk0, sk1, stag, ok0[h], ok1[h], np.int64(otag[h]) - 1)


@njit(**HOT)
def collect(sk0, sk1, stag, lk0, lk1, lmeta):
    """The set's states, in slot order, into a level's arrays (as long as the set's count)."""
    o = 0
    for h in range(stag.shape[0]):
        if stag[h] != 0:
            lk0[o] = sk0[h]
            lk1[o] = sk1[h]
            lmeta[o] = np.int64(stag[h]) - 1
            o += 1


@njit(**HOT)
def level_children(lk0, lk1, lmeta, start, n, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, work, got,
                   whole=1):
    """List the children of the level's states ``start..n-1`` into the child buffer, each
    after-Whale half-step followed by the turns after it (``whole`` 0: the half-step alone), from
    ``got[0]`` on, and stop before a state whose children would not fit.  Returns the index of
    the first state not listed (``n`` when done, -1 when one state's children alone overflow the
    buffer); ``got[0]`` becomes the number listed.  ``work`` is the search's scratch."""
    cap = ck0.shape[0]
    pos = work[0:NCARDS]
    stk = work[NCARDS:2 * NCARDS]
    board = work[2 * NCARDS + WORK:2 * NCARDS + WORK + bydist.shape[0]]
    nogrp = work[0:0]
    base = got[0]
    i = start
    while i < n:
        # a double move whose two orders reach one position is listed in one order (once = 1): the
        # set would keep one copy anyway, and a node with a double move has half its children so
        if whole:
            end = gen_turns_into(lk0[i], lk1[i], lmeta[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, base,
                                 cap, pos, stk, board, nogrp, 1)
        else:
            end = gen_children_into(lk0[i], lk1[i], lmeta[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, base,
                                    cap, pos, stk, board, nogrp, 1)
        if end > cap:
            got[0] = base
            return -1 if base == 0 else i
        base = end
        i += 1
    got[0] = base
    return n
