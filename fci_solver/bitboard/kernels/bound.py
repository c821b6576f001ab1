"""The sound lower bound on the stacks left (the same bound as :mod:`fci_solver.bound`)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .keys import CAIMAN, FOX, HOT, INF, INLINED, NCARDS, RACCOON, TIGER, _code, _lowest, _popcount, tops_of

# The bound's helpers take up to five arrays (the geometry's card sets, the scratch) and run per
# top and per layer: as calls they cost more than their bit operations.  Inlined (INLINED): the
# geometry's into _still, 239 -> 211 ns a full bound; the discard search's into _bound, a few
# percent of settling more; about a second more of a cold compile (benchmarks/RESULTS.md).


@njit(**HOT)
def lower_bound(k0, k1, meta, cmask, cellrc, wk):
    """Same bound as :func:`fci_solver.bound.lower_bound` (see there for why it is sound).

    cmask: [cards whose eats can discard, cards whose ability moves or swaps stacks, those of them that
    move only their own stack, cards whose eat lets the next eat reach distance 2, the discard
    sources again when the discards a game can make are counted again after each discard of the
    discard search (none in the calibrated bound: :meth:`.Engine.calibrated`), the cards whose
    eat sets the raccoon effect, their triggers counted apart (none in the calibrated bound),
    the movers of any stack by a bounded step (none in the calibrated bound)], as bit masks;
    then cmask[7 + c]: card c's step (:func:`fci_solver.bound.mover_steps`); then cmask[7 + NCARDS]:
    the cards whose eat sets the caiman (:func:`fci_solver.bound.caiman_sources`);
    cellrc: per cell its row, column and two-word masks of the cells within distance 2, then 1,
    then 3, 4, ... 2 + MAX_SLACK;
    wk: int64[WORK] scratch space (no allocation per call).
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, 2, 0)


