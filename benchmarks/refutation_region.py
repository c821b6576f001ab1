"""How loose the lower bound is where the perfect-play graph spends its searches.

    python benchmarks/refutation_region.py [--deal DEAL] [--seed 3] [--turn 4] [--sample 1500]

A random perfect line (``--seed``) is played to ``--turn`` of the deal (no sea animals, margin 2),
and that turn's next positions that cannot keep the minimum are taken.  Proving them lost takes
every position below them that the full bound leaves at the minimum and whose game goes on: the
*region*, walked here once each (the settling searches expand these and no others, give or take
the table).  Then, on a sample of the region:

* for each card whose ability moves stacks, how many positions the bound would lift if that
  ability never acted.  That is unsound (an upper limit on what any better account of that card
  could gain), so it is only counted;
* two sound refinements, each as the states left in the region: the Wolf (a self-mover of a
  bounded step) reaching a radius around the cells it eats on instead of anywhere; and a card
  that swaps stacks making at most two stacks per eat left to it go anywhere instead of
  switching the geometry off.  (A third, stacks meeting only side by side once no eat can
  reach farther, is now part of the bound, in its layers of far eats.)

With ``--ahead``, how much a bound that looks one eat ahead could cut: the region's *leaves*
(every child cut by its full bound or a game end with more stacks), those whose every child
its own value bound (no geometry) already cuts (the most a value-level look-ahead could
catch), and those a cheap one catches: over the eats possible now (from the key, as the
game-end test reads them), the fewest stuck tops once the prey is gone and the predator is
stacked, with the position's own discards.  Also how many of the children's full cuts a bound
with the *parent's* geometry would make (each child's stuck tops counted with the eaters the
parent's reach analysis allows, sound since a child's games are some of its parent's): computed
once a parent, it would spare the children's own analyses where it cuts.

With ``--cost``, what a state of the region costs instead, piece by piece, over the whole
region in one compiled loop (as the settling searches meet them, window 2): generating its
children, rating them (the quick and discard bounds), the game-end test on those left, and the
full bound on the rest (what each costs when it is entered).
"""

from __future__ import annotations

import argparse
import itertools
import random
import time

import numpy as np
from numba import njit

from fci_solver import bound as B, rules
from fci_solver.bitboard import kernels as K
from fci_solver.bitboard.kernels.bound import _prey as value_prey
from fci_solver.bitboard.kernels.keys import tops_of
from fci_solver.bitboard.codec import key_of, position_of
from fci_solver.bitboard.engine import Engine
from fci_solver.bitboard.search import BitboardSolver
from fci_solver.cards import standard_cards
from fci_solver.position import Deal


def _rows(keys):
    return np.array(keys, dtype=np.uint64).reshape(-1, 3)


def lost_options(eng, cards, root, seed: int, turn: int) -> list:
    """The next positions of the ``turn``-th position of a random perfect line that cannot keep the minimum (1)."""
    rng = random.Random(seed)
    solver = BitboardSolver(cards, memory=1024)
    key = root
    for _ in range(turn):
        kids = sorted(eng.next_states(key))
        keeps = solver.values(eng, _rows(kids), 2, floor=1) == 1
        if _ == turn - 1:
            return [k for k, x in zip(kids, keeps) if not x]
        key = rng.choice([k for k, x in zip(kids, keeps) if x])


def region(eng, starts, bound=None) -> list:
    """Every position below ``starts`` (each once) whose bound is 1 and whose game goes on."""
    seen, out, stack = set(), [], list(starts)
    while stack:
        k = stack.pop()
        if k in seen:
            continue
        seen.add(k)
        if eng.lower_bound(k) >= 2 or (bound is not None and bound(k) >= 2) or eng.game_over(k):
            continue
        out.append(k)
        stack.extend(eng.next_states(k))
    return out


# -- sound refinements (prototypes, in the shape of fci_solver.bound) --------------------------

def _bound_with(pos, cards, eaters_of) -> int:
    """fci_solver.bound.lower_bound with other accounts of which tops may ever eat which (the
    least of them, when there are several)."""
    tops = {s.card for s in pos.stacks}
    unstacked = {s.card for s in pos.stacks if not s.stacked}

    def budget(left):
        return B.discard_budget(tops, cards, pos.shark, pos.pending == "raccoon", left)

    n = B._fewest_stuck(tops, unstacked, budget, B._plain_eaters(tops))
    if n < len(tops) and not pos.whale:
        choices = eaters_of(pos, cards, tops)
        if choices is not None:
            n = max(n, min(B._fewest_stuck(tops, unstacked, budget, e) for e in choices))
    if pos.shark and len(tops) >= 2:
        n -= 1
    return max(1, n)


