"""The turns of a run of positions as flat arrays: each distinct (position, next position) pair
once, with how many ways to play reach it (the perfect-play graph's listing; the kernel:
:mod:`.kernels.turns`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels as K
from ..errors import FciError


@dataclass(frozen=True)
class Turns:
    """The turns of ``positions`` (rows of uint64 ``[k0, k1, meta]``): one row per distinct
    (position, next position) pair, in position order, then in key order (as sorted tuples):
    ``parent`` the position's index, ``child`` the next position, ``turns`` the ways to play
    that reach it.  ``children`` are the distinct next positions, each once, in the order the
    pairs first list them; ``first`` is each pair's first way to play in the generator's order
    (rows sorted by it list each position's next positions as the engine's turn counts do)."""

    positions: np.ndarray
    parent: np.ndarray
    child: np.ndarray
    turns: np.ndarray
    children: np.ndarray
    first: np.ndarray


class TurnLister:
    """Lists the turns of runs of positions with one engine's kernels and its own buffer."""

    def __init__(self, eng, cap: int = 1 << 18):
        self.eng = eng
        self._alloc(cap)
        self.got = np.zeros(1, np.int64)

    def _alloc(self, cap: int) -> None:
        self.buf = (np.zeros(cap, np.uint64), np.zeros(cap, np.uint64), np.zeros(cap, np.uint64),
                    np.zeros(cap, np.int64))

    def runs(self, positions: np.ndarray, limit: int):
        """:class:`Turns` of consecutive runs of ``positions``, each run ending at the position
        that brings its ways to play to ``limit`` or more."""
        k0 = np.ascontiguousarray(positions[:, 0])
        k1 = np.ascontiguousarray(positions[:, 1])
        meta = positions[:, 2].astype(np.int64)
        n = positions.shape[0]
        i = 0
        e = self.eng
        while i < n:
            j = K.list_turns(k0, k1, meta, i, n, limit, e.ab, e.prey, e.mid, e.bydist, e.dstart, e.maxd, *self.buf,
                             e.work, self.got)
            if j < 0:
                if self.buf[0].shape[0] >= 1 << 26:
                    raise FciError("too many turns from one position for the turn buffer")
                self._alloc(4 * self.buf[0].shape[0])
                continue
            yield _group(positions[i:j], i, self.buf, int(self.got[0]))
            i = j


def _group(positions: np.ndarray, first: int, buf, n: int) -> Turns:
    ck0, ck1, cmeta, cpar = (a[:n] for a in buf)
    # rows come position by position: each position's rows are sorted by next position (stably)
    order = np.empty(n, np.int64)
    K.group_rows(ck0, ck1, cmeta, cpar, n, order, np.empty(n, np.int64))
    par, k0, k1, meta = cpar[order] - first, ck0[order], ck1[order], cmeta[order]
    new = np.ones(n, bool)
    new[1:] = (par[1:] != par[:-1]) | (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1]) | (meta[1:] != meta[:-1])
    starts = np.flatnonzero(new)
    turns = np.diff(np.append(starts, n))
    c0, c1, cm = k0[starts], k1[starts], meta[starts]
    child = np.stack((c0, c1, cm), axis=1)
    # distinct next positions in the order first listed: siblings one after another share
    # subtrees in a search's table
    seen = K.first_seen(c0, c1, cm, c0.shape[0])
    # the sort is stable: a pair's first row in sorted order is its first way to play
    return Turns(positions, par[starts], child, turns, child[seen], order[starts])


def spans(parent: np.ndarray, n: int) -> list[int]:
    """Rows listed position by position (``parent`` non-decreasing, positions ``0..n-1``): the rows
    of position i are ``spans[i]:spans[i + 1]``."""
    return np.searchsorted(parent, np.arange(n + 1)).tolist()