@njit(**HOT)
def quick_bound(k0, k1, meta, cmask, cellrc, wk):
    """The bound without geometry (where stacks can still meet) and without the search over discard choices (each discard is
    assumed to remove one stuck unstacked top): cheap enough to run on every generated child.

    The search prunes children with it, then those it leaves with :func:`discard_bound`, then
    (where cards move stacks) the full bound on those that are no game end, before it enters any.
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, 0, 0)


@njit(**HOT)
def discard_bound(k0, k1, meta, cmask, cellrc, wk, beta=INF):
    """The bound with the search over discard choices but without geometry: what the search
    gives a generated child, before entering it (only where the quick bound is below ``beta``
    is the discard search run).  On wide boards most children the quick bound leaves are cut by
    it (cross seed 151, both sea animals: 8.45 million of the 8.75 million children entered only
    to be cut by their bound), and entering one costs more.
    """
    return _bound(k0, k1, meta, cmask, cellrc, wk, 1, beta)


@njit(**HOT)
def _bound(k0, k1, meta, cmask, cellrc, wk, level, beta):
    # level: 0 quick, 1 with the discard search where the quick one is below beta, 2 with the
    # discard search and geometry (the full bound)
    # bit masks, not arrays: this runs once per generated child
    tops, stacked = tops_of(k0, k1)
    shark = meta & 1
    pending = 1 if ((meta >> 2) & 7) == RACCOON else 0
    less = 1 if shark == 1 and _popcount(tops) >= 2 else 0  # the Shark's one eat
    if level < 2:
        # the cheaper bounds count each Raccoon eat as a discard, as a Lizard eat (raccoons 0):
        # the cap costs a third more on a bound run on every child, and the full bound applies it
        st = _stuck_plain(tops)
        lizards, eats = _shares(tops, cmask[0], 0, shark)
        loose = _popcount(st & ~stacked) - lizards - pending
        n = _popcount(st & stacked) + (loose if loose > 0 else 0) - less
        if level == 0 or n >= beta:
            return n if n > 1 else 1  # (builtin max and min are calls here, not inlined)
    # the tops stuck by geometry include those stuck by value alone: where the geometry applies,
    # one discard search over its eaters is the bound (not one by value first, then this)
    geometry = level == 2 and (meta & 2) == 0 and _still(k0, k1, meta, tops, shark, cellrc, wk, cmask)
    n = _fewest_stuck(tops, stacked, wk, not geometry, cmask, cmask[5] if level == 2 else 0, shark, pending) - less
    return n if n > 1 else 1


@njit(**HOT)
def _spread(k0, k1, cellrc, wk):
    """How far the tops are from their nearest possible eater: sum over tops with an eater on top
    of (Manhattan distance to the nearest one - 1).  A tie-break for move ordering only."""
    r = wk[NCARDS:NCARDS + NCARDS]
    c = wk[NCARDS + NCARDS:NCARDS + 2 * NCARDS]
    tops = 0
    for i in range(NCARDS):
        code = _code(k0, k1, i)
        if code != 0:
            tops |= 1 << i
            cell = (np.int64(code) - 1) >> 1
            r[i] = cellrc[cell, 0]
            c[i] = cellrc[cell, 1]
    s = 0
    for t in range(NCARDS - 1):
        if (tops >> t) & 1:
            best = INF
            for e in range(t + 1, min(t + 4, NCARDS)):
                if (tops >> e) & 1:
                    dd = abs(r[t] - r[e]) + abs(c[t] - c[e])
                    if dd < best:
                        best = dd
            if best < INF:
                s += best - 1
    return s


@njit(**HOT)
def _stuck_plain(r):
    """Tops of ``r`` that no top of ``r`` can eat (an eater is 1-3 higher)."""
    return r & ~((r >> 1) | (r >> 2) | (r >> 3))


@njit(**INLINED)
def _stuck(r, wk, plain):
    """Tops of ``r`` that no top of ``r`` can eat: one 1-3 above (``plain``), or, if not, one
    of wk[t], the cards that may ever eat t."""
    if plain:
        return _stuck_plain(r)
    st = 0
    x = r
    while x:
        t = _lowest(x)
        x &= x - 1
        if (r & wk[t]) == 0:
            st |= 1 << t
    return st


@njit(**INLINED)
def _stuck_without(r, st, u, wk, plain):
    """The stuck tops of ``r`` (the tops of ``st``'s position without ``u``): only the tops ``u``
    could eat, 1-3 below it, may have lost their last eater."""
    st &= ~(1 << u)
    low = u - 3 if u >= 3 else 0
    x = r & ((1 << u) - (1 << low))
    while x:
        t = _lowest(x)
        x &= x - 1
        eaters = (7 << (t + 1)) if plain else wk[t]
        if (r & eaters) == 0:
            st |= 1 << t
    return st


DISCARD_DEPTH = 3
WORK = NCARDS + 448  # scratch space of the bound: eaters per card, then the discard search's
# stack of 7 x 64 words (or, before it, the reach sets of _still, its cells and the tops by cell)


@njit(**INLINED)
def _share(tops, c, shark):
    """How many times ``c`` can still eat: at most the tops 1-3 below it (plus one with the Shark)."""
    below = tops & ((1 << c) - 1)
    near = below >> (c - 3) if c >= 3 else below
    return _popcount(near) + shark


@njit(**INLINED)
def _shares(tops, sources, raccoons, shark):
    """(the Lizards' eats, the Raccoons' eats) at most: the eats of the discard sources among
    ``tops`` that are not ``raccoons``, and of those that are (``raccoons`` 0: a Raccoon counts
    as a Lizard does)."""
    lizards = 0
    eats = 0
    x = tops & sources
    while x:
        c = _lowest(x)
        x &= x - 1
        if (raccoons >> c) & 1:
            eats += _share(tops, c, shark)
        else:
            lizards += _share(tops, c, shark)
    return lizards, eats


@njit(**INLINED)
def _cap(r, raccoons, shark, pending):
    """The most raccoon triggers the tops ``r`` allow, whatever the Raccoons' eats (see
    fci_solver.bound.discard_budget): half of the prey open to the Raccoon eats and the eats by
    exactly 1, plus the eat that may be both, the Shark's and the pending raccoon."""
    if raccoons == 0:
        return INF  # none counted apart (the calibrated bound, and the cheaper bounds): no cap
    prey = r & (r >> 1)  # the tops with a top just above them
    both = 0
    sea = 0
    x = r & raccoons
    while x:
        c = _lowest(x)
        x &= x - 1
        prey |= _prey(c, r, 0)
        if c >= 1:
            both += (r >> (c - 1)) & 1
        sea = shark
    return (_popcount(prey) + sea + both + pending) >> 1


