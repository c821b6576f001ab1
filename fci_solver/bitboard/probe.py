"""A beam beside the exact search: a line down to the lower bound, found by looking wide.

The exact search goes deep first, and on a slow deal most of its states refute its first, wrong
choices.  Most deals end with as few stacks as the bound allows, and a line that gets there proves
the minimum; a beam finds one on those deals with a few thousand positions (benchmarks/RESULTS.md).
A solve gives it turns among its searches' (``BitboardSolver``); where it finds nothing, it proved
nothing, and the searches go on.
"""

from __future__ import annotations

import threading

import numpy as np

from . import kernels as K
from .kernels.beam import beam_children, beam_select

_FIRST_CAP = 1 << 16
# A one-thread solve also looks for a line to the bound with a beam, widths growing
# 4x a turn up to the last, each turn when the beam's work is at most BEAM_SHARE of the move
# orders' (so a deal no beam helps costs up to that much more, until the widths run out).  Work is
# counted, not timed, so that a solve always takes the same steps: a search state costs about as
# much as BEAM_CHILDREN_PER_STATE of the children a beam generates (2-10 us against about 200 ns).
# A half, not a quarter: 1,000 standard deals 0.0225 -> 0.0214 s, 200 gap deals 0.062 -> 0.058 s
# (slowest 0.73 -> 0.47 s), 5-12% fewer states on every layout (RESULTS.md); a whole share (1.0)
# was no better.
BEAM_WIDTHS = (16, 64, 256, 1024, 4096)
BEAM_SHARE = 0.5
BEAM_CHILDREN_PER_STATE = 15


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


class Probe:
    """A beam's turns among a search's (see :data:`BEAM_SHARE`): each call, told the states a
    search has spent since the last, runs the next width if the beam's share allows it.  One
    probe serves every run, pass and thread that asks the same question (the same root and
    target), so a wider beam follows a narrower one whoever runs it; ``others()``: the states
    other threads spend on the question meanwhile.

    With ``aside`` (a solve's head start on more than one thread, while the search leaves a core
    idle) the first call starts the widths on a thread of their own, one after another without
    waiting for turns, and later calls collect what it found; :meth:`pause` stops it."""

    def __init__(self, beam: Beam, widths, others=lambda: 0):
        self.beam = beam
        self.widths = list(widths)
        self.others = others
        self.searched = 0  # states the searches it took turns with have spent, this thread's and others' before
        self.aside = False
        self._thread: threading.Thread | None = None
        self._halt = threading.Event()
        self._found: list | None = None  # the aside thread's line, not yet collected
        self._error: BaseException | None = None
        self._told = 0  # the beam's positions already reported

    def rejoin(self, others=lambda: 0) -> "Probe":
        """The probe handed to a new pass: the other threads' states so far stay counted."""
        self.searched += self.others()
        self.others = others
        return self

    @property
    def busy(self) -> bool:
        """Its beam runs aside."""
        return self._thread is not None and self._thread.is_alive()

    def turn(self, searched: int, stopped) -> tuple[int, list | None]:
        """(positions the beam expanded since the last call, the line it found or None);
        ``searched``: the states spent since the last call.  A width that ``stopped`` cut short
        is run again next turn."""
        self.searched += searched
        if self.aside:
            if self._thread is None and self._found is None and self.widths:
                self._start(stopped)
        elif self.widths and self.beam.children <= BEAM_SHARE * BEAM_CHILDREN_PER_STATE * (self.searched + self.others()):
            self._width(stopped)
        if self._error is not None:
            raise self._error
        expanded, self._told = self.beam.states - self._told, self.beam.states
        line = self._found  # read once: the aside thread may write it meanwhile
        if line is not None:
            self._found = None
        return expanded, line

    def pause(self) -> None:
        """Stop the aside thread (within one of its levels) and wait for it."""
        if self._thread is not None:
            self._halt.set()
            self._thread.join()
            self._thread = None
            self._halt.clear()

    def _start(self, stopped) -> None:
        def run() -> None:
            try:
                while self.widths and not halted():
                    if self._width(halted) is not None:
                        return
            except BaseException as e:  # raised in the search's thread at its next turn
                self._error = e

        halted = lambda: self._halt.is_set() or stopped()  # noqa: E731
        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def _width(self, stopped) -> list | None:
        """The next width (it stays next if ``stopped`` cut it short); a line it found is kept
        for :meth:`turn` to give, and returned."""
        line = self.beam.line(self.widths[0], stopped)
        if line is not None or not stopped():
            self.widths.pop(0)
        if line is not None:
            self._found = line
        return line
