"""The exact search: null-window depth-first search over an explicit stack (no recursion: numba
issue 6061), resumable in chunks of states, with the table, ordering and pruning of its children."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import WORK, _spread, discard_bound, lower_bound
from .keys import HOT, INF, INLINED, NCARDS, PHASE_BIT, stack_count
from .movegen import gen_children_below, no_turn
from .table import _hash, tt_lookup, tt_prefetch, tt_store


ETC_DEPTH = 4
GAME_END = 1 << 10  # added to a child's value in the child buffer while its node is set up: a game end
MAXD = 40  # frames: at most 15 turns from 16 stacks, plus one after-Whale node
FRAME_FIELDS = 13  # a frame's words (their layout is in search below)
CTL_FIELDS = 15  # the search's control words (see search's ctl; the last three are search_each's and effort_each's)
# Near-first ordering sorts a node's children by a distance key; a node where the Whale can still
# move has thousands of children (every Whale move), where that sort costs ten times the node:
# below the first NEAR_DEPTH levels such nodes keep generation order.
NEAR_MAX = 256
NEAR_DEPTH = 2


# A search's cache of full bounds, direct-mapped, 3 words an entry (384 KB: it stays in the
# core's caches).  A position is entered from several parents, and the full bound of one the bound
# cuts is not kept in the table: in a region of settling searches 44% of the full bounds were of
# positions met before, most not long before.  A bound costs about 0.3 us; 2^14 entries did best
# on 1,000 standard deals (2^12 and 2^16 gained less: benchmarks/RESULTS.md).
BOUND_CACHE = 1 << 14


def search_work_size(ncells):
    """The search's scratch: positions, stacks, the bound's work, the board, what the generator
    left out, then the bound cache (which must start zeroed: a zero entry is empty)."""
    return 2 * NCARDS + WORK + ncells + 3 + 3 * BOUND_CACHE


@njit(**HOT)
def cached_bound(k0, k1, meta, cmask, cellrc, wk, bc):
    """:func:`lower_bound`, remembered in ``bc`` (3 words an entry, the last key to hash to a
    slot; empty: no cache).  The bound depends on the key alone for one board and card table,
    and a cache belongs to one engine."""
    n = bc.shape[0] // 3
    if n == 0:
        return lower_bound(k0, k1, meta, cmask, cellrc, wk)
    i = np.int64(_hash(k0, k1, meta) & np.uint64(n - 1)) * 3
    a = np.int64(k0)
    b = np.int64(k1)
    tag = bc[i + 2]
    if (tag >> 8) == meta + 1 and bc[i] == a and bc[i + 1] == b:
        return tag & 255
    lb = lower_bound(k0, k1, meta, cmask, cellrc, wk)
    bc[i] = a
    bc[i + 1] = b
    bc[i + 2] = ((meta + 1) << 8) | lb
    return lb


@njit(**HOT)
def _move(ck0, ck1, cmeta, clb, key, a, b):
    """Child a's row to b."""
    ck0[b] = ck0[a]
    ck1[b] = ck1[a]
    cmeta[b] = cmeta[a]
    clb[b] = clb[a]
    key[b] = key[a]


@njit(**HOT)
def _live_first(ck0, ck1, cmeta, clb, key, start, end, beta):
    """Put the children in [start, end) that the bound does not cut (below ``beta``) first, each
    group in its order, using the buffers' free space from ``end``; returns where the cut ones
    begin.  A cut child is never searched, so only the others need sorting."""
    live = start
    spill = end
    for j in range(start, end):
        if clb[j] < beta:
            _move(ck0, ck1, cmeta, clb, key, j, live)
            live += 1
        else:
            _move(ck0, ck1, cmeta, clb, key, j, spill)
            spill += 1
    for j in range(end, spill):
        _move(ck0, ck1, cmeta, clb, key, j, live + j - end)
    return live


# a child's place among its node's children, below its sort key in one word (CHILD_CAP is 2^22)
PLACE_BITS = 22
RUN = 16