@njit(**INLINED)
def _fewest_stuck(tops, stacked, wk, plain, cmask, raccoons, shark, pending):
    """The fewest stuck tops left after discarding unstacked tops, as many as the discard
    sources can pay for.

    Only a top that is stuck when it goes is worth discarding, highest first, and a discarded top
    never ate (it would be stacked), so it is no eater: its prey may become stuck in turn.  Nor
    did it eat to pay for a discard or take part in a trigger's eat: unless the bound is the
    calibrated one (cmask[4] zero), a discarded Lizard or Raccoon takes its eats with it, and the
    triggers of ``raccoons`` (a mask of cards, 0: none counted apart) are capped again over the
    tops left (_cap).  The choices are searched ``DISCARD_DEPTH`` deep; below that, each
    remaining discard is assumed to remove one stuck unstacked top.
    """
    st = _stuck(tops, wk, plain)
    if (st & ~stacked) == 0:
        return _popcount(st)  # nothing worth discarding
    sources = cmask[0]
    lizards, eats = _shares(tops, sources, raccoons, shark)
    cap = _cap(tops, raccoons, shark, pending) if raccoons != 0 and pending + eats > 0 else INF
    discards = lizards + _least(pending + eats, cap)
    if discards == 0:
        return _popcount(st)
    recount = cmask[4] != 0
    best = INF
    rs = wk[NCARDS:NCARDS + 64]
    last = wk[NCARDS + 64:NCARDS + 128]
    depth = wk[NCARDS + 128:NCARDS + 192]
    sts = wk[NCARDS + 192:NCARDS + 256]
    lefts = wk[NCARDS + 256:NCARDS + 320]
    # the Raccoons' eats and at most the cap on their triggers (exact where the cap may bind)
    racs = wk[NCARDS + 320:NCARDS + 384]
    caps = wk[NCARDS + 384:NCARDS + 448]
    rs[0] = tops
    last[0] = NCARDS
    depth[0] = 0
    sts[0] = st
    lefts[0] = discards
    racs[0] = eats
    caps[0] = cap
    sp = 1  # pending choices: at most 16 per level on DISCARD_DEPTH levels, 48 < 64
    while sp > 0:
        sp -= 1
        r = rs[sp]
        d = depth[sp]
        below = last[sp]
        st = sts[sp]
        left = lefts[sp]
        if d == DISCARD_DEPTH:
            loose = _popcount(st & ~stacked) - left
            v = _popcount(st & stacked) + (loose if loose > 0 else 0)
        else:
            v = _popcount(st)
            # each discard takes at most one stuck top away: no choice below here beats that
            if left > 0 and v - left < best:
                rc = racs[sp]
                cp = caps[sp]
                cand = st & ~stacked & ((1 << below) - 1)
                while cand:
                    u = _lowest(cand)
                    cand &= cand - 1
                    after = r & ~(1 << u)
                    rest = left - 1
                    rc2 = rc
                    cp2 = cp
                    if recount:
                        if ((sources & ~raccoons) >> u) & 1:
                            rest -= _share(tops, u, shark)  # a discarded Lizard takes its eats with it
                        if raccoons != 0:
                            rc2, cp2 = _triggers_after(after, u, tops, rc, cp, raccoons, shark, pending)
                            rest -= _least(pending + rc, cp) - _least(pending + rc2, cp2)
                    if rest < 0:
                        continue  # the tops left cannot pay for this many discards
                    lefts[sp] = rest
                    racs[sp] = rc2
                    caps[sp] = cp2
                    rs[sp] = after
                    last[sp] = u
                    depth[sp] = d + 1
                    sts[sp] = _stuck_without(after, st, u, wk, plain)
                    sp += 1
        if v < best:
            best = v
    return best


@njit(**INLINED)
def _least(a, b):
    return a if a < b else b


