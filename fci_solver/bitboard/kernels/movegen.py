"""Turn generation: every child of a state, and whether any turn exists at all.

A turn that begins with the Whale is generated as two steps: the Whale move leads to an
*after-Whale* node (phase bit set) whose children are the eats and abilities of the rest of the
turn.  This keeps every node's child list small (no node lists Whale moves times eats times
abilities), and lets the transposition table share the after-Whale nodes.  An after-Whale node
is only generated when an eat exists there, so every child is a live turn and a node with no
children is the end of the game.  The optional Whale after the ability is never generated: the
same move made before the next eat reaches exactly the same states (RULES.md).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bound import discard_bound
from .keys import (
    AB_DISCARD, AB_MOVE, AB_SWAP, BEAR, CAIMAN, HOT, INF, INLINED, LION, LYNX, NCARDS, PHASE_BIT, RACCOON, _code,
    _lowest, decode,
)

# An eat's steps take a dozen arrays and a node's eats twenty: as calls they cost more than the
# steps.  Inlined (INLINED: _eat_then and _after_eat into _eats, _eats into gen_children_below),
# generating a refutation region's children took 0.52 -> 0.32 us a state and settling 7% less,
# for about 5 s more of a cold compile; inlining _ability too cost minutes of compiling
# (benchmarks/RESULTS.md).
COUNT_LIMIT = 1024  # a skipped eat's children are counted up to this: the search compares counts with 256


# A child's key is the parent's with the bytes of the cards the turn changed rewritten (the eat's
# two, a move's one, a swap's two, a discard's one), carried down the generator's calls as
# values: encoding all 16 bytes of every child from the arrays cost more.


@njit(**HOT, inline="always")
def _with_byte(k0, k1, i, code):
    """The key with card ``i``'s byte set to ``code`` (0 off top, else 1 + 2 * cell + stacked)."""
    if i < 8:
        sh = np.uint64(8 * i)
        return (k0 & ~(np.uint64(255) << sh)) | (np.uint64(code) << sh), k1
    sh = np.uint64(8 * (i - 8))
    return k0, (k1 & ~(np.uint64(255) << sh)) | (np.uint64(code) << sh)


@njit(**HOT, inline="always")
def _emit(k0, k1, meta, out_k0, out_k1, out_meta, n, cap):
    if n >= cap:
        return n + 1  # overflow is reported by the caller
    out_k0[n] = k0
    out_k1[n] = k1
    out_meta[n] = meta
    return n + 1


@njit(**HOT)
def _raccoon_stage(pos, stk, meta_next, racc, k0, k1, out_k0, out_k1, out_meta, n, cap):
    """Step 4: with the raccoon trigger, discard one unstacked animal (if any), then emit.  The
    arrays (pos, stk) are only read: each child's key is (k0, k1) with its discard's byte cleared."""
    if racc:
        any_un = False
        for i in range(NCARDS):
            if pos[i] >= 0 and stk[i] == 0:
                any_un = True
                d0, d1 = _with_byte(k0, k1, i, 0)
                n = _emit(d0, d1, meta_next, out_k0, out_k1, out_meta, n, cap)
        if any_un:
            return n
    return _emit(k0, k1, meta_next, out_k0, out_k1, out_meta, n, cap)


@njit(**HOT)
def _ability(p, pos, stk, board, meta_next, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd,
             once):
    """Step 3: every way to carry out predator ``p``'s ability, then step 4, then emit.

    ``once`` (a search's generation): two moves by two stacks that could have been made in the
    other order are listed in one order only, the lower card first.  Both orders reach the same
    position, which a search needs once (the second copy meets the table), and a node with a
    double move has hundreds of them: about half its children."""
    kind = ab[0, p]
    did = False
    if kind == AB_MOVE:
        n, did = _moves(p, pos, stk, board, meta_next, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist,
                        dstart, maxd, once)
    elif kind == AB_DISCARD:
        n, did = _discards(pos, stk, board, meta_next, racc, k0, k1, out_k0, out_k1, out_meta, n, cap)
    elif kind == AB_SWAP:
        n, did = _swaps(pos, stk, board, meta_next, racc, k0, k1, out_k0, out_k1, out_meta, n, cap)
    if did:
        return n
    # no ability, a pending effect, or no legal way to carry it out: skipped
    return _raccoon_stage(pos, stk, meta_next, racc, k0, k1, out_k0, out_k1, out_meta, n, cap)


