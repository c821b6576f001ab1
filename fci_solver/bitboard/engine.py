"""The fast engine's view of one board and card table: the board's geometry and the cards as
arrays, and the kernels bound to them (a node's children, its next positions, the game end, the
lower bound).  The searches (:mod:`.search`) and every analysis over packed keys start here.
"""

from __future__ import annotations

import copy
from collections import Counter
from functools import lru_cache

import numpy as np

from .. import rules
from ..bound import caiman_sources, discard_sources, far_sources, mover_cards, mover_steps, raccoon_cards, self_movers
from ..cards import EFFECTS, CardTable
from ..errors import FciError
from ..position import Board
from . import kernels as K
from .memory import apart

MAX_CELLS = 127
CHILD_CAP = 1 << 22  # child buffer entries (about 84 MB)


@lru_cache(maxsize=32)
def geometry(board: Board):
    """Arrays describing the board: eat geometry per pending effect, cells by distance."""
    n = board.n_rows * board.n_cols
    if n > MAX_CELLS:
        raise FciError(f"the board has {n} cells; the bitboard engine handles at most {MAX_CELLS} (use a smaller --margin or --engine reference)")
    cells = board.cells
    prey = np.full((8, n, 8), -1, np.int64)
    mid = np.full((8, n, 8), -1, np.int64)
    # the same relation cell to cell: 0 out of reach, else 1 + the cell a lynx jumps over (or 0);
    # then, in columns n and n + 1, the two-word mask of the cells reached without a jump (the
    # game-end test reads a predator's reach as one mask)
    reach = np.zeros((8, n, n + 2), np.int64)
    for code in range(8):
        effect = EFFECTS[code - 1] if code else None
        for i, (r, c) in enumerate(cells):
            for j, (dr, dc) in enumerate(rules.prey_offsets(effect)):
                t = (r + dr, c + dc)
                if t in board:
                    prey[code, i, j] = board.index(t)
                    reach[code, i, board.index(t)] = 1
                    if effect == "lynx":
                        mid[code, i, j] = board.index((r + dr // 2, c + dc // 2))
                        reach[code, i, board.index(t)] = 1 + mid[code, i, j]
    masks = np.zeros((8, n, 2), np.uint64)
    for code, i, j in zip(*np.nonzero(reach[:, :, :n] == 1)):
        masks[code, i, j // 64] |= np.uint64(1) << np.uint64(j % 64)
    reach[:, :, n:] = masks.view(np.int64)
    maxd = board.n_rows + board.n_cols - 2
    bydist = np.zeros((n, n), np.int64)
    dstart = np.zeros((n, maxd + 3), np.int64)
    for i, a in enumerate(cells):
        ds = sorted(range(n), key=lambda j: (rules.distance(a, cells[j]), j))
        bydist[i] = ds
        k = 0
        for d in range(maxd + 3):
            while k < n and rules.distance(a, cells[ds[k]]) < d:
                k += 1
            dstart[i, d] = k
    # per cell: row, column, and the cells within distance 2, then 1, then 3, 4, ... up to what the
    # bound's slack needs (itself included), each as a two-word mask
    radii = (2, 1) + tuple(range(3, 3 + K.MAX_SLACK))
    near = np.zeros((n, 2 * len(radii)), np.uint64)
    for i, a in enumerate(cells):
        for j in range(n):
            d = rules.distance(a, cells[j])
            for w, radius in enumerate(radii):
                if d <= radius:
                    near[i, 2 * w + j // 64] |= np.uint64(1 << (j % 64))
    cellrc = np.concatenate([np.array(cells, np.int64).reshape(n, 2), near.view(np.int64)], axis=1)
    return prey, mid, reach, bydist, dstart, maxd, cellrc


def card_arrays(cards: CardTable):
    """The card table as int arrays: kind, self-only, min, max, count, pending code; and, as bit masks
    for the lower bound, the cards whose eats can discard, the cards that move or swap stacks,
    those of them that move only their own, those whose eat lets the next reach distance 2, the
    discard sources again (the discard search counts their eats again), the Raccoons, and the
    movers of any stack by a bounded step, followed by each card's step (:func:`.mover_steps`) and
    the cards whose eat sets the caiman."""
    kinds = {"none": K.AB_NONE, "move": K.AB_MOVE, "discard": K.AB_DISCARD, "swap": K.AB_SWAP, "pending": K.AB_PENDING}
    ab = np.zeros((6, 16), np.int64)
    for c in cards:
        if c.ability == "move" and c.count > 2:
            raise FciError(f"card {c.value}: the bitboard engine moves at most 2 stacks per ability (use --engine reference)")
        ab[0, c.value] = kinds[c.ability]
        ab[1, c.value] = 1 if c.who == "self" else 0
        ab[2, c.value] = c.min
        ab[3, c.value] = K.BIG if c.max is None else c.max
        ab[4, c.value] = c.count
        ab[5, c.value] = EFFECTS.index(c.effect) + 1 if c.ability == "pending" else 0
    cmask = np.zeros(8 + K.NCARDS, np.int64)
    for v in discard_sources(cards):
        cmask[0] |= 1 << v
        cmask[4] |= 1 << v
    for v in raccoon_cards(cards):
        cmask[5] |= 1 << v
    for v in mover_cards(cards):
        cmask[1] |= 1 << v
    for v in self_movers(cards):
        cmask[2] |= 1 << v
    for v in far_sources(cards):
        cmask[3] |= 1 << v
    for v, step in mover_steps(cards).items():
        cmask[6] |= 1 << v
        cmask[7 + v] = step
    for v in caiman_sources(cards):
        cmask[7 + K.NCARDS] |= 1 << v
    return ab, cmask


class Engine:
    """The kernels bound to one board and card table."""

    def __init__(self, board: Board, cards: CardTable):
        self.board = board
        self.cards = cards
        self.prey, self.mid, self.reach, self.bydist, self.dstart, self.maxd, self.cellrc = geometry(board)
        self.ab, self.cmask = card_arrays(cards)
        self._buf = None
        self._twin = None
        self._wk = apart(K.WORK, np.int64)
        self.work = apart(K.search_work_size(self.bydist.shape[0]), np.int64)  # its bound cache starts empty

    def twin(self) -> "Engine":
        """An engine for the same board and cards with its own buffers (a second search at
        once), the same one each call."""
        if self._twin is None:
            self._twin = self.copy()
        return self._twin

    def copy(self) -> "Engine":
        """A new engine for the same board and cards, its tables shared, its buffers its own."""
        t = copy.copy(self)
        t._buf, t._twin = None, None
        t._wk = apart(K.WORK, np.int64)
        t.work = apart(self.work.shape, np.int64)
        return t

    def calibrated(self) -> "Engine":
        """A copy whose lower bound lets every eat reach distance 2 (it does not count the far
        eats): the bound the difficulty tiers were calibrated with, so that the effort measure
        (search states) stays what it was as the search's own bound improves."""
        t = self.copy()
        t.cmask = self.cmask.copy()
        t.cmask[3] = -1
        t.cmask[4] = 0  # nor are the discards counted again over the tops a discard leaves
        t.cmask[5] = 0  # nor are the Raccoon's triggers counted apart
        t.cmask[6] = 0  # and a mover of any stack that may eat leaves the geometry out, bounded or not
        return t

    def buffers(self, cap: int = CHILD_CAP):
        if self._buf is None or self._buf[0].shape[0] < cap:
            # keys, meta, bound, and the predator of each child (the search's near-first ordering);
            # allocated once per engine: a search call is often only a few thousand states
            self._buf = (np.zeros(cap, np.uint64), np.zeros(cap, np.uint64), np.zeros(cap, np.int64),
                         np.zeros(cap, np.int64), np.zeros(cap, np.int64))
        return self._buf

    def children(self, key) -> list[tuple[int, int, int]]:
        """Children keys of a node (after-Whale half-steps included, marked by the phase bit)."""
        return self.written(self.generate(key))

    def generate(self, key) -> int:
        """How many children :meth:`children` lists, written into :meth:`buffers` only."""
        ck0, ck1, cmeta = self.buffers()[:3]
        cap = ck0.shape[0]
        end = K.gen_children(np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2]), self.ab, self.prey, self.mid,
                             self.bydist, self.dstart, self.maxd, ck0, ck1, cmeta, 0, cap)
        if end > cap:
            raise FciError("too many children for the child buffer")
        return end

    def written(self, n: int) -> list[tuple[int, int, int]]:
        """The ``n`` children written by the last :meth:`generate`, as Python values."""
        ck0, ck1, cmeta = self.buffers()[:3]
        return list(zip(ck0[:n].tolist(), ck1[:n].tolist(), cmeta[:n].tolist()))

    def child(self, j: int) -> tuple[int, int, int]:
        """The ``j``-th child written by the last :meth:`generate`."""
        ck0, ck1, cmeta = self.buffers()[:3]
        return int(ck0[j]), int(ck1[j]), int(cmeta[j])

    def turn_counts(self, key) -> Counter:
        """Full-turn successor key -> how many of the listed turns reach it (after-Whale half-steps expanded)."""
        kids = self.children(key)
        if not any(ch[2] & K.PHASE_BIT for ch in kids):
            return Counter(kids)  # no Whale half-step: one count per listed turn
        out = Counter()
        for ch in kids:
            if ch[2] & K.PHASE_BIT:
                out.update(self.children(ch))
            else:
                out[ch] += 1
        return out

    def next_states(self, key) -> set[tuple[int, int, int]]:
        """Distinct full-turn successor keys."""
        return set(self.sorted_next_states(key))

    def sorted_next_states(self, key) -> list[tuple[int, int, int]]:
        """Distinct full-turn successor keys, sorted."""
        return list(zip(*(a.tolist() for a in self.next_level(key))))

    def next_level(self, key) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct full-turn successors of ``key``, sorted, as the arrays (k0, k1, meta) of a level.

        Listed and sorted in arrays: with the Whale a deal's start has up to 854,053, and a Python
        set of them took a second, two when sorted (a Ctrl-C during a grade waited for it)."""
        level = (np.array([key[0]], np.uint64), np.array([key[1]], np.uint64), np.array([key[2]], np.int64))
        got = np.zeros(1, np.int64)
        # the lister's scratch of its own: the search's (self.work) holds the bound cache
        work = np.empty(2 * K.NCARDS + K.WORK + self.bydist.shape[0], np.int64)
        ck0, ck1, cmeta = self.buffers()[:3]
        while K.level_children(*level, 0, 1, self.ab, self.prey, self.mid, self.bydist, self.dstart, self.maxd,
                               ck0, ck1, cmeta, work, got, 1) != 1:
            # the turns overflow the buffer (a state one turn into a deal lists up to 5.1 million):
            # a larger one for this call only, as the search's must stay within CHILD_CAP
            ck0, ck1, cmeta = (np.empty(2 * ck0.shape[0], t) for t in (np.uint64, np.uint64, np.int64))
            got[0] = 0
        n = int(got[0])
        full = (cmeta[:n] & K.PHASE_BIT) == 0
        k0, k1, meta = ck0[:n][full], ck1[:n][full], cmeta[:n][full]
        order = np.lexsort((meta, k1, k0))
        k0, k1, meta = k0[order], k1[order], meta[order]
        new = np.ones(k0.shape[0], bool)  # a turn's position differs from the one sorted before it
        new[1:] = (k0[1:] != k0[:-1]) | (k1[1:] != k1[:-1]) | (meta[1:] != meta[:-1])
        return k0[new], k1[new], meta[new]

    def levels(self, key, depth: int) -> list[set[tuple[int, int, int]]]:
        """The distinct full-turn states 0, 1, ... ``depth`` turns from ``key``: the states perft
        counts, as sets of keys (for depths whose levels fit in Python sets)."""
        out = [{key}]
        for _ in range(depth):
            out.append(set().union(*(self.next_states(k) for k in out[-1])))
        return out

    def game_over(self, key) -> bool:
        """Whether no turn exists (read from the key when the Whale is spent)."""
        if key[2] & (K.PHASE_BIT | 2):
            return not self.children(key)
        return bool(K.no_turn(np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2]), self.reach, self._wk))

    def lower_bound(self, key) -> int:
        return int(K.lower_bound(np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2]), self.cmask, self.cellrc, self._wk))