@njit(**HOT)
def _sort_children(ck0, ck1, cmeta, clb, key, start, end, scratch):
    """Sort the children in [start, end) by ``key`` (>= 0, below 2^40), stably (ties keep
    generation order).

    Few children (most nodes): insertion in place.  More: each key and its child's place become
    one word (unique, so any sort keeps ties in order), a bottom-up merge sort orders those words
    using the key buffer's free space from ``scratch`` (>= end; the caller checks it fits), and
    each child then moves once, by way of the free space.  Merging the five child arrays in every
    pass cost a third of a search state where the Whale can move (thousands of children sorted
    near-first at the top two levels).
    """
    n = end - start
    if n <= 24:
        _insertion_sort_rows(ck0, ck1, cmeta, clb, key, start, end)
        return
    for o in range(n):
        key[start + o] = (key[start + o] << PLACE_BITS) | o
    src = _sort_words(key, start, n, scratch)
    for o in range(n):
        ck0[scratch + o] = ck0[start + o]
        ck1[scratch + o] = ck1[start + o]
        cmeta[scratch + o] = cmeta[start + o]
        clb[scratch + o] = clb[start + o]
    mask = (1 << PLACE_BITS) - 1
    for o in range(n):
        w = key[src + o]
        j = scratch + (w & mask)
        ck0[start + o] = ck0[j]
        ck1[start + o] = ck1[j]
        cmeta[start + o] = cmeta[j]
        clb[start + o] = clb[j]
        key[start + o] = w >> PLACE_BITS


@njit(**INLINED)
def _insertion_sort_rows(ck0, ck1, cmeta, clb, key, start, end):
    """The children in [start, end) sorted by ``key`` in place, stably, moving whole rows."""
    for j in range(start + 1, end):
        a0 = ck0[j]
        a1 = ck1[j]
        am = cmeta[j]
        al = clb[j]
        ak = key[j]
        i = j - 1
        while i >= start and key[i] > ak:
            ck0[i + 1] = ck0[i]
            ck1[i + 1] = ck1[i]
            cmeta[i + 1] = cmeta[i]
            clb[i + 1] = clb[i]
            key[i + 1] = key[i]
            i -= 1
        ck0[i + 1] = a0
        ck1[i + 1] = a1
        cmeta[i + 1] = am
        clb[i + 1] = al
        key[i + 1] = ak


@njit(**INLINED)
def _sort_words(key, start, n, scratch):
    """The ``n`` unique words from ``start`` sorted, between there and ``scratch``: returns where
    they ended up (``start`` or ``scratch``)."""
    # runs of RUN words sorted by insertion first: four merge passes fewer
    end = start + n
    for lo in range(start, end, RUN):
        for j in range(lo + 1, min(lo + RUN, end)):
            w = key[j]
            i = j - 1
            while i >= lo and key[i] > w:
                key[i + 1] = key[i]
                i -= 1
            key[i + 1] = w
    src = start
    dst = scratch
    width = RUN
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            a = lo
            b = mid
            for o in range(lo, hi):
                if a < mid and (b >= hi or key[src + a] < key[src + b]):
                    key[dst + o] = key[src + a]
                    a += 1
                else:
                    key[dst + o] = key[src + b]
                    b += 1
            lo = hi
        src, dst = dst, src
        width *= 2
    return src


@njit(**HOT)
def start_walk(fr, ctl, k0, k1, meta, beta, stop_at, near, floor, once):
    """Set up ``fr`` and ``ctl`` for a new search from one key (ctl[9] = ``near``: 1 near-first;
    ctl[11] = ``once``: 1 lists a double move in one order)."""
    fr[0, 0] = np.int64(k0)
    fr[0, 1] = np.int64(k1)
    fr[0, 2] = meta
    fr[0, 3] = beta
    fr[0, 5] = 0
    fr[0, 11] = 1
    ctl[0] = 0
    ctl[1] = 0
    ctl[5] = INF
    ctl[6] = stop_at
    ctl[9] = near
    ctl[10] = floor
    ctl[11] = once


@njit(**HOT)
def _stored(tt, k0, k1, meta, beta):
    """The table's value for a key where it settles a node (exact, or a bound >= beta), else -1."""
    w = tt_lookup(tt, k0, k1, meta)
    if w >= 0:
        v = w & 255
        if (w >> 8) == 1 or v >= beta:
            return v
    return -1


