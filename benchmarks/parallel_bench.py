"""One move order, both in turn, and two threads, on the deals that took longest.

    python benchmarks/parallel_bench.py --sea none --seeds 1712,520,944,1413,1600
    python benchmarks/parallel_bench.py --sea none --from-census fci-census.sqlite --slowest 20

Each deal is solved, each time in a fresh solver, by: one thread in generation order only
(``slice = 0``, the solver before both orders took turns), one thread with both orders in turn
(the default), and two threads sharing one table in each way the solver offers
(``BitboardSolver.parallel``: "lazy" runs both threads on the whole tree in different move
orders, "split" gives the root's turns out among them); the minimum must agree.  Prints one
markdown row per deal and the median speed-ups.  Time it on an idle machine: two threads need
both cores.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import time

from fci_solver.bitboard.search import BitboardSolver, load_search_kernels
from fci_solver.cards import standard_cards
from fci_solver.position import Deal, parse_sea

WAYS = ("gen", "turns", "lazy", "split")


def run(pos, cards, way: str):
    s = BitboardSolver(cards, jobs=2 if way in ("lazy", "split") else 1)
    if way == "gen":
        s.slice = 0
    if s.jobs > 1:
        s.parallel = way
    t = time.perf_counter()
    r = s.solve(pos)
    return r, time.perf_counter() - t


def slowest(db: str, layout: str, sea: str, n: int) -> list[int]:
    with sqlite3.connect(db) as con:
        return [row[0] for row in con.execute(
            "select seed from deals where layout = ? and sea = ? order by states desc limit ?", (layout, sea, n))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", default="none")
    ap.add_argument("--seeds", help="comma-separated deal seeds")
    ap.add_argument("--from-census", help="a census database: take its slowest deals of the layout and sea")
    ap.add_argument("--slowest", type=int, default=20)
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")] if a.seeds else slowest(a.from_census, a.layout, a.sea, a.slowest)
    cards = standard_cards()
    load_search_kernels()
    shark, whale = parse_sea(a.sea)
    pairs = [("turns", "gen"), ("lazy", "turns"), ("split", "turns")]
    print("| seed | minimum | " + " | ".join(f"{w} states | {w} s" for w in WAYS) + " | "
          + " | ".join(f"{fast}/{base} x" for fast, base in pairs) + " |")
    print("|---|---|" + "---|---|" * len(WAYS) + "---|" * len(pairs))
    ups = {p: [] for p in pairs}
    for seed in seeds:
        pos = Deal.random(a.layout, seed).position(2, shark, whale)
        res = {w: run(pos, cards, w) for w in WAYS}
        mins = {r.min_remaining for r, _ in res.values()}
        assert len(mins) == 1 and all(r.exact for r, _ in res.values()), (seed, res)
        for fast, base in pairs:
            ups[(fast, base)].append(res[base][1] / res[fast][1])
        cells = " | ".join(f"{r.states:,} | {t:.2f}" for r, t in res.values())
        print(f"| {seed} | {mins.pop()} | {cells} | " + " | ".join(f"{ups[p][-1]:.2f}" for p in pairs) + " |", flush=True)
    for (fast, base), xs in ups.items():
        print(f"\n{fast} against {base}: median speed-up {statistics.median(xs):.2f}x, least {min(xs):.2f}x, "
              f"{sum(x >= 1.6 for x in xs)} of {len(xs)} at 1.6x or more")


if __name__ == "__main__":
    main()