@njit(**INLINED)
def _moves(p, pos, stk, board, meta_next, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd,
           once):
    """A move ability: one stack (any, or the predator's own) moves ``lo..hi`` cells to an open
    cell, and with a count of 2 a different stack then moves too, if any can.  Returns (the
    children now listed, whether any stack could move)."""
    only_self = ab[1, p]
    lo = ab[2, p]
    hi = min(ab[3, p], maxd)
    did = False
    if lo > hi:
        return n, did
    for m in range(NCARDS):
        if pos[m] < 0 or (only_self == 1 and m != p):
            continue
        c = pos[m]
        for j in range(dstart[c, lo], dstart[c, hi + 1]):
            t = bydist[c, j]
            if board[t] >= 0:
                continue
            did = True
            board[c] = -1
            board[t] = m
            pos[m] = t
            m0, m1 = _with_byte(k0, k1, m, 1 + 2 * t + stk[m])
            did2 = False
            if ab[4, p] >= 2:
                n, did2 = _second_moves(m, c, lo, hi, pos, stk, board, meta_next, racc, m0, m1, out_k0, out_k1,
                                        out_meta, n, cap, bydist, dstart, once)
            if not did2:
                n = _raccoon_stage(pos, stk, meta_next, racc, m0, m1, out_k0, out_k1, out_meta, n, cap)
            pos[m] = c
            board[t] = -1
            board[c] = m
    return n, did


@njit(**INLINED)
def _second_moves(m, c, lo, hi, pos, stk, board, meta_next, racc, m0, m1, out_k0, out_k1, out_meta, n, cap, bydist,
                  dstart, once):
    """After stack ``m`` moved from cell ``c`` (the key now ``m0, m1``): every move of a second,
    different stack.  Returns (the children now listed, whether any could move)."""
    did2 = False
    for m2 in range(NCARDS):
        if pos[m2] < 0 or m2 == m:
            continue
        c2 = pos[m2]
        for j2 in range(dstart[c2, lo], dstart[c2, hi + 1]):
            t2 = bydist[c2, j2]
            if board[t2] >= 0:
                continue
            did2 = True
            if once and m2 < m and t2 != c:
                continue  # m2 first, then m: listed already (t2 was open before m moved)
            board[c2] = -1
            board[t2] = m2
            pos[m2] = t2
            n0, n1 = _with_byte(m0, m1, m2, 1 + 2 * t2 + stk[m2])
            n = _raccoon_stage(pos, stk, meta_next, racc, n0, n1, out_k0, out_k1, out_meta, n, cap)
            pos[m2] = c2
            board[t2] = -1
            board[c2] = m2
    return n, did2


@njit(**INLINED)
def _discards(pos, stk, board, meta_next, racc, k0, k1, out_k0, out_k1, out_meta, n, cap):
    """A discard ability: any single card (not a stack) leaves the board.  Returns (the children
    now listed, whether there was one)."""
    # here and in the swap below the board is kept in step although the raccoon stage reads only
    # pos: without those writes perft(3) measured 1.47-2.06 s against 1.44-1.55 s
    did = False
    for i in range(NCARDS):
        if pos[i] >= 0 and stk[i] == 0:
            did = True
            c = pos[i]
            pos[i] = -1
            board[c] = -1
            d0, d1 = _with_byte(k0, k1, i, 0)
            n = _raccoon_stage(pos, stk, meta_next, racc, d0, d1, out_k0, out_k1, out_meta, n, cap)
            pos[i] = c
            board[c] = i
    return n, did


