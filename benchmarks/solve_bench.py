"""Solve a seeded batch of deals per configuration and print a markdown table.

    python benchmarks/solve_bench.py --layout standard --sea none --count 200 --time-limit 30
    python benchmarks/solve_bench.py --sea both --count 200 --slice 0   # one move order only
    python benchmarks/solve_bench.py --sea both --count 1000 --jobs 2  # two threads per solve
    python benchmarks/solve_bench.py --ratio 5          # states/s bitboard vs reference, same positions,
                                                        # in solves and in perft(2)

Seeds are 1..count (``fci solve --random --seed N``).  Times are per deal,
after the JIT cache is warm (one warm-up solve first).  A deal that hits the
time limit counts as not decided and its time as the limit.  Both engines count
a state when they generate its turns.
"""

from __future__ import annotations

import argparse
import statistics
import time

from fci_solver.cards import standard_cards
from fci_solver.position import Deal, parse_sea
from fci_solver.search import ReferenceSolver
from fci_solver.bitboard.search import BitboardSolver


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def warm_up(cards):
    """Load the compiled kernels once, so the table measures solving, not JIT loading."""
    from fci_solver.bitboard import kernels as K

    pos = Deal.random("standard", 0).position(2, False, False)
    BitboardSolver(cards, memory=64).solve(pos.replace(stacks=pos.stacks[:3]))
    K.tt_rehash(BitboardSolver._new_table(16), BitboardSolver._new_table(64))  # first used when a table grows


def batch(layout, sea, count, time_limit, memory, slice_=None, jobs=1):
    cards = standard_cards()
    warm_up(cards)
    times, states, decided, results = [], 0, 0, {}
    for seed in range(1, count + 1):
        pos = Deal.random(layout, seed).position(2, *parse_sea(sea))
        solver = BitboardSolver(cards, time_limit=time_limit, memory=memory, jobs=jobs)
        if slice_ is not None:
            solver.slice = slice_
        r = solver.solve(pos)
        times.append(r.seconds)
        states += r.states
        decided += r.exact
        key = r.min_remaining if r.exact else f"<={r.min_remaining}?"
        results[key] = results.get(key, 0) + 1
        print(f"# {layout} {sea} seed {seed}: {r.min_remaining} exact={r.exact} states={r.states} {r.seconds:.4f}s", flush=True)
    total = sum(times)
    return (f"| {layout} | {sea} | {count} | {decided} | {statistics.mean(times):.4f} | {statistics.median(times):.3f} | "
            f"{pct(times, 0.95):.2f} | {max(times):.2f} | {states:,} | {states / total:,.0f} | "
            f"{dict(sorted(results.items(), key=str))} |")


def ratio(count, seconds):
    """States per second of both engines on the same positions (no sea animals, standard deals)."""
    cards = standard_cards()
    warm_up(cards)
    ref_s = ref_t = bb_s = bb_t = 0
    for seed in range(1, count + 1):
        pos = Deal.random("standard", seed).position(2, False, False)
        r = ReferenceSolver(cards, time_limit=seconds).solve(pos)
        ref_s += r.states
        ref_t += r.seconds
        b = BitboardSolver(cards, time_limit=seconds, memory=512).solve(pos)
        bb_s += b.states
        bb_t += b.seconds
    return ref_s / ref_t, bb_s / bb_t


def perft_ratio(seed=7, depth=2):
    """perft(depth) states per second of both engines from one seeded deal (no sea animals): the
    same states by definition (RULES.md, "Perft"), so no question of what each engine counts."""
    from fci_solver.bitboard.perft import load_perft_kernels, perft
    from fci_solver.search import perft_levels

    cards = standard_cards()
    pos = Deal.random("standard", seed).position(2, False, False)
    load_perft_kernels(pos, cards)
    t0 = time.perf_counter()
    n_ref = perft_levels(pos, depth, cards)[-1]
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    n_bb = perft(pos, depth, cards)
    t_bb = time.perf_counter() - t0
    assert n_ref == n_bb
    return n_ref / t_ref, n_bb / t_bb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", default="none")
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--memory", type=int, default=2048)
    ap.add_argument("--slice", type=int, help="states per turn of each move order (0: generation order only; "
                    "default: the solver's)")
    ap.add_argument("--jobs", type=int, default=1, help="threads per solve (Lazy SMP, as fci solve --jobs)")
    ap.add_argument("--ratio", type=int, default=0, help="measure the states/s ratio on this many deals instead")
    a = ap.parse_args()
    if a.ratio:
        t0 = time.perf_counter()
        ref, bb = ratio(a.ratio, 5.0)
        print(f"solve: reference {ref:,.0f} states/s, bitboard {bb:,.0f} states/s, ratio {bb / ref:.0f}x "
              f"({time.perf_counter() - t0:.0f} s)")
        ref, bb = perft_ratio()
        print(f"perft(2), seeded deal 7: reference {ref:,.0f} states/s, bitboard {bb:,.0f} states/s, ratio {bb / ref:.0f}x")
        return
    print("| layout | sea | deals | exact | mean s | median s | p95 s | max s | states | states/s | results |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(batch(a.layout, a.sea, a.count, a.time_limit, a.memory, a.slice, a.jobs))


if __name__ == "__main__":
    main()