@njit(**HOT)
def entry_value(k0, k1, meta, beta, tt, cmask, cellrc, reach, wk, wpos, bc):
    """What a node is known to be worth before it is expanded: (its value, or a bound >= beta,
    or -1 if unknown; its lower bound; whether it is a game end).

    The bound before the table: a probe of a large table is a memory access, and the bound
    comes from the bound cache where the parent has just computed it.  A game end is told from
    the key, before the generator.
    """
    lb = cached_bound(k0, k1, meta, cmask, cellrc, wk, bc)
    if lb >= beta:
        return lb, lb, False
    v = _stored(tt, k0, k1, meta, beta)
    if v >= 0:
        return v, lb, False
    return -1, lb, (meta & 2) == 0 and no_turn(k0, k1, meta, reach, wpos)


@njit(**HOT)
def search(
    fr,  # int64[MAXD, FRAME_FIELDS] frames, see the layout below
    ck0, ck1, cmeta, clb, grp,  # child buffer (grp: each child's predator, written by the generator)
    tt,  # transposition table (uint64[n, 3], see table.py)
    ab, prey, mid, reach, bydist, dstart, maxd, cmask, cellrc,
    ctl,  # int64[CTL_FIELDS]: 0 depth, 1 status, 2 states, 3 result, 4 budget, 5 incumbent, 6 stop_at, 7 overflow,
          # 8 table entries used, 9 ordering (0 generation order, 1 near-first), 10 floor (no position
          # the search meets can end with fewer stacks: a node stops at the first child reaching it),
          # 11 once (1: a double move whose two orders reach one position is listed in one order)
    inc,  # int64[MAXD, 3] incumbent path keys (as int64 views)
    work,  # int64[search_work_size(cells)]: scratch (the search allocates nothing)
    ):
    """Resumable fail-hard DFS for the minimum result.  Runs until done or ``budget`` nodes.

    status: 0 running (call again), 1 done (exact result in ctl[3]), 2 stopped at stop_at, 3 buffer overflow.
    """
    cap = ck0.shape[0]
    budget = ctl[4]
    done_here = 0
    d = ctl[0]
    lb = 0
    wpos = work[0:NCARDS]
    wstk = work[NCARDS:2 * NCARDS]
    wk = work[2 * NCARDS:2 * NCARDS + WORK]
    at = 2 * NCARDS + WORK + bydist.shape[0]
    wboard = work[2 * NCARDS + WORK:at]
    wskip = work[at:at + 3]  # what the generator left out (least bound, number), and its scratch
    bc = work[at + 3:]
    while True:
        # frame layout: 0 k0, 1 k1, 2 meta, 3 beta, 4 lb, 5 start, 6 end, 7 next, 8 best, 9 bestchild, 10 floor, 11 new,
        # 12 children (those the generator left out included)
        if fr[d, 11] == 1:
            fr[d, 11] = 0
            k0 = np.uint64(fr[d, 0])
            k1 = np.uint64(fr[d, 1])
            meta = fr[d, 2]
            beta = fr[d, 3]
            ret, lb, over = entry_value(k0, k1, meta, beta, tt, cmask, cellrc, reach, wk, wpos, bc)
            if ret < 0:
                if lb < ctl[10]:
                    lb = ctl[10]
                ctl[2] += 1
                done_here += 1
                start = fr[d, 5]
                end = start
                wskip[0] = INF
                wskip[1] = 0
                if not over:
                    end = gen_children_below(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cmeta, start,
                                             cap, wpos, wstk, wboard, grp, beta, cmask, cellrc, wk, wskip, clb, ctl[11])
                if end > cap:
                    ctl[1] = 3
                    ctl[7] = end
                    return
                kids = end - start + wskip[1]
                if kids == 0:
                    # the game ends here (an after-Whale node is only made when an eat follows)
                    ret = _game_end(fr, d, k0, k1, meta, beta, tt, ctl, inc)
                    if ret < 0:
                        return
                else:
                    _rate_children(ck0, ck1, cmeta, clb, start, end, beta, tt, cmask, cellrc, reach, wk, wstk, bc)
                    hit, lo_b, hi_b = _probe_children(ck0, ck1, cmeta, clb, start, end, beta, lb, d, tt)
                    if hit >= 0:
                        ctl[8] += tt_store(tt, k0, k1, meta, hit | 256, min(kids, 255))
                        ret = hit
                    else:
                        need = _order_children(ck0, ck1, cmeta, clb, grp, start, end, beta, d, kids, lo_b, hi_b,
                                               ctl[9] == 1, cellrc, wk, cap)
                        if need > 0:
                            ctl[1] = 3
                            ctl[7] = need
                            return
                        fr[d, 4] = lb
                        fr[d, 6] = end
                        fr[d, 7] = start
                        fr[d, 8] = beta
                        fr[d, 9] = -1
                        fr[d, 10] = wskip[0]
                        fr[d, 12] = kids
            if ret >= 0:
                # return to the parent
                if d == 0:
                    ctl[3] = ret
                    ctl[1] = 1
                    return
                d -= 1
                _deliver(fr, d, ret)
                continue
        # continue the frame's children
        if fr[d, 7] < fr[d, 6]:
            j = fr[d, 7]
            fr[d, 7] = j + 1
            b = fr[d, 8]
            if clb[j] >= b:
                if clb[j] < fr[d, 10]:
                    fr[d, 10] = clb[j]
                continue
            e = d + 1
            fr[e, 0] = np.int64(ck0[j])
            fr[e, 1] = np.int64(ck1[j])
            fr[e, 2] = cmeta[j]
            fr[e, 3] = b
            fr[e, 5] = fr[d, 6]
            fr[e, 11] = 1
            d = e
            if done_here >= budget:
                ctl[0] = d
                ctl[1] = 0
                return
            continue
        ret = _close_frame(fr, d, tt, ctl)
        if d == 0:
            ctl[3] = ret
            ctl[1] = 1
            return
        d -= 1
        _deliver(fr, d, ret)


