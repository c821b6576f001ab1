"""Which random deals' perfect-play graphs fit in a node cap (1,000,000 positions by default).

A full build (``fci graph --optimal``) settles every next position of every position in the
graph exactly; on a random deal most of its time goes into proving that next positions cannot
keep the minimum, and no random deal's build finishes in minutes.  This script uses
:func:`fci_solver.optimal.size_at_least` instead: every next position gets a search of at most
``--budget`` states (raised 4x at a time, up to ``--max-budget``, for those left unsettled
when the exploration runs out), and only those shown to keep the minimum are counted and explored.  Each
position counted is in the graph, so the count is a lower bound on its size:

- ``over``: more than the cap counted: the graph does not fit (proven);
- ``fits``: every next position settled and the count within the cap: it is the whole graph;
- ``open``: neither, at this budget (or the time limit ran out).

    python benchmarks/optimal_share.py --count 6 --sea none --time-limit 300
    python benchmarks/optimal_share.py --deal "1 7 3 13 6 12 9 5 10 0 11 4 14 8 15 2" --time-limit 300

One JSON row per deal on stdout, a line per deal and the tally on stderr.
"""

from __future__ import annotations

import json
import sys
import time

import click

from fci_solver.bitboard.search import load_search_kernels
from fci_solver.cli import make_setup
from fci_solver.optimal import size_at_least


@click.command()
@click.option("--layout", default="standard")
@click.option("--sea", default="none")
@click.option("--first", default=1, help="First seed.")
@click.option("--count", default=10, help="Seeds first..first+count-1.")
@click.option("--cap", default=1_000_000, help="Node cap.")
@click.option("--budget", default=200, help="States per next position's search, at first.")
@click.option("--max-budget", default=12_800, help="Raised 4x at a time up to this while positions are unsettled.")
@click.option("--time-limit", default=600.0, help="Seconds per deal.")
@click.option("--margin", default=2)
@click.option("--deal", "deals", multiple=True, help="A deal to measure instead of the seeds (repeatable): a generated puzzle, say.")
def main(layout, sea, first, count, cap, budget, max_budget, time_limit, margin, deals):
    load_search_kernels()
    tally: dict = {}
    runs = [(d, None) for d in deals] or [(None, seed) for seed in range(first, first + count)]
    for deal, seed in runs:
        setup = make_setup(deal, layout, None, seed is not None, seed, None, margin, sea, None, False)
        t0 = time.perf_counter()
        b = size_at_least(setup.start, setup.cards, cap, budget, max_budget, deadline=t0 + time_limit)
        verdict = "over" if b.over_cap else "fits" if b.exact else "open"
        row = {"deal": deal, "seed": seed, "minimum": b.minimum, "verdict": verdict, "positions_at_least": len(b.found),
               "turn": b.turn, "unresolved": b.unresolved, "budget": b.budget, "seconds": round(time.perf_counter() - t0, 1)}
        print(json.dumps(row), flush=True)
        tally[verdict] = tally.get(verdict, 0) + 1
        print(f"{deal or f'seed {seed}'}: {verdict} (at least {len(b.found):,} positions, turn {b.turn}, "
              f"{row['seconds']} s)", file=sys.stderr, flush=True)
    print(" ".join(f"{k} {v}" for k, v in sorted(tally.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