@njit(**INLINED)
def _triggers_after(after, u, tops, eats, cap, raccoons, shark, pending):
    """(the Raccoons' eats, at most the cap on their triggers) once ``u`` is discarded and
    ``after`` the tops left.  Taking away a card other than a Raccoon lowers the cap by at most
    one (the prey open to the triggers lose it and the card below it, or it and the eat that is
    both), so the cap is counted again only where it may bind."""
    if (raccoons >> u) & 1:
        eats -= _share(tops, u, shark)
        cap = _cap(after, raccoons, shark, pending)
    elif pending + eats > cap - 1:
        cap = _cap(after, raccoons, shark, pending)
    else:
        cap -= 1
    return eats, cap


@njit(**HOT)
def _prey(e, tops, shark):
    """The tops ``e`` could eat by value (with the Shark, any lower one)."""
    prey = tops & ((1 << e) - 1)
    if shark == 0 and e > 3:
        prey &= 7 << (e - 3)
    return prey


@njit(**HOT)
def _on(cards, cb, cellwise):
    """``cards`` in the sets' terms: the card mask itself, or (cellwise) the mask of their cells
    (``cb``: each card's cell bit)."""
    if not cellwise:
        return cards
    m = 0
    while cards:
        q = _lowest(cards)
        cards &= cards - 1
        m |= cb[q]
    return m


@njit(**INLINED)
def _reaches_prey(tops, cards, shark, near, cb, cellwise):
    """Whether one of ``cards`` has a top it could eat by value among ``near`` (per top, what is
    within reach of it): it may eat, so its ability may act."""
    x = tops & cards
    while x:
        m = _lowest(x)
        x &= x - 1
        if near[m] & _on(_prey(m, tops, shark), cb, cellwise):
            return True
    return False


@njit(**INLINED)
def _eaters_apart(tops, near, cb, cellwise):
    """Whether some top has cards above it that could eat it by value but none among ``near`` (per
    top, what is within reach of it): only then is the reach analysis worth its cost."""
    x = tops
    while x:
        t = _lowest(x)
        x &= x - 1
        eat = tops & (7 << (t + 1))
        if eat != 0 and (near[t] & _on(eat, cb, cellwise)) == 0:
            return True
    return False


@njit(**HOT)
def _gather(w0, w1, occ0, occ1, at):
    """The tops on the cells of a two-word cell mask (``at``: the top on each occupied cell)."""
    m = 0
    y = np.uint64(w0) & occ0
    while y:
        m |= 1 << at[trailing_zeros(y)]
        y &= y - np.uint64(1)
    y = np.uint64(w1) & occ1
    while y:
        m |= 1 << at[64 + trailing_zeros(y)]
        y &= y - np.uint64(1)
    return m


@njit(**HOT)
def _place_tops(k0, k1, tops, cellrc, wk, w, w2):
    """The card-mask sets' start (see _still): S[i] the card itself, N1[i] the tops on the cells of
    its cell's mask in cellrc columns w, w + 1, N2[i] those of columns w2, w2 + 1."""
    S = wk[2 * NCARDS:3 * NCARDS]
    N1 = wk[3 * NCARDS:4 * NCARDS]
    cell_of = wk[4 * NCARDS:5 * NCARDS]
    N2 = wk[5 * NCARDS:6 * NCARDS]
    at = wk[8 * NCARDS:8 * NCARDS + 128]  # the top on a cell (read only where the mask says one is)
    occ0 = np.uint64(0)
    occ1 = np.uint64(0)
    x = tops
    while x:
        i = _lowest(x)
        x &= x - 1
        cell = (np.int64(_code(k0, k1, i)) - 1) >> 1
        cell_of[i] = cell
        at[cell] = i
        if cell < 64:
            occ0 |= np.uint64(1) << np.uint64(cell)
        else:
            occ1 |= np.uint64(1) << np.uint64(cell - 64)
    x = tops
    while x:
        i = _lowest(x)
        x &= x - 1
        S[i] = 1 << i
        N1[i] = _gather(cellrc[cell_of[i], w], cellrc[cell_of[i], w + 1], occ0, occ1, at)
        N2[i] = _gather(cellrc[cell_of[i], w2], cellrc[cell_of[i], w2 + 1], occ0, occ1, at)


@njit(**HOT)
def _meets(a, b, S, N1, pS, pN2, F, deep):
    """Whether ``a`` may come within reach to eat ``b`` in this layer (see _still; ``deep``: above
    the first layer, where pS and pN2 are set)."""
    return (((F >> a) | (F >> b)) & 1) != 0 or (N1[a] & S[b]) != 0 or (deep and (pN2[a] & pS[b]) != 0)


