"""What one search state costs: child generation, the quick or discard bound on every child, the full bound.

    python benchmarks/node_cost.py [--layout L] [--sea none|shark|whale|both]

Positions: up to 400 random ones at each of 1..6 turns into seeded deals 1-5 of the layout
(default: standard, no sea animals).  Each kernel runs over all of them in one compiled loop;
microseconds per position.  With the Whale, the positions where it is still to be used (whose
children include every Whale move) are the ones timed.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from numba import njit

from fci_solver.bitboard import kernels as K
from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.engine import Engine
from fci_solver.cards import standard_cards
from fci_solver.position import Deal


@njit
def children(k0, k1, km, ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cm, cmask, cellrc, bound):
    """The children generated (and, with ``bound`` 1 or 2, the quick or the discard bound of each,
    summed so that the compiler keeps them)."""
    pos = np.empty(16, np.int64)
    stk = np.empty(16, np.int64)
    board = np.empty(bydist.shape[0], np.int64)
    wk = np.empty(K.WORK, np.int64)
    grp = np.empty(0, np.int64)  # the search's predator-per-child output, not needed here
    total = 0
    rated = 0
    for i in range(k0.shape[0]):
        n = K.gen_children_into(k0[i], k1[i], km[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cm, 0,
                                ck0.shape[0], pos, stk, board, grp)
        total += n
        for j in range(n):
            if bound == 1:
                rated += K.quick_bound(ck0[j], ck1[j], cm[j], cmask, cellrc, wk)
            elif bound == 2:
                rated += K.discard_bound(ck0[j], ck1[j], cm[j], cmask, cellrc, wk)
    return total if bound == 0 else rated


@njit
def bounds(k0, k1, km, cmask, cellrc):
    wk = np.empty(K.WORK, np.int64)
    total = 0
    for i in range(k0.shape[0]):
        total += K.lower_bound(k0[i], k1[i], km[i], cmask, cellrc, wk)
    return total


@njit
def game_ends(k0, k1, km, reach, ck0, ck1, cm, ab, prey, mid, bydist, dstart, maxd):
    """The game-end test on every child (as a node rates its children), after generating them."""
    pos = np.empty(16, np.int64)
    stk = np.empty(16, np.int64)
    board = np.empty(bydist.shape[0], np.int64)
    grp = np.empty(0, np.int64)
    ends = 0
    for i in range(k0.shape[0]):
        n = K.gen_children_into(k0[i], k1[i], km[i], ab, prey, mid, bydist, dstart, maxd, ck0, ck1, cm, 0,
                                ck0.shape[0], pos, stk, board, grp)
        for j in range(n):
            if (cm[j] & (K.PHASE_BIT | 2)) == 0 and K.no_turn(ck0[j], ck1[j], cm[j], reach, stk):
                ends += 1
    return ends


def timed(f, *args, repeat=5):
    f(*args)
    t = time.perf_counter()
    for _ in range(repeat):
        r = f(*args)
    return r, (time.perf_counter() - t) / repeat


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", default="none", choices=("none", "shark", "whale", "both"))
    a = ap.parse_args()
    shark, whale = a.sea in ("shark", "both"), a.sea in ("whale", "both")
    cards = standard_cards()
    keys = []
    for seed in range(1, 6):
        pos = Deal.random(a.layout, seed).position(2, shark, whale)
        eng = Engine(pos.board, cards)
        rng = random.Random(seed)
        frontier = [key_of(pos)]
        for _ in range(6):
            if whale:  # the turns that leave the Whale to come (a Whale node has a thousand children)
                nxt = [k for f in frontier for k in eng.children(f) if (k[2] >> 1) & 1 and not k[2] & K.PHASE_BIT]
            else:
                nxt = [k for f in frontier for k in sorted(eng.next_states(f))]
            rng.shuffle(nxt)
            frontier = nxt[:400]
            keys.extend(frontier)
    report("positions" + (", the Whale still to come" if whale else ""), eng, keys)


def report(what, eng, keys):
    k0 = np.array([k[0] for k in keys], np.uint64)
    k1 = np.array([k[1] for k in keys], np.uint64)
    km = np.array([k[2] for k in keys], np.int64)
    ck0, ck1, cm = eng.buffers()[:3]
    geo = (eng.ab, eng.prey, eng.mid, eng.bydist, eng.dstart, eng.maxd, ck0, ck1, cm, eng.cmask, eng.cellrc)
    n = len(keys)
    print(f"{what}:")
    kids, gen = timed(children, k0, k1, km, *geo, 0)
    _, both = timed(children, k0, k1, km, *geo, 1)
    _, discard = timed(children, k0, k1, km, *geo, 2)
    _, full = timed(bounds, k0, k1, km, eng.cmask, eng.cellrc)
    ends, gen_ends = timed(game_ends, k0, k1, km, eng.reach, ck0, ck1, cm, eng.ab, eng.prey, eng.mid, eng.bydist,
                           eng.dstart, eng.maxd)
    print(f"{n} positions, {kids / n:.0f} children each on average")
    print(f"generate children: {gen * 1e6 / n:.2f} us per position")
    print(f"... and the quick bound on each child: {(both - gen) * 1e6 / n:.2f} us more "
          f"({(both - gen) * 1e9 / kids:.1f} ns a child)")
    print(f"... or the discard bound on each child: {(discard - gen) * 1e6 / n:.2f} us more "
          f"({(discard - gen) * 1e9 / kids:.1f} ns a child)")
    print(f"full lower bound: {full * 1e6 / n:.2f} us per position")
    print(f"the game-end test on each child: {(gen_ends - gen) * 1e9 / kids:.1f} ns a child "
          f"({ends} of {kids} children are game ends)")


if __name__ == "__main__":
    main()
