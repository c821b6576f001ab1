"""What turning a solve's key path into checked turns costs (``keys_to_line``, the reference engine).

    python benchmarks/line_bench.py --sea none --count 200

Solves seeded standard deals, keeps each solve's key path, then times ``keys_to_line`` on all of
them again (the least of three rounds) and prints the milliseconds per solve beside the mean solve.
"""

from __future__ import annotations

import argparse
import time

import fci_solver.bitboard.search as bs
from fci_solver.cli import make_setup


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", default="none")
    ap.add_argument("--count", type=int, default=200)
    a = ap.parse_args()
    bs.load_search_kernels()
    paths, seconds = [], 0.0
    real = bs.keys_to_line

    def keep(start, keys, cards):
        paths.append((start, list(keys), cards))
        return real(start, keys, cards)

    bs.keys_to_line = keep
    try:
        for seed in range(1, a.count + 1):
            s = make_setup(None, a.layout, None, True, seed, None, 2, a.sea, None, False)
            seconds += bs.BitboardSolver(s.cards).solve(s.start).seconds
    finally:
        bs.keys_to_line = real
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for p in paths:
            real(*p)
        best = min(best, time.perf_counter() - t)
    print(f"{a.layout}, sea {a.sea}, {a.count} deals: keys_to_line {1000 * best / len(paths):.2f} ms a solve; "
          f"mean solve {1000 * seconds / a.count:.1f} ms")


if __name__ == "__main__":
    main()
