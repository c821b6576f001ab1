"""The lower bound against the true minimum on every position of the perft suite's first levels,
with graphs of any size (tests/test_bound_suite.py stops at 100,000 states a position).

    python benchmarks/bound_suite.py                        # every row without the Whale, levels 0-2
    python benchmarks/bound_suite.py --rows gap-none,gap-shark
    python benchmarks/bound_suite.py --rows standard-both --depth 1

The minimum of a position whose bound is above 1 comes from a walk of every state below it with
nothing cut (fci_solver.bitboard.dag.fewest_stacks), in tables of growing size; it rests on the
rules alone.  A row's line gives its positions, those with a bound above 1, the largest graph
walked, the positions where the bound is exact, and those where it is above the minimum (which
must be none: the exit status is 1 otherwise).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.dag import FewestStacks
from fci_solver.bitboard.engine import Engine
from fci_solver.cards import standard_cards
from fci_solver.search import perft_suite

SUITE = Path(__file__).resolve().parent.parent / "tests" / "perft_suite.txt"
SIZES = (2_000, 100_000, 4_000_000, 60_000_000)


def check_row(eng: Engine, keys) -> dict:
    fewest_from = FewestStacks(eng, SIZES)
    above, exact, over, largest = 0, 0, [], 0
    for i, key in enumerate(keys):
        bound = eng.lower_bound(key)
        if bound == 1:
            continue
        above += 1
        fewest = fewest_from(key)
        if fewest is None:
            raise SystemExit(f"a graph of more than {SIZES[-1]:,} states: {key}")
        if fewest_from.states > SIZES[1]:
            print(f"  position {i:,}: a graph of {fewest_from.states:,} states", file=sys.stderr, flush=True)
        largest = max(largest, fewest_from.states)
        exact += bound == fewest
        if bound > fewest:
            over.append((key, bound, fewest))
    return {"above_1": above, "largest_graph": largest, "exact": exact, "exceeding": over}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="", help="comma-separated row names (layout-sea); default every row without the Whale")
    ap.add_argument("--depth", type=int, default=2, help="the deepest level checked")
    a = ap.parse_args()
    cards = standard_cards()
    wanted = set(a.rows.split(",")) if a.rows else None
    bad = 0
    print("| row | levels | positions | bound above 1 | largest graph | bound exact | bound above the minimum | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for name, pos, counts in perft_suite(SUITE):
        if (name not in wanted) if wanted is not None else pos.whale:
            continue
        t0 = time.perf_counter()
        eng = Engine(pos.board, cards)
        keys = set().union(*eng.levels(key_of(pos), a.depth))
        r = check_row(eng, keys)
        bad += len(r["exceeding"])
        print(f"| {name} | 0-{a.depth} | {len(keys):,} | {r['above_1']:,} | {r['largest_graph']:,} | {r['exact']:,} "
              f"| {len(r['exceeding'])} | {time.perf_counter() - t0:.1f} |", flush=True)
        for key, bound, fewest in r["exceeding"][:5]:
            print(f"  {key}: bound {bound}, minimum {fewest}", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted: the rows above are complete", file=sys.stderr)
        sys.exit(130)
