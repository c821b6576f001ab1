"""The walk of the whole state DAG from which a target can still be reached: the random
player's exact chance and the line lengths (grading on small layouts)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import WORK, lower_bound
from .keys import HOT, INLINED, NCARDS, PHASE_BIT, stack_count
from .movegen import gen_children_into
from .perft import find_slot


@njit(**HOT)
def _dag_put(dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, slot, k0, k1, meta, s, n, lo, hi, best):
    dk0[slot] = k0
    dk1[slot] = k1
    dtag[slot] = np.uint8(meta + 1)
    ds[slot] = s
    dn[slot] = n
    dlo[slot] = lo
    dhi[slot] = hi
    dbest[slot] = best


@njit(**HOT)
def _fold(fs, fn, flo, fhi, fbest, d, s, n, lo, hi, best):
    """Add one finished child's values to frame d."""
    fs[d] += s
    fn[d] += n
    if lo < flo[d]:
        flo[d] = lo
    if hi > fhi[d]:
        fhi[d] = hi
    if best < fbest[d]:
        fbest[d] = best


@njit(**INLINED)
def _fold_start(fs, fn, flo, fhi, fbest, d):
    """Frame d before any child is folded in: no turn counted, no winning line, no result."""
    fs[d] = 0.0
    fn[d] = 0
    flo[d] = 99
    fhi[d] = -1
    fbest[d] = 99


@njit(**INLINED)
def _frame_value(fs, fn, flo, fhi, fbest, d, k0, k1, meta, ended, target):
    """A finished frame's own (chance sum, turns, fewest and most turns to a win, best result):
    a game end's from its stacks; an after-Whale node passes its children's sums up; a full
    state's chance is the mean over its turns, and its lines are one turn longer."""
    if ended:
        nst = stack_count(k0, k1)
        if nst <= target:
            return 1.0, 1, 0, 0, nst
        return 0.0, 1, 99, -1, nst
    if (meta & PHASE_BIT) != 0:
        return fs[d], fn[d], flo[d], fhi[d], fbest[d]
    lo = flo[d] + 1 if flo[d] < 99 else 99
    hi = fhi[d] + 1 if fhi[d] >= 0 else -1
    return fs[d] / fn[d], 1, lo, hi, fbest[d]


@njit(**INLINED)
def _open_frame(k0, k1, meta, start, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta,
                cap, wpos, wstk, wboard, nogrp, ctl, max_nodes, stop):
    """List a newly entered state's children from ``start`` and count it as visited: the end of
    its children, or -1 when the walk must stop (``ctl[1]`` says why)."""
    end = gen_children_into(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, start,
                            cap, wpos, wstk, wboard, nogrp)
    if end > cap:
        ctl[1] = 3
        return -1
    ctl[0] += 1
    if ctl[0] > max_nodes:
        ctl[1] = 4
        return -1
    if (ctl[0] & 4095) == 0 and stop[0] != 0:
        ctl[1] = 5
        return -1
    return end


@njit(**INLINED)
def _lost_child(ck0, ck1, cmeta, j, start, lb, ab, prey, mid, bydist, dstart, maxd, cap,
                wpos, wstk, wboard, nogrp, dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, slot):
    """The number of turns child ``j`` stands for in its parent's total when its bound exceeds the
    target (chance 0, no winning line): 1, or an after-Whale node's turns, which are counted by
    listing them from ``start`` and stored at ``slot``; -1 when they do not fit."""
    if (cmeta[j] & PHASE_BIT) == 0:
        return 1
    # the turns through a lost after-Whale node still count in the parent's total
    e = gen_children_into(ck0[j], ck1[j], cmeta[j], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta,
                          start, cap, wpos, wstk, wboard, nogrp)
    if e > cap:
        return -1
    n = e - start
    _dag_put(dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, slot, ck0[j], ck1[j], cmeta[j], 0.0, n, 99, -1, lb)
    return n


@njit(cache=True, nogil=True)
def dag_walk(root0, root1, rootmeta, target, max_nodes,
             ck0, ck1, cmeta, ab, prey, mid, bydist, dstart, maxd, cmask, cellrc,
             dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, ctl, stop):
    """Visit every state reachable from the root from which ``target`` can still be reached, once.

    For each visited state, with turns chosen uniformly (one turn = one way to play it, as the
    generator lists them):

    ds/dn  the chance to end with <= target stacks as a sum over turns and the number of turns
           (for a full state, ds/dn is the chance; an after-Whale node passes its sums up),
    dlo/dhi the fewest and most turns to a winning end (99 / -1 when there is none),
    dbest  the fewest stacks any line reaches (exact when <= target, else some value > target).

    A child whose lower bound exceeds the target is not entered: nothing below it can win, so its
    chance is 0 and it has no winning line.  This is what makes whole deals walkable.
    ctl: 0 nodes visited, 1 status (1 done, 3 child buffer overflow, 4 node cap, 5 stopped),
    2 pruned children.  ``stop[0]`` set by another thread stops the walk within a few thousand
    nodes (a walk takes seconds in one call: Ctrl-C and a time limit are answered here).
    """
    MAXF = 64
    wk = np.empty(WORK, np.int64)
    # the generator's work arrays, once per walk rather than once per node
    wpos = np.empty(NCARDS, np.int64)
    wstk = np.empty(NCARDS, np.int64)
    wboard = np.empty(bydist.shape[0], np.int64)
    nogrp = np.empty(0, np.int64)
    fk0 = np.zeros(MAXF, np.uint64)
    fk1 = np.zeros(MAXF, np.uint64)
    fm = np.zeros(MAXF, np.int64)
    fstart = np.zeros(MAXF, np.int64)
    fend = np.zeros(MAXF, np.int64)
    fnext = np.zeros(MAXF, np.int64)
    fs = np.zeros(MAXF, np.float64)
    fn = np.zeros(MAXF, np.int64)
    flo = np.zeros(MAXF, np.int64)
    fhi = np.zeros(MAXF, np.int64)
    fbest = np.zeros(MAXF, np.int64)
    _walk(root0, root1, rootmeta, target, max_nodes, ck0, ck1, cmeta, ab, prey, mid, bydist, dstart, maxd, cmask,
          cellrc, dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, ctl, stop, wk, wpos, wstk, wboard, nogrp,
          fk0, fk1, fm, fstart, fend, fnext, fs, fn, flo, fhi, fbest)


