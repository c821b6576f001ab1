"""States spent asking first turns "can this still reach the target?", the searches grading runs.

    python benchmarks/first_turns_bench.py --seeds 3,4,5,7,9,10,15,16 --turns 25
    python benchmarks/first_turns_bench.py --seeds 3,4,5,7,9,10,15,16 --turns 25 --generation-order

For each seeded standard deal (no sea animals), a fixed sample of its first turns is searched one
after another over one table, each with at most --cap states, as grading does; the table prints
the states per deal.  --generation-order uses the ordering a solve from the deal uses instead of
near-first (BitboardSolver.near_first), to compare the two.
"""

from __future__ import annotations

import argparse
import random
import time

from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.engine import Engine
from fci_solver.bitboard.search import BitboardSolver
from fci_solver.cards import standard_cards
from fci_solver.position import Deal


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="3,4,5,7,9,10,15,16")
    ap.add_argument("--turns", type=int, default=25, help="first turns sampled per deal")
    ap.add_argument("--cap", type=int, default=2_000_000, help="states per first turn")
    ap.add_argument("--target", type=int, default=1)
    ap.add_argument("--generation-order", action="store_true")
    a = ap.parse_args()
    cards = standard_cards()
    print("| seed | first turns | keep | undecided | states | seconds |\n|---|---|---|---|---|---|")
    total_states = total_secs = 0
    for seed in (int(s) for s in a.seeds.split(",")):
        pos = Deal.random("standard", seed).position(2, False, False)
        eng = Engine(pos.board, cards)
        solver = BitboardSolver(cards)
        solver.near_first = not a.generation_order
        kids = sorted(eng.next_states(key_of(pos)))
        random.Random(1).shuffle(kids)
        keep = undecided = 0
        t = time.perf_counter()
        for ch in kids[:a.turns]:
            if eng.lower_bound(ch) > a.target:
                continue
            v = solver.value(eng, ch, a.target + 1, None, a.cap)
            keep += v is not None and v <= a.target
            undecided += v is None
        secs = time.perf_counter() - t
        total_states += solver.states
        total_secs += secs
        print(f"| {seed} | {min(a.turns, len(kids))} | {keep} | {undecided} | {solver.states:,} | {secs:.1f} |", flush=True)
    print(f"| all | | | | {total_states:,} | {total_secs:.1f} |")


if __name__ == "__main__":
    main()
