"""The lower bound against the true minimum on every position of the perft suite's first levels,
with graphs of any size (tests/test_bound_suite.py stops at 100,000 states a position).

    python benchmarks/bound_suite.py                        # every row without the Whale, levels 0-2
    python benchmarks/bound_suite.py --rows gap-none,gap-shark
    python benchmarks/bound_suite.py --rows standard-both --depth 1
    python benchmarks/bound_suite.py --rows standard-both --jobs 2   # the Whale's level 2, streamed

The minimum of a position whose bound is above 1 comes from a walk of every state below it with
nothing cut (fci_solver.bitboard.dag.fewest_stacks), in tables of growing size; it rests on the
rules alone.  A row's line gives its positions, those with a bound above 1, the largest graph
walked, the positions where the bound is exact, those where it is above the minimum (which
must be none: the exit status is 1 otherwise), and those whose graphs pass ``--cap`` states
(left unchecked, counted by their bound).

With the Whale, level 2 (standard deal 7: 193,853,703 positions, a 14 GB set) is not held: the
turns from each level-1 state are listed a run at a time, on ``--jobs`` threads, and only the
listed positions whose bound is above 1 are kept (979,623,303 turns listed, a position reached
by several turns listed each time).  Its row gives the turns listed in place of the positions.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from fci_solver.bitboard import kernels as K, perft as bp
from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.dag import FewestStacks
from fci_solver.bitboard.engine import Engine
from fci_solver.cards import standard_cards
from fci_solver.search import perft_suite

SUITE = Path(__file__).resolve().parent.parent / "tests" / "perft_suite.txt"
SIZES = (2_000, 100_000, 4_000_000, 60_000_000)


def check_row(eng: Engine, keys, cap: int) -> dict:
    """The row's figures; a position whose graph passes ``cap`` states is left unchecked, and
    listed with its bound in ``unwalked``."""
    fewest_from = FewestStacks(eng, [n for n in SIZES if n < cap] + [cap])
    above, exact, over, unwalked, largest = 0, 0, [], [], 0
    for i, key in enumerate(sorted(keys)):
        bound = eng.lower_bound(key)
        if bound == 1:
            continue
        above += 1
        fewest = fewest_from(key)
        if fewest is None:
            unwalked.append((key, bound))
            print(f"  position {i:,} {key}: a graph of more than {cap:,} states, bound {bound}", file=sys.stderr, flush=True)
            continue
        if fewest_from.states > SIZES[1]:
            print(f"  position {i:,}: a graph of {fewest_from.states:,} states", file=sys.stderr, flush=True)
        largest = max(largest, fewest_from.states)
        exact += bound == fewest
        if bound > fewest:
            over.append((key, bound, fewest))
    return {"above_1": above, "largest_graph": largest, "exact": exact, "exceeding": over, "unwalked": unwalked}


def above_1_one_turn_on(eng: Engine, level: set, jobs: int) -> tuple[set, int]:
    """The positions one turn after ``level`` whose bound is above 1, without holding the
    positions in between, and how many turns were listed (perft's listers, whose buffers grow
    for a state whose turns overflow them)."""
    states = [np.array(col, dtype) for col, dtype in zip(zip(*level), (np.uint64, np.uint64, np.int64))]
    n, runs, lock, found, listed = len(level), bp._runs(len(level)), threading.Lock(), set(), [0]

    def take():
        lo, hi = runs()
        if lo // bp.LIST_SLICE % 25 == 0:
            print(f"  {lo:,} of {n:,} states listed", file=sys.stderr, flush=True)
        return lo, hi

    def lister():
        w, buf, wk = bp._Lister(eng.copy()), bp._Buffer(), np.empty(K.WORK, np.int64)
        mine, turns = set(), 0
        while True:
            w.fill(states, take, buf)
            if not buf.listed:
                break
            turns += buf.listed
            m = K.keep_above(buf.k0, buf.k1, buf.meta, buf.listed, 1, w.eng.cmask, w.eng.cellrc, wk)
            mine.update(zip(buf.k0[:m].tolist(), buf.k1[:m].tolist(), buf.meta[:m].tolist()))
        with lock:
            found.update(mine)
            listed[0] += turns

    with ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(lister) for _ in range(jobs)]:
            f.result()
    return found, listed[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="", help="comma-separated row names (layout-sea); default every row without the Whale")
    ap.add_argument("--depth", type=int, default=2, help="the deepest level checked")
    ap.add_argument("--cap", type=int, default=SIZES[-1], help="the largest graph walked (states)")
    ap.add_argument("--jobs", type=int, default=1, help="threads that list a streamed level (rows with the Whale)")
    a = ap.parse_args()
    cards = standard_cards()
    wanted = set(a.rows.split(",")) if a.rows else None
    bad = 0
    print("| row | levels | positions | bound above 1 | largest graph | bound exact | bound above the minimum "
          "| not walked | seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, pos, counts in perft_suite(SUITE):
        if (name not in wanted) if wanted is not None else pos.whale:
            continue
        t0 = time.perf_counter()
        eng = Engine(pos.board, cards)
        if pos.whale and a.depth >= 2:
            levels = eng.levels(key_of(pos), a.depth - 1)
            last, turns = above_1_one_turn_on(eng, levels[-1], a.jobs)
            keys = set().union(*levels, last)
            shown = f"{sum(map(len, levels)):,} + {turns:,} turns"
        else:
            keys = set().union(*eng.levels(key_of(pos), a.depth))
            shown = f"{len(keys):,}"
        r = check_row(eng, keys, a.cap)
        bad += len(r["exceeding"])
        print(f"| {name} | 0-{a.depth} | {shown} | {r['above_1']:,} | {r['largest_graph']:,} | {r['exact']:,} "
              f"| {len(r['exceeding'])} | {len(r['unwalked']):,} | {time.perf_counter() - t0:.1f} |", flush=True)
        for key, bound, fewest in r["exceeding"][:5]:
            print(f"  {key}: bound {bound}, minimum {fewest}", flush=True)
        bounds = Counter(b for _, b in r["unwalked"])
        if bounds:
            print(f"  not walked, by bound: {dict(sorted(bounds.items()))}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted: the rows above are complete", file=sys.stderr)
        sys.exit(130)