@njit(**INLINED)
def _grow(tops, own, shark, S, N1, N2, pS, pN2, F, deep, M):
    """Grow one layer's sets until nothing changes; returns (F, whether anything grew).  A card's
    sets depend only on its own and its prey's, all lower cards: one pass from the lowest card
    up.  A prey once met has given all it can (its sets are final), so only the prey not met yet
    are looked at again, until none more meets.  M[e] becomes the prey ``e`` may meet: final once
    ``e`` is done (its sets and place in F depend on lower cards only), so the questions asked of
    the layer afterwards are answered from M, not by meeting each pair again."""
    grew = False
    x = tops
    while x:
        e = _lowest(x)
        x &= x - 1
        apart = _prey(e, tops, shark)
        met = True
        while met and apart:
            met = False
            y = apart
            while y:
                q = _lowest(y)
                y &= y - 1
                if not _meets(e, q, S, N1, pS, pN2, F, deep):
                    continue
                apart &= ~(1 << q)
                met = True
                if S[q] & ~S[e]:
                    # N1 and N2 are unions over S, so the union's are the unions of the parts'
                    S[e] |= S[q]
                    N1[e] |= N1[q]
                    N2[e] |= N2[q]
                    grew = True
                if ((F >> e) & 1) == 0 and (((F >> q) & 1) != 0 or ((own >> e) & 1) != 0):
                    F |= 1 << e
                    grew = True
        M[e] = _prey(e, tops, shark) & ~apart
    return F, grew


@njit(**INLINED)
def _prey_met(tops, cards, M):
    """How many (card, prey) pairs of ``cards`` and tops they could eat by value may meet (M, from
    _grow): for the Fox, Lynx and Tiger, each such eat allows one far eat."""
    n = 0
    x = tops & cards
    while x:
        e = _lowest(x)
        x &= x - 1
        n += _popcount(M[e])
    return n


@njit(**HOT)
def _still(k0, k1, meta, tops, shark, cellrc, wk, cmask):
    """Whether no ability can ever move another card's stack but by a bounded step (and some top's
    eaters are all out of reach now); if so, wk[t] becomes the cards that may ever come within
    reach of t and eat it (see fci_solver.bound.Reach and still_eaters for why, in layers of far
    eats).

    From cmask (see lower_bound): movers, the cards whose ability moves or swaps any stack but
    their own; own, those that move their own; far, those whose eat sets a far effect (-1: the
    geometry the difficulty tiers were calibrated with, where every eat may reach distance 2);
    bounded, the movers of any stack by a bounded step, cmask[7 + c] card c's step (none in the
    calibrated bound).

    S[c] holds the cells c's stack may yet stand on (as the cards on them, or as cells on a board
    of at most 64): it moves only onto what it eats.  N1[c] is what is next to one of them, N2[c]
    what is within distance 2 of one (in the same terms); pS and pN2 are S and N2 in the layer
    below (one far eat fewer).  F: the cards that may go anywhere (an ``own`` mover that may eat,
    and whatever may eat such a card).  With the slack of the bounded steps, "next to" and
    "within 2" read that much wider.
    """
    cb = wk[NCARDS:2 * NCARDS]
    S = wk[2 * NCARDS:3 * NCARDS]
    N1 = wk[3 * NCARDS:4 * NCARDS]
    N2 = wk[5 * NCARDS:6 * NCARDS]
    M = wk[4 * NCARDS:5 * NCARDS]  # the prey each card may meet (_place_tops is done with these words first)
    own = cmask[2]
    movers = cmask[1] & ~own
    far = cmask[3]
    # far < 0: the geometry the difficulty tiers were calibrated with, where any eat may reach
    # distance 2 (one layer, "next to" read as within 2)
    calibrated = far < 0
    bounded = cmask[6]
    free = movers & ~bounded
    w = 2 if calibrated else 4
    # On a board of at most 64 cells the sets are cell masks: a card's neighbourhood is its cell's
    # mask as it is, with no tops gathered from it (a bound 24% cheaper on the standard board).
    # On larger boards they are card masks, gathered from the cells' two-word masks.
    cellwise = cellrc.shape[0] <= 64
    _place(k0, k1, tops, cellrc, wk, cb, S, N1, N2, w, 2, cellwise)
    # cheap refusals first: a mover already within reach of its prey, or no top worth it.  A far
    # eat may come when a far effect is pending or a Fox, Lynx or Tiger is next to its prey, and
    # then eats reach distance 2
    code = (meta >> 2) & 7
    pending = 1 if FOX <= code <= TIGER and not calibrated else 0
    if calibrated:
        far = 0
    radius = 2 if calibrated or pending == 1 or _reaches_prey(tops, far, shark, N1, cb, cellwise) else 1
    near = N1 if radius == 1 or calibrated else N2
    if _reaches_prey(tops, free, shark, near, cb, cellwise) or not _eaters_apart(tops, near, cb, cellwise):
        return False
    if not _layers(tops, own, far, shark, pending, free, radius == 1, wk, cb, cellwise):
        return False
    active = 0
    while True:
        if _prey_met(tops, free, M):
            return False  # a mover may eat, so its ability may act
        met = _meeting(tops, bounded, M)
        if met == active:
            break
        active = met
        slack = _slack(active, tops, shark, cmask)
        if slack > MAX_SLACK:
            return False
        _place(k0, k1, tops, cellrc, wk, cb, S, N1, N2, _within(1 + slack), _within(2 + slack), cellwise)
        # an eat under the caiman leaves the eater where it stands: then a mover may act on its own cell
        if code != CAIMAN and not _can_eat(tops, cmask[7 + NCARDS], shark):
            _own_cells(k0, k1, tops, active, slack, shark, cmask, cellrc, cb, N1, N2, cellwise)
        _layers(tops, own, far, shark, pending, free, False, wk, cb, cellwise)
    _top_eaters(tops, M, wk)
    return True


