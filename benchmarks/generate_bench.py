"""Time `fci generate` over several seeds and print a table row per run.

    python benchmarks/generate_bench.py --difficulty hard --count 5 --seeds 1-4
    python benchmarks/generate_bench.py --difficulty expert --count 1 --seeds 1-4 --layout ring

Each run is the library call behind `fci generate` in this process (the JIT cache warm), timed
from the call to the puzzles; the candidates column is how many deals were graded in all.
Run it alone on the machine: the figures are wall-clock seconds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from fci_solver.cards import standard_cards
from fci_solver.errors import FciError
from fci_solver.generate import generate


def seeds(text: str) -> list[int]:
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--difficulty", required=True)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--seeds", default="1-4")
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    cards = standard_cards()
    generate("six", "easy", 1, seed=0, cards=cards)  # compile outside the timing
    print("| layout | tier | count | seed | seconds | deals graded | share accepted | seconds per puzzle | puzzles |")
    print("|---|---|---|---|---|---|---|---|---|")
    times = []
    for s in seeds(args.seeds):
        t = time.perf_counter()
        try:
            ps = generate(args.layout, args.difficulty, args.count, seed=s, cards=cards, jobs=args.jobs)
            got = ", ".join(f"{p.deal} ({p.candidates})" for p in ps)
            graded = ps[-1].candidates
            share, each = f"{len(ps) / graded:.1%}", f"{(time.perf_counter() - t) / len(ps):.1f}"
        except FciError as e:
            got, graded, share, each = f"error: {e}", "-", "-", "-"
        dt = time.perf_counter() - t
        times.append(dt)
        print(f"| {args.layout} | {args.difficulty} | {args.count} | {s} | {dt:.1f} | {graded} | {share} | {each} | {got} |",
              flush=True)
    print(f"\nmedian {statistics.median(times):.1f} s, max {max(times):.1f} s over {len(times)} seeds")


if __name__ == "__main__":
    main()