@njit(**HOT)
def _walk(root0, root1, rootmeta, target, max_nodes, ck0, ck1, cmeta, ab, prey, mid, bydist, dstart, maxd, cmask,
          cellrc, dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, ctl, stop, wk, wpos, wstk, wboard, nogrp,
          fk0, fk1, fm, fstart, fend, fnext, fs, fn, flo, fhi, fbest):
    """:func:`dag_walk`'s loop over an explicit stack of frames (``fk0`` ... ``fbest``, one entry a
    depth), with its work arrays made: it allocates nothing, so it runs without reference counts."""
    cap = ck0.shape[0]
    d = 0
    fk0[0] = root0
    fk1[0] = root1
    fm[0] = rootmeta
    fstart[0] = 0
    new = True
    while True:
        if new:
            new = False
            end = _open_frame(fk0[d], fk1[d], fm[d], fstart[d], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta,
                              cap, wpos, wstk, wboard, nogrp, ctl, max_nodes, stop)
            if end < 0:
                return
            fend[d] = end
            fnext[d] = fstart[d]
            _fold_start(fs, fn, flo, fhi, fbest, d)
        if fnext[d] < fend[d]:
            j = fnext[d]
            fnext[d] = j + 1
            slot = find_slot(dk0, dk1, dtag, ck0[j], ck1[j], cmeta[j])
            if slot < 0:
                ctl[1] = 4
                return
            if dtag[slot] != 0:
                s, n, lo, hi, best = ds[slot], dn[slot], dlo[slot], dhi[slot], dbest[slot]
            else:
                lb = lower_bound(ck0[j], ck1[j], cmeta[j], cmask, cellrc, wk)
                if lb <= target:
                    d += 1
                    fk0[d] = ck0[j]
                    fk1[d] = ck1[j]
                    fm[d] = cmeta[j]
                    fstart[d] = fend[d - 1]
                    new = True
                    continue
                ctl[2] += 1
                n = _lost_child(ck0, ck1, cmeta, j, fend[d], lb, ab, prey, mid, bydist, dstart, maxd, cap,
                                wpos, wstk, wboard, nogrp, dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, slot)
                if n < 0:
                    ctl[1] = 3
                    return
                s, lo, hi, best = 0.0, 99, -1, lb
            _fold(fs, fn, flo, fhi, fbest, d, s, n, lo, hi, best)
            continue
        # frame finished: its own value
        k0 = fk0[d]
        k1 = fk1[d]
        meta = fm[d]
        s, n, lo, hi, best = _frame_value(fs, fn, flo, fhi, fbest, d, k0, k1, meta, fend[d] == fstart[d], target)
        slot = find_slot(dk0, dk1, dtag, k0, k1, meta)
        if slot < 0:
            ctl[1] = 4
            return
        _dag_put(dk0, dk1, dtag, ds, dn, dlo, dhi, dbest, slot, k0, k1, meta, s, n, lo, hi, best)
        if d == 0:
            ctl[1] = 1
            return
        d -= 1
        _fold(fs, fn, flo, fhi, fbest, d, s, n, lo, hi, best)


@njit(cache=True, nogil=True)
def keep_within(k0, k1, meta, n, target, need, cmask, cellrc, wk):
    """Keep, in place at the front, those of the first ``n`` listed states that the walk enters
    straight from their parent: full states (no after-Whale half-step) whose meta has the bits
    ``need`` and whose lower bound is at most ``target``; returns how many."""
    m = 0
    for i in range(n):
        if (meta[i] & PHASE_BIT) != 0 or (meta[i] & need) != need:
            continue
        if lower_bound(k0[i], k1[i], meta[i], cmask, cellrc, wk) <= target:
            k0[m] = k0[i]
            k1[m] = k1[i]
            meta[m] = meta[i]
            m += 1
    return m


@njit(cache=True, nogil=True)
def keep_above(k0, k1, meta, n, floor, cmask, cellrc, wk):
    """Keep, in place at the front, those of the first ``n`` listed states that are full states
    (no after-Whale half-step) with a lower bound above ``floor``; returns how many (the bound's
    check against the true minimum, benchmarks/bound_suite.py, walks only those)."""
    m = 0
    for i in range(n):
        if (meta[i] & PHASE_BIT) != 0:
            continue
        if lower_bound(k0[i], k1[i], meta[i], cmask, cellrc, wk) > floor:
            k0[m] = k0[i]
            k1[m] = k1[i]
            meta[m] = meta[i]
            m += 1
    return m