@njit(**INLINED)
def _swaps(pos, stk, board, meta_next, racc, k0, k1, out_k0, out_k1, out_meta, n, cap):
    """A swap ability: any two stacks trade cells.  Returns (the children now listed, whether
    two stacks were there)."""
    did = False
    for a in range(NCARDS):
        if pos[a] < 0:
            continue
        for b in range(a + 1, NCARDS):
            if pos[b] < 0:
                continue
            did = True
            ca = pos[a]
            cb = pos[b]
            pos[a] = cb
            pos[b] = ca
            board[ca] = b
            board[cb] = a
            s0, s1 = _with_byte(k0, k1, a, 1 + 2 * cb + stk[a])
            s0, s1 = _with_byte(s0, s1, b, 1 + 2 * ca + stk[b])
            n = _raccoon_stage(pos, stk, meta_next, racc, s0, s1, out_k0, out_k1, out_meta, n, cap)
            pos[a] = ca
            pos[b] = cb
            board[ca] = a
            board[cb] = b
    return n, did


@njit(**HOT)
def _ability_count(p, pos, board, ab, bydist, dstart, maxd, limit, once):
    """How many children :func:`_ability` emits for a move or swap ability without the raccoon
    trigger (at least ``limit`` when there are that many); the arrays are restored afterwards."""
    if ab[0, p] == AB_SWAP:
        k = 0
        for a in range(NCARDS):
            if pos[a] >= 0:
                k += 1
        return k * (k - 1) // 2 if k >= 2 else 1
    only_self = ab[1, p]
    lo = ab[2, p]
    hi = min(ab[3, p], maxd)
    n = 0
    if lo <= hi:
        for m in range(NCARDS):
            if pos[m] < 0 or (only_self == 1 and m != p):
                continue
            c = pos[m]
            for j in range(dstart[c, lo], dstart[c, hi + 1]):
                t = bydist[c, j]
                if board[t] >= 0:
                    continue
                if ab[4, p] < 2:
                    n += 1
                else:
                    board[c] = -1
                    board[t] = m
                    n2 = 0
                    any2 = False
                    for m2 in range(NCARDS):
                        if pos[m2] < 0 or m2 == m:
                            continue
                        c2 = pos[m2]
                        for j2 in range(dstart[c2, lo], dstart[c2, hi + 1]):
                            t2 = bydist[c2, j2]
                            if board[t2] < 0:
                                any2 = True
                                if not (once and m2 < m and t2 != c):
                                    n2 += 1
                    board[t] = -1
                    board[c] = m
                    n += n2 if any2 else 1
                if n >= limit:
                    return n
    return n if n > 0 else 1


@njit(**INLINED)
def _after_eat(p, pos, stk, board, nxt, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd,
               beta, cmask, cellrc, wk, skip, once):
    """Step 3 onwards once p has eaten.  A move or a swap changes no top, so all the children of a
    move or swap ability share one bound (the search's, without geometry): when it reaches ``beta``
    they are not generated, and skip[0] keeps the least such bound, skip[1] their number; else
    skip[2] is that bound for the children generated (-1: each needs its own)."""
    if beta < INF:
        skip[2] = -1
        if not racc and (ab[0, p] == AB_MOVE or ab[0, p] == AB_SWAP):
            b = discard_bound(k0, k1, nxt, cmask, cellrc, wk, beta)
            if b >= beta:
                if b < skip[0]:
                    skip[0] = b
                skip[1] += _ability_count(p, pos, board, ab, bydist, dstart, maxd, COUNT_LIMIT, once)
                return n
            skip[2] = b
    return _ability(p, pos, stk, board, nxt, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd,
                    once)


@njit(**INLINED)
def _eat_then(p, q, cp, cq, caiman, nxt, racc, pos, stk, board, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist,
              dstart, maxd, beta, cmask, cellrc, wk, skip, once):
    """Predator p eats prey q, then its ability and what follows; the arrays are restored
    afterwards.  (k0, k1): the key before the eat."""
    hp = stk[p]
    pos[q] = -1
    stk[p] = 1
    k0, k1 = _with_byte(k0, k1, q, 0)
    if caiman:  # the prey moves under the predator, which stays put
        board[cq] = -1
        k0, k1 = _with_byte(k0, k1, p, 2 + 2 * cp)
        n = _after_eat(p, pos, stk, board, nxt, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd,
                       beta, cmask, cellrc, wk, skip, once)
        board[cq] = q
    else:
        board[cp] = -1
        board[cq] = p
        pos[p] = cq
        k0, k1 = _with_byte(k0, k1, p, 2 + 2 * cq)
        n = _after_eat(p, pos, stk, board, nxt, racc, k0, k1, ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd,
                       beta, cmask, cellrc, wk, skip, once)
        pos[p] = cp
        board[cp] = p
        board[cq] = q
    stk[p] = hp
    pos[q] = cq
    return n