MAX_SLACK = 3  # as fci_solver.bound.MAX_SLACK (a test checks it); cellrc has masks up to distance 2 + this


@njit(**INLINED)
def _within(d):
    """The cellrc column of the cells within distance ``d`` (two words from there)."""
    if d == 1:
        return 4
    if d == 2:
        return 2
    return 6 + 2 * (d - 3)


@njit(**INLINED)
def _place(k0, k1, tops, cellrc, wk, cb, S, N1, N2, w, w2, cellwise):
    """The sets' start, as cell masks or as card masks (see _still)."""
    if cellwise:
        _place_tops_on_cells(k0, k1, tops, cellrc, cb, S, N1, N2, w, w2)
    else:
        _place_tops(k0, k1, tops, cellrc, wk, w, w2)


@njit(**INLINED)
def _layers(tops, own, far, shark, pending, free, refuse, wk, cb, cellwise):
    """Grow the sets layer by layer, a layer for each far eat a game may make (see _still).  With
    ``refuse``, False, and no more, when a far eat may come and either a mover of ``free`` is
    within distance 2 of its prey or no top is worth the analysis at that distance."""
    S = wk[2 * NCARDS:3 * NCARDS]
    N1 = wk[3 * NCARDS:4 * NCARDS]
    M = wk[4 * NCARDS:5 * NCARDS]
    N2 = wk[5 * NCARDS:6 * NCARDS]
    pS = wk[6 * NCARDS:7 * NCARDS]
    pN2 = wk[7 * NCARDS:8 * NCARDS]
    F, grew = _grow(tops, own, shark, S, N1, N2, pS, pN2, 0, False, M)
    layers = 0
    while layers < pending + _prey_met(tops, far, M):
        if layers == 0 and refuse and (_reaches_prey(tops, free, shark, N2, cb, cellwise)
                                       or not _eaters_apart(tops, N2, cb, cellwise)):
            return False  # the refusals of _still, now that a far eat may come
        _keep_layer(tops, S, N2, pS, pN2)
        layers += 1
        F, grew = _grow(tops, own, shark, S, N1, N2, pS, pN2, F, True, M)
        if not grew:
            break
    return True


@njit(**INLINED)
def _meeting(tops, cards, M):
    """Those of ``cards`` among the tops that may meet some prey (M, from _grow)."""
    m = 0
    x = tops & cards
    while x:
        e = _lowest(x)
        x &= x - 1
        if M[e] != 0:
            m |= 1 << e
    return m


