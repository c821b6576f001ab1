"""The walk of the state DAG (every state from which a target can still be reached) and what a
random player's chance and the line lengths read from it (:func:`.kernels.dag_walk`)."""

from __future__ import annotations

import time

import numpy as np

from .. import interrupt
from ..cards import CardTable
from ..errors import FciError
from ..position import Position
from . import kernels as K, memory
from .codec import key_of
from .engine import Engine
from .search import check_overflow


class DagWalk:
    """The result of :func:`dag_walk`: a table of every state from which the target can be reached."""

    ENTRY_BYTES = 57  # two key words, a tag, the chance's sum and count, lo, hi, best

    def __init__(self, eng: Engine, root, target: int, size: int):
        self.eng, self.root, self.target = eng, root, target
        self.k0, self.k1 = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
        self.tag = np.zeros(size, np.uint8)
        self.s, self.n = np.zeros(size, np.float64), np.zeros(size, np.int64)
        self.lo, self.hi, self.best = np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64)
        self.ctl = np.zeros(4, np.int64)

    @property
    def complete(self) -> bool:
        return self.ctl[1] == 1

    @property
    def states(self) -> int:
        return int(self.ctl[0])

    def entry(self, key):
        """(chance, fewest turns to win, most turns to win, best result) of a full state, or None if pruned."""
        slot = int(K.find_slot(self.k0, self.k1, self.tag, np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2])))
        if slot < 0 or self.tag[slot] == 0:
            return None
        lo, hi = int(self.lo[slot]), int(self.hi[slot])
        return (float(self.s[slot] / self.n[slot]), lo if lo < 99 else None, hi if hi >= 0 else None,
                int(self.best[slot]))

    def best(self, key) -> int:
        """The fewest stacks reachable from a full state: exact when <= target, else a number > target."""
        e = self.entry(key)
        return e[3] if e else max(self.target + 1, self.eng.lower_bound(key))


def dag_table_size(max_states: int) -> int:
    """The entries of :func:`dag_walk`'s table for ``max_states``; an error when the table would
    take more than half of this machine's memory (it is made whole before the walk, and past the
    machine's memory the system kills the process)."""
    size = 1 << max(10, (2 * max_states).bit_length())
    need, have = size * DagWalk.ENTRY_BYTES, memory.machine_bytes()
    if need > have // 2:
        raise FciError(f"--dag-states {max_states:,} needs a table of {need / 2**30:,.1f} GiB, "
                       f"more than half of this machine's memory ({have / 2**30:,.1f} GiB)")
    return size


def dag_walk(pos: Position, cards: CardTable, target: int, max_states: int = 2_000_000, eng: Engine | None = None,
             deadline: float | None = None) -> DagWalk:
    """Walk every state of the game from which ``target`` can still be reached (see
    :func:`.kernels.dag_walk`); a walk stopped by ``deadline`` (a ``time.perf_counter()`` value)
    is not complete."""
    eng = eng or Engine(pos.board, cards)
    root = key_of(pos)
    w = DagWalk(eng, root, target, dag_table_size(max_states))
    if eng.lower_bound(root) > target:
        w.ctl[1] = 1
        return w
    _walk(eng, root, target, max_states, w, None if deadline is None else deadline - time.perf_counter())
    return w


def _walk(eng: Engine, key, target: int, max_states: int, w: DagWalk, seconds: float | None) -> None:
    """One kernel walk from the full state ``key`` into the table ``w`` (cleared by the caller)."""
    ck0, ck1, cmeta = eng.buffers()[:3]
    with interrupt.flag(seconds) as stop:
        K.dag_walk(np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2]), target, max_states, ck0, ck1, cmeta,
                   eng.ab, eng.prey, eng.mid, eng.bydist, eng.dstart, eng.maxd, eng.cmask, eng.cellrc,
                   w.k0, w.k1, w.tag, w.s, w.n, w.lo, w.hi, w.best, w.ctl, stop)
    interrupt.check()


def fewest_stacks(eng: Engine, key, max_states: int, walk: DagWalk | None = None) -> int | None:
    """The fewest stacks any line from the full state ``key`` reaches, or None when its graph has
    more than ``max_states`` states.

    It walks every state below ``key`` with the target at the card count, so no bound ever cuts a
    child: the answer rests on the rules alone, and the tests hold the lower bounds against it.
    ``walk`` (from an earlier call on the same engine, at least as large) saves making the table
    again; it is cleared first.
    """
    if walk is None or walk.k0.shape[0] < dag_table_size(max_states):
        walk = DagWalk(eng, key, K.NCARDS, dag_table_size(max_states))
    walk.tag[:] = 0
    walk.ctl[:] = 0
    _walk(eng, key, K.NCARDS, max_states, walk, None)
    check_overflow(int(walk.ctl[1]))
    if walk.ctl[1] != 1:
        return None
    return int(walk.best[K.find_slot(walk.k0, walk.k1, walk.tag, np.uint64(key[0]), np.uint64(key[1]),
                                     np.int64(key[2]))])


class FewestStacks:
    """:func:`fewest_stacks` in tables of growing ``sizes`` (states), each made when first needed:
    most graphs are small, and each walk clears its whole table."""

    def __init__(self, eng: Engine, sizes):
        self.eng, self.sizes, self.tables = eng, tuple(sizes), {}
        self.states = 0  # the states of the last walk that finished

    def __call__(self, key) -> int | None:
        """The fewest stacks from ``key``, or None past the largest size."""
        for n in self.sizes:
            if n not in self.tables:
                self.tables[n] = DagWalk(self.eng, None, K.NCARDS, dag_table_size(n))
            fewest = fewest_stacks(self.eng, key, n, self.tables[n])
            if fewest is not None:
                self.states = int(self.tables[n].ctl[0])
                return fewest
        return None


def dag_stats(pos: Position, cards: CardTable, target: int, max_nodes: int = 2_000_000):
    """The random player's win chance, shortest and longest winning lines, from one :func:`dag_walk`.

    Returns None when more than ``max_nodes`` states would be needed.  The chance is a float computed
    by exact dynamic programming over the DAG (no sampling).
    """
    w = dag_walk(pos, cards, target, max_states=max_nodes)
    if not w.complete:
        return None
    e = w.entry(w.root) or (0.0, None, None, None)
    return {"random_win_chance": e[0], "states": w.states, "shortest_win": e[1], "longest_win": e[2]}