def _eats_left(pos, card: int, tops: set, skip: int = -1) -> int:
    return len(B._prey(card, tops - {skip}, pos.shark)) + (1 if pos.shark else 0)


def wolf_eaters(pos, cards, tops):
    """Reach sets where a self-mover of step s stands within a radius of the cells it may eat on.

    After a normal eat it stands on its prey's cell, then steps at most s; after an eat with the
    caiman pending it stays and steps again, so each such eat adds s (their number is bounded by
    the eats of caiman cards and a caiman pending now).  A card's cells carry radii, and two
    cards may meet when some pair of their cells is within 2 + both radii."""
    if not B._far_prey(pos):
        return None
    cell = {s.card: s.cell for s in pos.stacks}
    step, drift, free = {}, {}, set()
    for c in cards:
        if c.ability == "move" and c.who == "self" and c.value in tops:
            if c.max is None:
                free.add(c.value)
            else:
                caiman = (1 if pos.pending == "caiman" else 0) + sum(
                    _eats_left(pos, g.value, tops, c.value) for g in cards
                    if g.ability == "pending" and g.effect == "caiman" and g.value in tops and g.value != c.value)
                step[c.value] = c.max
                drift[c.value] = c.max * min(caiman, _eats_left(pos, c.value, tops))
    S = {c: {c: 0} for c in tops}
    F = set()

    def meets(a, b):
        return a in F or b in F or any(rules.distance(cell[x], cell[y]) <= 2 + rx + ry
                                       for x, rx in S[a].items() for y, ry in S[b].items())

    for e in sorted(tops):  # a card's sets depend only on lower cards'
        changed = True
        while changed:
            changed = False
            for q in B._prey(e, tops, pos.shark):
                if not meets(e, q):
                    continue
                if e in step and S[e][e] < drift[e]:
                    S[e][e] = drift[e]
                    changed = True
                for j, r in S[q].items():
                    r += step.get(e, 0) + drift.get(e, 0)
                    if S[e].get(j, -1) < r:
                        S[e][j] = r
                        changed = True
                if e not in F and (q in F or e in free):
                    F.add(e)
                    changed = True
    for m in (B.mover_cards(cards) - B.self_movers(cards)) & tops:
        if any(meets(m, q) for q in B._prey(m, tops, pos.shark)):
            return None
    return [{t: {e for e in tops if 1 <= e - t <= 3 and meets(e, t)} for t in tops}]


def swap_eaters(pos, cards, tops):
    """Reach sets where a card that swaps stacks may act: each of its eats left swaps two stacks,
    so one account for every choice of that many stacks made to go anywhere (the bound takes
    the least)."""
    if not B._far_prey(pos):
        return None
    swappers = {c.value for c in cards if c.ability == "swap"} & tops
    k = sum(_eats_left(pos, s, tops) for s in swappers)
    choices = []
    for Z in itertools.combinations(sorted(tops), min(2 * k, len(tops))):
        reach = B.Reach(pos, cards, pos.shark, anywhere=Z)
        for m in (B.mover_cards(cards) - B.self_movers(cards) - swappers) & tops:
            if any(reach.meets(m, q) for q in B._prey(m, tops, pos.shark)):
                return None
        choices.append({t: {e for e in tops if 1 <= e - t <= 3 and reach.meets(e, t)} for t in tops})
    return choices