@njit(**INLINED)
def _slack(active, tops, shark, cmask):
    """How far the movers ``active`` may shift stacks in all: each eat of one, its step."""
    n = 0
    x = active
    while x:
        m = _lowest(x)
        x &= x - 1
        n += cmask[7 + m] * _share(tops, m, shark)
    return n


@njit(**INLINED)
def _can_eat(tops, cards, shark):
    """Whether one of ``cards`` among the tops has a top it could eat by value."""
    x = tops & cards
    while x:
        e = _lowest(x)
        x &= x - 1
        if _prey(e, tops, shark):
            return True
    return False


@njit(**INLINED)
def _own_cells(k0, k1, tops, active, slack, shark, cmask, cellrc, cb, N1, N2, cellwise):
    """Where a mover's own cell meets another top's, the slack less that mover's part (and the
    other's, when it is an active mover too): the mover has not acted while its cell is met (see
    fci_solver.bound.still_eaters).  Takes those tops out of each other's N1 and N2 where they
    stand beyond that; only the tops in the mover's N2 can be."""
    x = active
    while x:
        m = _lowest(x)
        x &= x - 1
        cm = (_code(k0, k1, m) - 1) >> 1
        left = slack - cmask[7 + m] * _share(tops, m, shark)
        y = tops & ~(1 << m)
        while y:
            t = _lowest(y)
            y &= y - 1
            if (N2[m] & cb[t] if cellwise else (N2[m] >> t) & 1) == 0:
                continue
            ct = (_code(k0, k1, t) - 1) >> 1
            d = left
            if (active >> t) & 1:
                d -= cmask[7 + t] * _share(tops, t, shark)
            if not _cell_within(cellrc, cm, ct, 2 + d):
                _apart(N2, m, t, cm, ct, cellwise)
                _apart(N1, m, t, cm, ct, cellwise)
            elif not _cell_within(cellrc, cm, ct, 1 + d):
                _apart(N1, m, t, cm, ct, cellwise)


@njit(**INLINED)
def _apart(near, m, t, cm, ct, cellwise):
    """Take tops ``m`` and ``t`` (on cells ``cm`` and ``ct``) out of each other's ``near``."""
    if cellwise:
        near[m] &= ~(1 << ct)
        near[t] &= ~(1 << cm)
    else:
        near[m] &= ~(1 << t)
        near[t] &= ~(1 << m)


@njit(**INLINED)
def _cell_within(cellrc, a, b, d):
    """Whether cell ``b`` is within distance ``d`` (1 or more) of cell ``a``."""
    col = _within(d)
    if b < 64:
        return (cellrc[a, col] >> b) & 1 != 0
    return (cellrc[a, col + 1] >> (b - 64)) & 1 != 0


@njit(**INLINED)
def _place_tops_on_cells(k0, k1, tops, cellrc, cb, S, N1, N2, w, w2):
    """Each top's cell, as the one cell its stack stands on now (``cb``, ``S``), and the cells
    next to it (``N1``: cellrc column ``w``) and within a far eat's reach (``N2``: column
    ``w2``), as cell masks."""
    x = tops
    while x:
        i = _lowest(x)
        x &= x - 1
        cell = (_code(k0, k1, i) - 1) >> 1
        cb[i] = 1 << cell
        S[i] = 1 << cell
        N1[i] = cellrc[cell, w]
        N2[i] = cellrc[cell, w2]


@njit(**INLINED)
def _keep_layer(tops, S, N2, pS, pN2):
    """The layer below the next one: each top's S and N2 as they are now."""
    x = tops
    while x:
        i = _lowest(x)
        x &= x - 1
        pS[i] = S[i]
        pN2[i] = N2[i]


@njit(**INLINED)
def _top_eaters(tops, M, wk):
    """wk[t] for each top t: the tops 1-3 above it that may meet it (``M``: the prey each may meet)."""
    x = tops
    while x:
        t = _lowest(x)
        x &= x - 1
        wk[t] = 0
    x = tops
    while x:
        e = _lowest(x)
        x &= x - 1
        y = M[e] & (7 << (e - 3) if e >= 3 else (1 << e) - 1)
        while y:
            t = _lowest(y)
            y &= y - 1
            wk[t] |= 1 << e