@njit(**HOT)
def _shared_bound(out_lb, n0, n, cap, beta, skip):
    """The children [n0, n) of one eat get the bound they share, or -1 (see :func:`_after_eat`)."""
    if beta < INF:
        for j in range(n0, min(n, cap)):
            out_lb[j] = skip[2]
    return n


@njit(**INLINED)
def _eats(pos, stk, board, meta, k0, k1, ab, prey, mid, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd, grp,
          beta, cmask, cellrc, wk, skip, out_lb, once):
    """Step 2 onwards: every eat (normal and Shark) and what follows it.  When ``grp`` is not
    empty, each child's predator is written to it (the search orders children by it)."""
    shark = meta & 1
    whale = (meta >> 1) & 1
    eff = (meta >> 2) & 7
    for p in range(NCARDS):
        cp = pos[p]
        if cp < 0:
            continue
        n0 = n
        # normal eats under the pending effect
        if not (eff == BEAR and p == 15):
            for j in range(prey.shape[2]):
                cq = prey[eff, cp, j]
                if cq < 0:
                    continue
                q = board[cq]
                if q < 0:
                    continue
                d = p - q
                if d < 1 or d > 3:
                    continue
                if eff == LION and d != 1:
                    continue
                if eff == LYNX and board[mid[eff, cp, j]] < 0:
                    continue
                nxt = shark | (whale << 1) | (ab[5, p] << 2)
                n1 = _eat_then(p, q, cp, cq, eff == CAIMAN, nxt, eff == RACCOON and d == 1, pos, stk, board, k0, k1,
                               ab, out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd, beta, cmask, cellrc, wk, skip,
                               once)
                n = _shared_bound(out_lb, n, n1, cap, beta, skip)
        # Shark eats: orthogonal, any lower card, pending effect ignored
        if shark == 1:
            for j in range(4):
                cq = prey[0, cp, j]
                if cq < 0:
                    continue
                q = board[cq]
                if q < 0 or q >= p:
                    continue
                nxt = (whale << 1) | (ab[5, p] << 2)
                n1 = _eat_then(p, q, cp, cq, False, nxt, False, pos, stk, board, k0, k1, ab,
                               out_k0, out_k1, out_meta, n, cap, bydist, dstart, maxd, beta, cmask, cellrc, wk, skip, once)
                n = _shared_bound(out_lb, n, n1, cap, beta, skip)
        if grp.shape[0] > 0:
            for j in range(n0, min(n, cap)):
                grp[j] = p
    return n


@njit(**HOT)
def no_turn(k0, k1, meta, reach, pos):
    """Whether no eat (normal or Shark) exists, read from the key alone: with the Whale spent,
    whether the game is over.  ``reach[effect, from, to]`` (``to`` < cells): 0 when a predator
    on ``from`` cannot reach ``to``, else 1 + the cell a lynx jumps over; ``reach[effect, from,
    cells:cells + 2]``: the two-word mask of the cells it reaches without a jump.  ``pos`` is
    scratch.

    About half the states a solve meets are game ends, most with 6-9 stacks that no longer
    meet; telling them from the key costs less than decoding the board and generating nothing.
    """
    n = reach.shape[1]
    eff = (meta >> 2) & 7
    if n > 64 or eff == LYNX:
        return _no_turn_pairs(k0, k1, meta, reach, pos)
    # One pass up the cards: each top is checked against the cells of the (at most three) tops
    # just below it, and, with the Shark, of every lower top.  A card eats by value only 1-3
    # lower (the Lion's effect: 1), so no pair of tops is looked at on its own.
    shark = meta & 1
    m1 = 0  # the cell bits of cards e-1, e-2, e-3 (0 when not on top)
    m2 = 0
    m3 = 0
    lower = 0  # the cells of every lower top
    for e in range(NCARDS):
        code = _code(k0, k1, e)
        bit = 0
        if code != 0:
            cell = (code - 1) >> 1
            near = m1 if eff == LION else m1 | m2 | m3
            if near != 0 and not (eff == BEAR and e == 15) and (reach[eff, cell, n] & near) != 0:
                return False
            if shark == 1 and (reach[0, cell, n] & lower) != 0:
                return False
            bit = 1 << cell
        lower |= bit
        m3 = m2
        m2 = m1
        m1 = bit
    return True