@njit(**INLINED)
def _game_end(fr, d, k0, k1, meta, beta, tt, ctl, inc):
    """Frame ``d``'s position has no turn: its value is its stacks.  A new best result becomes
    the incumbent line (the keys of frames 0..d); returns the value, or -1 when it reaches
    ``stop_at`` and the search stops (status 2)."""
    n_st = stack_count(k0, k1)
    if n_st < beta:
        # only ends worth following are stored (principal_keys reads them); the others cost a key
        # check to recognise again, less than a table slot
        ctl[8] += tt_store(tt, k0, k1, meta, n_st | 256, 0)
    if n_st < ctl[5]:
        ctl[5] = n_st
        for j in range(d + 1):
            inc[j, 0] = fr[j, 0]
            inc[j, 1] = fr[j, 1]
            inc[j, 2] = fr[j, 2]
        inc[d + 1, 2] = -1
        if ctl[6] > 0 and n_st <= ctl[6]:
            ctl[1] = 2
            return -1
    return n_st


@njit(**INLINED)
def _rate_children(ck0, ck1, cmeta, clb, start, end, beta, tt, cmask, cellrc, reach, wk, wstk, bc):
    """Each child's rating in ``clb``: a game end's value plus :data:`GAME_END`; else the best
    bound known of it, the full bound where cards move stacks.  A child the rating leaves below
    ``beta`` starts loading its table slot."""
    for j in range(start, end):
        # the generator gives the bound that the outcomes of a move or swap ability, or the
        # Whale's half-steps, share (neither bound reads a cell)
        v = clb[j]
        if v < 0:
            v = discard_bound(ck0[j], ck1[j], cmeta[j], cmask, cellrc, wk, beta)
        if v < beta and (cmeta[j] & (PHASE_BIT | 2)) == 0 and no_turn(ck0[j], ck1[j], cmeta[j], reach, wstk):
            v = stack_count(ck0[j], ck1[j]) + GAME_END  # a game end: its exact value
        elif v < beta:
            # the full bound now, not when the child is entered: in a refutation every child is
            # entered, and most are then cut by this bound; cut here they cost no frame, no table
            # slot loaded ahead, no ETC probe (the perfect-play graph's searches 9% faster, solves
            # without sea animals 6%; plain deals with both sea animals 18-29%, since the bound
            # became as cheap without abilities as with them)
            fb = cached_bound(ck0[j], ck1[j], cmeta[j], cmask, cellrc, wk, bc)
            if fb > v:
                v = fb
            if v < beta:
                # a child the bound leaves is looked up below or when it is entered: its slot
                # starts loading now (on a table larger than the caches a lookup waits as long as
                # the rest of a node's work)
                tt_prefetch(tt, ck0[j], ck1[j], cmeta[j])
        clb[j] = v


