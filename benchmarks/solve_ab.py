"""Two versions of the kernels timed against each other in one process, on whole solves of seeded
deals (as settle_ab.py does on the perfect-play graph's settling searches).

    python benchmarks/solve_ab.py /path/to/tree-a /path/to/tree-b
    python benchmarks/solve_ab.py /tmp/before . --sea none --count 200 --rounds 6

Each tree's ``fci_solver`` package is copied into a scratch folder as ``fci_a`` and ``fci_b`` (its
own numba cache, compiled before the first round).  Each round solves seeded deals 1..``--count``
once with each copy, one thread each (``BitboardSolver(cards, jobs=1)``), the order alternating
between rounds.  Prints each copy's seconds and states, and B's median time over A's.  With both
sea animals (the default) the Whale's half-steps are searched too, which the settling searches of
settle_ab.py (no sea animals) never meet.  Run it in both orders (A, B and B, A) before believing a
difference of a few percent: see settle_ab.py.
"""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

from settle_ab import PACKAGES, alternate, copies


def solve_all(pkg: str, layout: str, sea: str, count: int) -> tuple[float, int]:
    """Seconds and states to solve seeded deals 1..``count`` with package ``pkg``."""
    search = importlib.import_module(pkg + ".bitboard.search")
    cards = importlib.import_module(pkg + ".cards").standard_cards()
    deal = importlib.import_module(pkg + ".position").Deal
    both = sea == "both"
    t, states = time.perf_counter(), 0
    for seed in range(1, count + 1):
        pos = deal.random(layout, seed).position(2, both, both)
        states += search.BitboardSolver(cards, jobs=1).solve(pos).states
    return time.perf_counter() - t, states


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree_a", type=Path)
    ap.add_argument("tree_b", type=Path)
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", choices=("none", "both"), default="both")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=6)
    a = ap.parse_args()
    with copies(a.tree_a, a.tree_b):
        for pkg in PACKAGES:
            solve_all(pkg, a.layout, a.sea, 3)  # compiled (or loaded) before any round
        alternate(a.rounds, lambda pkg: solve_all(pkg, a.layout, a.sea, a.count), a.tree_a, a.tree_b)


if __name__ == "__main__":
    main()
