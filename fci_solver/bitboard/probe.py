"""A beam beside the exact search: a line down to the lower bound, found by looking wide.

The exact search goes deep first, and on a slow deal most of its states refute its first, wrong
choices.  Most deals end with as few stacks as the bound allows, and a line that gets there proves
the minimum; a beam finds one on those deals with a few thousand positions (benchmarks/RESULTS.md).
A solve gives it turns among its searches' (``BitboardSolver``); where it finds nothing, it proved
nothing, and the searches go on.
"""

from __future__ import annotations

import numpy as np

from . import kernels as K
from .kernels.beam import beam_children, beam_select

_FIRST_CAP = 1 << 16


def beam_buffers(cap: int):
    """Child keys, meta, score, parent, predator and bound buffers for :func:`beam_children`."""
    return (np.zeros(cap, np.uint64), np.zeros(cap, np.uint64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
            np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64))


class Beam:
    """A beam search from ``root`` for a line to ``target`` stacks or fewer.  Where ``target`` is
    a sound lower bound on the result, a position with that many stacks ends the game, and the
    line proves the minimum; above it, the line answers "can it end with ``target`` or fewer?".

    It looks only at lines that leave the Whale unused: a node where the Whale may still move has
    a half-step for every stack and open cell (hundreds), which made a beam cost more than the
    search it was to spare; and without the Whale the bound may use where stacks can still meet.
    Such a line is a line of the game as dealt (the Whale is optional): its keys get the Whale's
    bit back."""

    def __init__(self, eng, root, target: int):
        self.eng = eng
        self.whale = root[2] & 2
        self.root = (root[0], root[1], root[2] & ~2)
        self.target = target
        self.states = 0  # positions expanded
        self.children = 0  # their children generated (what a beam's time goes into)
        self._buf = beam_buffers(_FIRST_CAP)
        self._pos = np.empty(K.NCARDS, np.int64)
        self._stk = np.empty(K.NCARDS, np.int64)
        self._board = np.empty(eng.bydist.shape[0], np.int64)
        self._skip = np.zeros(3, np.int64)

    def line(self, width: int, stopped=lambda: False) -> list | None:
        """Keys from the root's first turn to a position with ``target`` stacks or fewer
        (no after-Whale half-steps: the Whale stays unused), or None; ``stopped`` is asked after
        each level."""
        eng = self.eng
        levels = [(np.array([self.root[0]], np.uint64), np.array([self.root[1]], np.uint64),
                   np.array([self.root[2]], np.int64), np.array([-1], np.int64))]  # keys and parent indices
        while not stopped():
            lk0, lk1, lmeta, _ = levels[-1]
            first, m = 0, 0
            while True:
                ck0, ck1, cmeta, score, parent, grp, clb = self._buf
                first, m, won, made = beam_children(
                    lk0, lk1, lmeta, first, lk0.shape[0], self.target, eng.ab, eng.prey, eng.mid, eng.bydist,
                    eng.dstart, eng.maxd, eng.cmask, eng.cellrc, ck0, ck1, cmeta, score, parent, grp, clb,
                    self._pos, self._stk, self._board, eng._wk, self._skip, m)
                self.children += made
                if won >= 0 or first == lk0.shape[0]:
                    break
                self._grow()
            self.states += first
            if won >= 0:
                return self._dealt(self._path(levels, (int(ck0[won]), int(ck1[won]), int(cmeta[won])), int(parent[won])))
            keep = beam_select(ck0, ck1, cmeta, score, m, width, self.target, eng.cmask, eng.cellrc, eng._wk)
            if keep.shape[0] == 0:
                return None
            levels.append((ck0[keep].copy(), ck1[keep].copy(), cmeta[keep].copy(), parent[keep].copy()))
        return None

    def _grow(self) -> None:
        """Twice the room for a level's children, keeping those already written."""
        old = self._buf
        self._buf = beam_buffers(2 * old[0].shape[0])
        for a, b in zip(old, self._buf):
            b[:a.shape[0]] = a

    @staticmethod
    def _path(levels: list, end, index: int) -> list:
        """The keys from the root's child to ``end``, whose parent is ``levels[-1]``'s ``index``."""
        keys = [end]
        for lk0, lk1, lmeta, parents in reversed(levels[1:]):
            keys.append((int(lk0[index]), int(lk1[index]), int(lmeta[index])))
            index = int(parents[index])
        keys.reverse()
        return keys

    def _dealt(self, keys: list) -> list:
        """The keys as in the game as dealt: the Whale, left unused, still there."""
        return [(k0, k1, meta | self.whale) for k0, k1, meta in keys]
