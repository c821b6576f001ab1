"""The perft suite (tests/perft_suite.txt) at depths CI does not reach.

    python benchmarks/perft_bench.py                  # bitboard engine, depth 3 (1 with the Whale)
    python benchmarks/perft_bench.py --depth 4 --rows gap-none,ring-none
    python benchmarks/perft_bench.py --depth 3 --rows gap-none --reference   # both engines, counts compared
    python benchmarks/perft_bench.py --jobs 2         # one thread adds while the other lists

Each count the suite file lists is checked; deeper counts are printed (and, with --reference,
checked against the reference engine, which takes minutes per row at depth 3).  Times are
wall-clock seconds for perft(d) from scratch, after the kernels are loaded.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fci_solver.bitboard.perft import load_perft_kernels, perft
from fci_solver.cards import standard_cards
from fci_solver.search import perft_levels, perft_suite

SUITE = Path(__file__).resolve().parent.parent / "tests" / "perft_suite.txt"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=3, help="depth for rows without the Whale (with it: 1)")
    ap.add_argument("--rows", default="", help="comma-separated row names (layout-sea); default all")
    ap.add_argument("--reference", action="store_true", help="also count with the reference engine and compare")
    ap.add_argument("--jobs", type=int, default=1, help="threads for the bitboard engine")
    a = ap.parse_args()
    cards = standard_cards()
    wanted = set(a.rows.split(",")) if a.rows else None
    first = True
    bad = 0
    print("| row | depth | count | suite | seconds | states/s | reference |")
    print("|---|---|---|---|---|---|---|")
    for name, pos, counts in perft_suite(SUITE):
        if wanted is not None and name not in wanted:
            continue
        if first:
            load_perft_kernels(pos, cards)
            first = False
        depth = a.depth if not pos.whale else 1
        for d in range(1, depth + 1):
            t0 = time.perf_counter()
            n = perft(pos, d, cards, a.jobs)
            dt = time.perf_counter() - t0
            expected = counts[d - 1] if d <= len(counts) else None
            ref = ""
            if a.reference:
                r = perft_levels(pos, d, cards)[-1]
                ref = f"{r:,}" + ("" if r == n else " DIFFERS")
                bad += r != n
            bad += expected is not None and expected != n
            mark = "-" if expected is None else ("ok" if expected == n else f"DIFFERS ({expected:,})")
            print(f"| {name} | {d} | {n:,} | {mark} | {dt:.3f} | {n / max(dt, 1e-9):,.0f} | {ref} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