@njit(**HOT)
def _no_turn_pairs(k0, k1, meta, reach, pos):
    """:func:`no_turn` pair by pair, with the lynx's jumps and on boards of more than 64 cells."""
    tops = 0
    for i in range(NCARDS):
        code = _code(k0, k1, i)
        if code != 0:
            tops |= 1 << i
            pos[i] = (np.int64(code) - 1) >> 1
    shark = meta & 1
    eff = (meta >> 2) & 7
    over = True
    eaters = tops & ~1
    while over and eaters:
        e = _lowest(eaters)
        eaters &= eaters - 1
        ce = pos[e]
        below = tops & ((1 << e) - 1)
        if shark == 0:
            if e > 3:
                below &= ~((1 << (e - 3)) - 1)
        normal = not (eff == BEAR and e == 15)
        while over and below:
            q = _lowest(below)
            below &= below - 1
            cq = pos[q]
            if normal and e - q <= 3 and not (eff == LION and e - q != 1):
                r = reach[eff, ce, cq]
                if r == 1:
                    over = False
                elif r > 1:  # a lynx jump: a stack must be on the cell between
                    m = r - 1
                    others = tops
                    while others:
                        t = _lowest(others)
                        others &= others - 1
                        if pos[t] == m:
                            over = False
            if shark == 1 and reach[0, ce, cq] > 0:
                over = False
    return over


@njit(**HOT)
def has_eat(pos, board, meta, prey, mid):
    """Whether any eat (normal or Shark) exists now.

    The legality checks repeat those in :func:`_eats` on purpose: moving them
    into a shared inlined helper halved the generator's speed (comb deal 1,
    both sea: 2.9 s -> 5.8 s for the same states; measured before the kernels
    were compiled without reference counting, not since).
    """
    shark = meta & 1
    eff = (meta >> 2) & 7
    for p in range(NCARDS):
        cp = pos[p]
        if cp < 0:
            continue
        if not (eff == BEAR and p == 15):
            for j in range(prey.shape[2]):
                cq = prey[eff, cp, j]
                if cq < 0:
                    continue
                q = board[cq]
                if q < 0:
                    continue
                d = p - q
                if d < 1 or d > 3 or (eff == LION and d != 1):
                    continue
                if eff == LYNX and board[mid[eff, cp, j]] < 0:
                    continue
                return True
        if shark == 1:
            for j in range(4):
                cq = prey[0, cp, j]
                if cq >= 0 and board[cq] >= 0 and board[cq] < p:
                    return True
    return False


@njit(cache=True, nogil=True)
def gen_children(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap):
    """All children of a node, written from index ``start``; returns the end index (> cap on overflow)."""
    pos = np.empty(NCARDS, np.int64)
    stk = np.empty(NCARDS, np.int64)
    board = np.empty(bydist.shape[0], np.int64)
    return gen_children_into(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap,
                             pos, stk, board, np.empty(0, np.int64))


@njit(**HOT)
def gen_children_into(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap,
                      pos, stk, board, grp, once=0):
    """:func:`gen_children` with the work arrays passed in (the search reuses them: no allocation per node);
    ``once`` as for :func:`_ability`."""
    # with no window nothing is cut: the bound's arrays are never read (any of the right type will do)
    return gen_children_below(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap,
                              pos, stk, board, grp, INF, stk, bydist, stk, stk, stk, once)


@njit(**HOT)
def gen_turns_into(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap, pos, stk,
                   board, grp, once):
    """:func:`gen_children_into`, each after-Whale half-step followed by the turns after it (the
    half-step stays, marked by the phase bit): every full turn of a position, for the lists that
    want them all (perft's levels, the perfect-play graph's).  Returns the end index (> cap on
    overflow)."""
    end = gen_children_into(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap,
                            pos, stk, board, grp, once)
    j = start
    while j < end and end <= cap:
        if (out_meta[j] & PHASE_BIT) != 0:
            end = gen_children_into(out_k0[j], out_k1[j], out_meta[j], ab, prey, mid, bydist, dstart, maxd, out_k0,
                                    out_k1, out_meta, end, cap, pos, stk, board, grp, once)
        j += 1
    return end


