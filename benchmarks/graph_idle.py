"""Where the perfect-play graph's settling threads wait: a build timed second by second.

    python benchmarks/graph_idle.py "1 7 3 11 6 12 15 5 8 0 13 4 14 10 2 9" --max-nodes 3000
    python benchmarks/graph_idle.py "1 7 3 11 6 12 15 5 8 0 13 4 14 10 2 9"   # the whole graph, ~2 min

Runs ``fci graph --optimal DEAL --sea none --json -q --jobs 2`` in this process, with every
search call of the settling threads (``BitboardSolver.values`` and ``known``) and the main
thread's table work (the growth, the next table made ahead) timed.  Prints the wall time, each
thread's seconds in searches, the thread-seconds no search ran (two threads), the seconds in which
fewer than 1.9 threads searched, and the main thread's calls that took more than 0.1 s.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import threading
import time

from fci_solver import optimal
from fci_solver.bitboard.search import BitboardSolver
from fci_solver.cli import main

EVENTS: list = []  # (who, start, end, what)


def timed(owner, name: str, who=None) -> None:
    """Replace ``owner.name`` by a wrapper that records each call's span."""
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            EVENTS.append((who or threading.get_ident(), t, time.perf_counter(), name))

    setattr(owner, name, wrapper)


def report(t0: float, t1: float, threads: int = 2) -> None:
    busy = collections.defaultdict(float)
    per_thread = collections.defaultdict(float)
    for who, a, b, what in EVENTS:
        if isinstance(who, str):
            if b - a > 0.1:
                print(f"main thread: {what} at {a - t0:.1f} s took {b - a:.2f} s")
            continue
        per_thread[who] += b - a
        x = a
        while x < b:  # spread the call over the seconds it spans
            end = min(b, t0 + int(x - t0) + 1)
            busy[int(x - t0)] += end - x
            x = end
    seconds = range(int(t1 - t0) + 1)
    idle = sum(threads - busy[i] for i in seconds)
    print(f"wall {t1 - t0:.1f} s; searching: " + ", ".join(f"{v:.1f} s" for v in per_thread.values()))
    print(f"thread-seconds with no search: {idle:.1f} of {threads * (t1 - t0):.1f}")
    print("seconds with fewer than 1.9 threads searching (second: threads idle): " +
          " ".join(f"{i}:{threads - busy[i]:.1f}" for i in seconds if busy[i] < threads - 0.1))


def run() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("deal")
    ap.add_argument("--max-nodes", type=int, default=10_000_000)
    args = ap.parse_args()
    timed(BitboardSolver, "values")
    timed(BitboardSolver, "known")
    for name in ("grow_half_full", "prepare_growth"):
        timed(BitboardSolver, name, "main")
    timed(optimal._Build, "_expand_all", "main")
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the graph's JSON is not wanted here
            main(["graph", "--optimal", args.deal, "--sea", "none", "--json", "-q", "--jobs", "2",
                  "--max-nodes", str(args.max_nodes)])
    except SystemExit:
        pass  # exit 3 at the cap: the report is still wanted
    report(t0, time.perf_counter())


if __name__ == "__main__":
    run()
