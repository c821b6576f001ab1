"""Two versions of the kernels timed against each other in one process, on the settling searches
of the graph of perfect play.

    python benchmarks/settle_ab.py /path/to/tree-a /path/to/tree-b
    python benchmarks/settle_ab.py /tmp/before . --turn 4 --every 12 --rounds 8

Each tree's ``fci_solver`` package is copied into a scratch folder as ``fci_a`` and ``fci_b``
(its own numba cache, compiled on the first round), the next positions of the expert puzzle's
turn ``--turn`` that the graph settles are listed with ``fci_a`` (every ``--every``-th of them),
and each round settles them once with each copy, on one thread, with a fresh table: the order
alternates between rounds.  Prints each copy's seconds and states, and B's time over A's.

Why in one process: on this machine two runs of one build in two processes differ by up to 25%
(the host's load), while rounds in one process differ by a few percent.  One process has a bias
of its own: with one tree on both sides (A/A) the second copy was 2-4% faster, so compare both
orders (A, B and B, A) before believing a gain of that size.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

DEAL = "1 7 3 11 6 12 15 5 8 0 13 4 14 10 2 9"
PACKAGES = ("fci_a", "fci_b")  # the two trees' copies


def copy_package(tree: Path, name: str, into: Path) -> None:
    """``tree/fci_solver`` as package ``name`` in ``into``, without its compiled kernels."""
    shutil.copytree(tree / "fci_solver", into / name,
                    ignore=shutil.ignore_patterns("*.nbi", "*.nbc", "*.pyc", "fci-kernels.sha1"))


def next_positions(pkg: str, turn: int, every: int) -> np.ndarray:
    """The next positions the expert puzzle's graph settles for ``turn`` (every ``every``-th)."""
    optimal = importlib.import_module(pkg + ".optimal")
    cards = importlib.import_module(pkg + ".cards").standard_cards()
    start = importlib.import_module(pkg + ".position").Deal.parse("standard", DEAL).position(2, False, False)
    got = []
    if hasattr(optimal, "load_kernels"):
        # its warm-up builds a small graph of its own, whose turns must not be the ones kept here
        optimal.load_kernels()
    inner = optimal._Build._settle_children

    def keep(self, todo, *rest):  # (answers,) m, turn: trees before 2026-12-07 have no answers
        t = rest[-1]
        if t == turn:
            got.append(todo.copy())
        if t > turn:
            raise optimal.OutOfTime("enough", self.G, {})
        return inner(self, todo, *rest)

    optimal._Build._settle_children = keep
    try:
        optimal.optimal_graph(start, cards, max_nodes=10 ** 7, jobs=1)
    except optimal.Incomplete:
        pass
    finally:
        optimal._Build._settle_children = inner
    return np.concatenate(got)[::every]


def settle_once(pkg: str, keys: np.ndarray) -> tuple[float, int]:
    """Seconds and states to settle ``keys`` (can each still reach 1 stack?) with a fresh table."""
    search = importlib.import_module(pkg + ".bitboard.search")
    cards = importlib.import_module(pkg + ".cards").standard_cards()
    start = importlib.import_module(pkg + ".position").Deal.parse("standard", DEAL).position(2, False, False)
    eng = search.Engine(start.board, cards)
    s = search.BitboardSolver(cards, chunk=2000)
    s.once = False  # as the graph settles
    s.values(eng, keys[:1], 2, floor=1)  # the table made before the clock starts
    t = time.perf_counter()
    s.values(eng, keys, 2, floor=1, known=s.known(eng, keys, 2))
    return time.perf_counter() - t, s.states


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree_a", type=Path)
    ap.add_argument("tree_b", type=Path)
    ap.add_argument("--turn", type=int, default=4)
    ap.add_argument("--every", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=8)
    a = ap.parse_args()
    with copies(a.tree_a, a.tree_b):
        keys = next_positions("fci_a", a.turn, a.every)
        print(f"turn {a.turn} of {DEAL!r}: {len(keys):,} next positions", file=sys.stderr)
        for pkg in PACKAGES:
            settle_once(pkg, keys[:50])  # compiled (or loaded) before any round
        alternate(a.rounds, lambda pkg: settle_once(pkg, keys), a.tree_a, a.tree_b)


@contextmanager
def copies(tree_a: Path, tree_b: Path):
    """The two trees' packages importable as ``fci_a`` and ``fci_b`` (a scratch folder, removed
    after)."""
    scratch = Path(tempfile.mkdtemp(prefix="fci_ab-"))
    try:
        for tree, name in zip((tree_a, tree_b), PACKAGES):
            copy_package(tree.resolve(), name, scratch)
        sys.path.insert(0, str(scratch))
        yield
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def alternate(rounds: int, run, tree_a: Path, tree_b: Path) -> None:
    """``run(pkg)`` (seconds, states) for each package, ``rounds`` times, the order alternating
    between rounds; prints each package's seconds and states, and B's time over A's."""
    runs: dict = {pkg: [] for pkg in PACKAGES}
    states = {}
    for r in range(rounds):
        for pkg in (PACKAGES if r % 2 == 0 else PACKAGES[::-1]):
            sec, states[pkg] = run(pkg)
            runs[pkg].append(sec)
            print(f"round {r + 1}: {pkg} {sec:.3f} s", file=sys.stderr)
    for pkg, name in zip(PACKAGES, (tree_a, tree_b)):
        xs = runs[pkg]
        print(f"{pkg} ({name}): median {statistics.median(xs):.3f} s, min {min(xs):.3f} s, {states[pkg]:,} states")
    print(f"B / A: median {statistics.median(runs['fci_b']) / statistics.median(runs['fci_a']):.3f}, "
          f"min {min(runs['fci_b']) / min(runs['fci_a']):.3f}")


if __name__ == "__main__":
    main()