@njit(**INLINED)
def _probe_children(ck0, ck1, cmeta, clb, start, end, beta, lb, d, tt):
    """The children's values for ordering, in ``clb``, with the table's in the top
    :data:`ETC_DEPTH` levels (enhanced transposition cutoff: a child already known to reach the
    node's bound ``lb`` ends the node at once, and a stored bound is a tighter key than the
    rating; grading runs hundreds of searches over one table, where most of these hits happen).
    Returns (the value of a child that ends the node, or -1; the least and the largest value
    below ``beta``)."""
    lo_b = INF
    hi_b = 0
    for j in range(start, end):
        v = clb[j]
        # a child the bound already cuts cannot end the node: not probed
        w = -1
        if v >= GAME_END:
            v -= GAME_END
        elif d < ETC_DEPTH and v < beta:
            w = tt_lookup(tt, ck0[j], ck1[j], cmeta[j])
        if w >= 0:
            tv = w & 255
            if (w >> 8) == 1:
                v = tv
                if tv <= lb:
                    return tv, lo_b, hi_b
            elif tv > v:
                v = tv
        clb[j] = v
        if v < beta:  # the children the bound cuts are skipped where they stand
            if v < lo_b:
                lo_b = v
            if v > hi_b:
                hi_b = v
    return -1, lo_b, hi_b


@njit(**INLINED)
def _order_children(ck0, ck1, cmeta, clb, grp, start, end, beta, d, kids, lo_b, hi_b, near, cellrc, wk, cap):
    """Order a node's children: those the bound leaves first, smaller values first, generation
    order (low predators first) among equal ones (it found wins fastest among the orderings
    tried: benchmarks/RESULTS.md); near-first (``near``) also orders one predator's turns by how
    near they leave the tops to their eaters (see BitboardSolver.near_first).  Returns 0, or the
    child buffer's size the sort needs where the buffer is too small."""
    near = near and (d < NEAR_DEPTH or kids <= NEAR_MAX)
    if not near and lo_b >= hi_b:
        return 0  # all equal, the common case: no sort
    # the sort key goes into grp, which is not read again
    if near:
        # (a child the bound cuts is never searched: its place is not worked out)
        for j in range(start, end):
            sp = _spread(ck0[j], ck1[j], cellrc, wk) if clb[j] < beta else 0
            grp[j] = (clb[j] * 32 + grp[j]) * 1024 + sp
    else:
        for j in range(start, end):
            grp[j] = clb[j]
    if end + (end - start) > cap:
        return end + (end - start)
    live = _live_first(ck0, ck1, cmeta, clb, grp, start, end, beta)
    _sort_children(ck0, ck1, cmeta, clb, grp, start, live, end)
    return 0


@njit(**INLINED)
def _close_frame(fr, d, tt, ctl):
    """All of frame ``d``'s children are done: its value (the best child's, or what bounds it
    from below when none reached ``beta``), stored in the table."""
    k0 = np.uint64(fr[d, 0])
    k1 = np.uint64(fr[d, 1])
    meta = fr[d, 2]
    work = min(fr[d, 12], 255)
    if fr[d, 9] >= 0:
        ret = fr[d, 8]
        ctl[8] += tt_store(tt, k0, k1, meta, ret | 256, work)
    else:
        ret = max(fr[d, 4], fr[d, 10])
        ctl[8] += tt_store(tt, k0, k1, meta, ret, work)
    return ret


@njit(**HOT)
def _deliver(fr, d, ret):
    """A child of frame d returned ``ret``."""
    if ret < fr[d, 8]:
        fr[d, 8] = ret
        fr[d, 9] = fr[d, 7] - 1
        if ret <= fr[d, 4]:
            fr[d, 7] = fr[d, 6]  # cannot do better than the bound: stop
    elif ret < fr[d, 10]:
        fr[d, 10] = ret