@njit
def _pieces(k0, k1, km, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cm, clb, cmask, cellrc, reach, stage):
    """Children generated, left by their rating, game ends among them, and the rest cut by the
    full bound, over the positions; ``stage`` says how many of the pieces after generation run."""
    pos = np.empty(16, np.int64)
    stk = np.empty(16, np.int64)
    board = np.empty(bydist.shape[0], np.int64)
    wk = np.empty(K.WORK, np.int64)
    grp = np.empty(ck0.shape[0], np.int64)
    skip = np.empty(3, np.int64)
    gen = live = ends = cut = 0
    for i in range(k0.shape[0]):
        n = K.gen_children_below(k0[i], k1[i], km[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cm, 0,
                                 ck0.shape[0], pos, stk, board, grp, 2, cmask, cellrc, wk, skip, clb, 0)
        gen += n
        for j in range(n if stage >= 1 else 0):
            v = clb[j]
            if v < 0:
                v = K.discard_bound(ck0[j], ck1[j], cm[j], cmask, cellrc, wk, 2)
            if v >= 2:
                continue
            live += 1
            if stage >= 2 and (cm[j] & (K.PHASE_BIT | 2)) == 0 and K.no_turn(ck0[j], ck1[j], cm[j], reach, stk):
                ends += 1
            elif stage >= 3 and K.lower_bound(ck0[j], ck1[j], cm[j], cmask, cellrc, wk) >= 2:
                cut += 1
    return gen, live, ends, cut


def cost(eng, keys) -> None:
    """Print a region state's cost piece by piece (the best of three runs of each stage)."""
    k0, k1, km = (np.array([k[i] for k in keys], t) for i, t in enumerate((np.uint64, np.uint64, np.int64)))
    ck0, ck1, cm, clb = eng.buffers()[:4]
    args = (k0, k1, km, eng.ab, eng.prey, eng.mid, eng.bydist, eng.dstart, eng.maxd, ck0, ck1, cm, clb, eng.cmask,
            eng.cellrc, eng.reach)
    n, before = len(keys), 0.0
    names = ("generating the children", "rating them", "the game-end test on those left",
             "the full bound on the rest")
    for stage, name in enumerate(names):
        _pieces(*args, stage)
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            got = _pieces(*args, stage)
            runs.append(time.perf_counter() - t)
        took = min(runs)
        print(f"  {name}: {(took - before) * 1e6 / n:.2f} us a state")
        before = took
    gen, live, ends, cut = got
    print(f"  a state: {gen / n:.1f} children generated, {live / n:.1f} left by their rating, {ends / n:.1f} of them "
          f"game ends, {cut / n:.1f} cut by the full bound when entered; {took * 1e6 / n:.2f} us in all")


@njit
def _eats_now(k0, k1, meta, reach, E):
    """E[e] = the tops ``e`` can eat this turn (every one by value when the Whale may move first
    or a lynx jump is pending: a superset, which keeps a bound over them sound)."""
    n = reach.shape[1]
    eff = (meta >> 2) & 7
    shark = meta & 1
    tops, _ = tops_of(k0, k1)
    anywhere = (meta & 2) != 0 or n > 64 or eff == K.LYNX
    cell_of = np.zeros(16, np.int64)
    for e in range(16):
        E[e] = 0
        code = K._code(k0, k1, e)
        if code == 0:
            continue
        cell = (code - 1) >> 1
        cell_of[e] = cell
        prey = value_prey(e, tops, shark)
        if anywhere:
            E[e] = prey
            continue
        lo = e - 1 if eff == K.LION else e - 3
        y = prey
        while y:
            q = K._lowest(y)
            y &= y - 1
            normal = q >= lo and not (eff == K.BEAR and e == 15) and (reach[eff, cell, n] >> cell_of[q]) & 1
            if normal or (shark == 1 and (reach[0, cell, n] >> cell_of[q]) & 1):
                E[e] |= 1 << q



@njit
def _shark_eat(tops, meta):
    """The Shark's one eat, as the bound counts it."""
    return 1 if (meta & 1) == 1 and K._popcount(tops) >= 2 else 0


def _one_count(cmask):
    """The card masks with the discards counted once, as when these levers were measured
    (2026-12-05): no count again after a discard, no cap on the raccoon triggers."""
    m = cmask.copy()
    m[4] = m[5] = 0
    return m


@njit
def _ahead(k0, k1, meta, cmask, reach, wk, E):
    """The cheap look-ahead: the least, over the eats possible now, of the fewest stuck tops left
    once the prey is gone and the predator stacked (the position's discards, which count this
    turn's)."""
    tops, stacked = tops_of(k0, k1)
    _eats_now(k0, k1, meta, reach, E)
    less = _shark_eat(tops, meta)
    pending = 1 if ((meta >> 2) & 7) == K.RACCOON else 0
    best = K.INF
    for e in range(16):
        y = E[e]
        while y:
            q = K._lowest(y)
            y &= y - 1
            # the discards are counted over the tops the eat leaves (when measured, 2026-12-05:
            # over the position's, this turn's included)
            v = K._fewest_stuck(tops & ~(1 << q), stacked | (1 << e), wk, True, cmask, 0, meta & 1, pending) - less
            if v < best:
                best = v
    return best


@njit
def _parent_eaters(k0, k1, meta, cmask, cellrc, wk):
    """Whether the position's geometry applies (as in the full bound); if so wk[t] holds the
    cards that may ever eat t."""
    tops, _ = tops_of(k0, k1)
    return (meta & 2) == 0 and K._still(k0, k1, meta, tops, meta & 1, cellrc, wk, cmask)


@njit
def _bound_with_eaters(k0, k1, meta, cmask, wk, geometry):
    """The full bound's count for a child, with the eaters in wk (its parent's) when ``geometry``."""
    tops, stacked = tops_of(k0, k1)
    pending = 1 if ((meta >> 2) & 7) == K.RACCOON else 0
    return K._fewest_stuck(tops, stacked, wk, not geometry, cmask, 0, meta & 1, pending) - _shark_eat(tops, meta)


def ahead(eng, keys) -> None:
    """Print how many of the region's leaves a look-ahead of one eat could cut (see the docstring)."""
    wk = np.empty(K.WORK, np.int64)
    E = np.zeros(16, np.int64)

    def value_bound(c):
        return K.discard_bound(np.uint64(c[0]), np.uint64(c[1]), np.int64(c[2]), eng.cmask, eng.cellrc, wk, 2)

    leaves = by_value = by_full = by_end = cheap = 0
    once = _one_count(eng.cmask)
    for k in keys:
        kids = eng.next_states(k)
        if not all(eng.lower_bound(c) >= 2 or eng.game_over(c) for c in kids):
            continue
        leaves += 1
        by_value += all(value_bound(c) >= 2 for c in kids)
        by_full += all(eng.lower_bound(c) >= 2 for c in kids)
        by_end += any(eng.game_over(c) and eng.lower_bound(c) < 2 for c in kids)
        cheap += _ahead(np.uint64(k[0]), np.uint64(k[1]), np.int64(k[2]), once, eng.reach, wk, E) >= 2
    full = by_parent = 0
    pk = np.empty(K.WORK, np.int64)
    for k in keys:
        geometry = _parent_eaters(np.uint64(k[0]), np.uint64(k[1]), np.int64(k[2]), eng.cmask, eng.cellrc, pk)
        for c in eng.next_states(k):
            if eng.game_over(c) or eng.lower_bound(c) < 2:
                continue
            full += 1
            by_parent += _bound_with_eaters(np.uint64(c[0]), np.uint64(c[1]), np.int64(c[2]), once, pk,
                                            geometry) >= 2
    print(f"  leaves (every child cut): {leaves:,} of {len(keys):,}; every child cut by its own value bound: "
          f"{by_value:,}; by its full bound: {by_full:,}; some child only as a game end: {by_end:,}; "
          f"caught by the cheap look-ahead: {cheap:,}")
    print(f"  children the full bound cuts (no game ends): {full:,}; of them, cut with the parent's eaters: {by_parent:,}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deal", default="1 7 3 11 6 12 15 5 8 0 13 4 14 10 2 9")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--turn", type=int, default=4)
    ap.add_argument("--sample", type=int, default=1500)
    ap.add_argument("--cost", action="store_true", help="what a state of the region costs, piece by piece")
    ap.add_argument("--ahead", action="store_true", help="how much a bound one eat ahead could cut")
    a = ap.parse_args()
    cards = standard_cards()
    start = Deal.parse("standard", a.deal).position(2, False, False)
    eng = Engine(start.board, cards)
    lost = lost_options(eng, cards, key_of(start), a.seed, a.turn)
    base = region(eng, lost)
    print(f"turn {a.turn}, seed {a.seed}: {len(lost)} next positions lost, region of {len(base):,} positions")
    if a.cost:
        cost(eng, base)
        return
    if a.ahead:
        ahead(eng, base)
        return
    sample = random.Random(1).sample(base, min(a.sample, len(base)))
    wk = np.empty(K.WORK, np.int64)
    movers = sorted(B.mover_cards(cards))
    for name, drop in [("every mover", movers)] + [(cards[c].name, [c]) for c in movers]:
        cm = eng.cmask.copy()
        for c in drop:
            cm[1] &= ~(1 << c)
            cm[2] &= ~(1 << c)
        up = sum(1 for k in sample if K.lower_bound(np.uint64(k[0]), np.uint64(k[1]), np.int64(k[2]), cm, eng.cellrc, wk) >= 2)
        print(f"  if {name} never acted (unsound): the bound rises on {up} of {len(sample)} sampled")
    for name, eaters in [("Wolf within a radius", wolf_eaters), ("swaps as stacks that go anywhere", swap_eaters)]:
        def lifted(k, eaters=eaters):
            return _bound_with(position_of(start.board, k), cards, eaters)
        up = sum(1 for k in sample if lifted(k) >= 2)
        line = f"  sound, {name}: the bound rises on {up} of {len(sample)} sampled"
        if up:
            line += f"; the region: {len(region(eng, lost, lifted)):,} positions"
        print(line)


if __name__ == "__main__":
    main()