@njit(**INLINED)
def _whale_half_steps(k0, k1, m, pos, stk, board, ncells, prey, mid, out_k0, out_k1, out_meta, n, cap, grp, beta,
                      cmask, cellrc, wk, skip, out_lb):
    """The Whale's half-steps of a full state with the Whale still to come, listed from ``n`` (see
    :func:`gen_children_below`); returns the new end of the children."""
    n_eats = n
    # Whale before the eat: a half-step to an after-Whale node, kept only where an eat follows.
    after = (m & ~np.int64(2)) | PHASE_BIT
    # a Whale move changes no top either: all its half-steps share one bound
    cut = False
    b = INF
    if beta < INF:
        b = discard_bound(k0, k1, after, cmask, cellrc, wk, beta)
        cut = b >= beta
    skipped = skip[1] if cut else 0
    for s in range(NCARDS):
        c = pos[s]
        if c < 0:
            continue
        # An eat among the other stacks, with this one lifted off the board, is still there
        # wherever it lands (a stack on a cell never stops an eat; it can only be the one a
        # lynx jumps over): then every landing cell is kept without looking.
        board[c] = -1
        pos[s] = -1
        others = has_eat(pos, board, after, prey, mid)
        for t in range(ncells):
            if board[t] >= 0 or t == c:
                continue
            board[t] = s
            pos[s] = t
            if others or has_eat(pos, board, after, prey, mid):
                if cut:
                    skip[1] += 1
                else:
                    w0, w1 = _with_byte(k0, k1, s, 1 + 2 * t + stk[s])
                    n = _emit(w0, w1, after, out_k0, out_k1, out_meta, n, cap)
            board[t] = -1
        pos[s] = c
        board[c] = s
    if cut and skip[1] > skipped and b < skip[0]:
        skip[0] = b
    if beta < INF:
        for j in range(n_eats, min(n, cap)):
            out_lb[j] = b
    if grp.shape[0] > 0:
        for j in range(n_eats, min(n, cap)):
            grp[j] = NCARDS  # the Whale's half-steps come last
    return n


@njit(**HOT)
def gen_children_below(k0, k1, meta, ab, prey, mid, bydist, dstart, maxd, out_k0, out_k1, out_meta, start, cap,
                       pos, stk, board, grp, beta, cmask, cellrc, wk, skip, out_lb, once):
    """:func:`gen_children_into` for a search with the window ``beta``: the children of an eat whose
    move or swap ability leaves them all with a bound >= ``beta``, and the Whale's half-steps when
    theirs does, are not generated (the search would cut each at once); skip[0] gets the least of
    their bounds (INF if none), skip[1] their number, counted up to COUNT_LIMIT an eat (the table's
    replacement and the choice of move order read a node's number of children).  ``out_lb`` gets
    each generated child's bound where its siblings share it (-1 where not): the search need not
    compute it again.  With ``once`` (1), a double move by two stacks is listed in one order where
    the other reaches the same position (see :func:`_ability`).  skip: int64[3] (skip[2] is
    scratch).  On a ring board, nodes with about 900 children, nearly all such, were most of the
    time of the slowest deal (benchmarks/RESULTS.md)."""
    k0 = np.uint64(k0)
    k1 = np.uint64(k1)
    decode(k0, k1, pos, stk, board)
    if beta < INF:
        skip[0] = INF
        skip[1] = 0
    m = np.int64(meta)
    n = _eats(pos, stk, board, m & 31, k0, k1, ab, prey, mid, out_k0, out_k1, out_meta, start, cap, bydist, dstart, maxd, grp,
              beta, cmask, cellrc, wk, skip, out_lb, once)
    if (m & PHASE_BIT) == 0 and ((m >> 1) & 1) == 1:
        n = _whale_half_steps(k0, k1, m, pos, stk, board, bydist.shape[0], prey, mid, out_k0, out_k1, out_meta, n,
                              cap, grp, beta, cmask, cellrc, wk, skip, out_lb)
    return n
