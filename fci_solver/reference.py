"""The reference solver: exact search over :mod:`fci_solver.rules`, and perft by enumeration.

The solver finds the **minimum result**: the fewest stacks that can be left when no turn
remains.  It is a depth-first search with memoisation keyed on the state (cells, top cards,
stacked-or-not, sea animals, pending effect), a fail-hard bound (a subtree is only searched for
results below the best already found), and the sound lower bound of :mod:`.bound`.  It is the
rules' executable statement, not the fast engine: :mod:`.bitboard` must agree with it.
"""

from __future__ import annotations

import time
from pathlib import Path

from .actions import Turn
from .bound import lower_bound
from .cards import CardTable, standard_cards
from .position import Deal, Position, parse_sea
from .result import SolveResult, Stopped
from . import interrupt, rules


class TimeUp(Exception):
    pass


class ReferenceSolver:
    """Exact minimum-result search over :mod:`fci_solver.rules`."""

    def __init__(self, cards: CardTable | None = None, time_limit: float | None = None, progress=None):
        self.cards = cards or standard_cards()
        self.time_limit = time_limit
        self.progress = progress
        self.memo: dict = {}
        self.states = 0
        self.best: tuple[int, list] | None = None  # incumbent: (result, [(turn, pos), ...])

    def children(self, pos: Position) -> list[tuple[Turn, Position]]:
        # A position with the Whale has hundreds of thousands of turns: the clock and Ctrl-C are
        # checked while they are listed and sorted, not only between positions.
        out = {}
        for i, (turn, nxt) in enumerate(rules.turns(pos, self.cards), 1):
            out.setdefault(nxt.key(), (turn, nxt))
            if i & 1023 == 0:
                self._tick()
        kids = list(out.values())
        keys = []
        for i, (_, kid) in enumerate(kids, 1):
            keys.append((lower_bound(kid, self.cards), len(kid)))
            if i & 1023 == 0:
                self._tick()
        order = sorted(range(len(kids)), key=keys.__getitem__)
        return [kids[i] for i in order]

    def search(self, pos: Position, beta: int, path: list) -> int:
        """The minimum result if it is < beta (exact), else a lower bound >= beta."""
        key = pos.key()
        hit = self.memo.get(key)
        if hit is not None and (hit[1] or hit[0] >= beta):
            return hit[0]
        lb = lower_bound(pos, self.cards)
        if lb >= beta:
            return lb
        # a state is counted when its turns are generated, as the bitboard engine counts
        self.states += 1
        if self.states & 15 == 0:
            self._tick()
        kids = self.children(pos)
        if not kids:
            value = len(pos)
            self.memo[key] = (value, True, None)
            if self.best is None or value < self.best[0]:
                self.best = (value, list(path))
            return value
        best, best_kid, floor = beta, None, None
        for turn, kid in kids:
            path.append((turn, kid))
            v = self.search(kid, best, path)
            path.pop()
            if v < best:
                best, best_kid = v, (turn, kid)
                if best <= lb:
                    break
            elif floor is None or v < floor:
                floor = v
        if best_kid is not None:
            self.memo[key] = (best, True, best_kid)
            return best
        bound = max(lb, floor if floor is not None else beta)
        self.memo[key] = (bound, False, None)
        return bound

    def _tick(self):
        interrupt.check()
        if self.progress:
            self.progress(self.states, self.best[0] if self.best else None)
        if self.time_limit is not None and time.perf_counter() - self.t0 > self.time_limit:
            raise TimeUp

    def solve(self, pos: Position) -> SolveResult:
        self.t0 = time.perf_counter()
        exact = True
        beta = lower_bound(pos, self.cards) + 1
        try:
            # null-window passes: can the bound be reached? if not, one more stack, ...
            while True:
                value = self.search(pos, beta, [])
                if value < beta:
                    break
                beta = value + 1
            line = self.principal_line(pos)
            low = value
        except TimeUp:
            return self._unfinished(pos, beta, {})
        except interrupt.Interrupted:
            raise Stopped(self._unfinished(pos, beta, {"interrupted": True})) from None
        seconds = time.perf_counter() - self.t0
        return SolveResult(
            pos, value, low, [t for t, _ in line], [p for _, p in line], exact, self.states, seconds, "reference"
        )

    def _unfinished(self, pos: Position, beta: int, extra: dict) -> SolveResult:
        """What a solve stopped early (time limit, Ctrl-C) has: the best line met by then, and
        the bound its last pass proved (every pass below ``beta`` failed)."""
        value, line = self.best if self.best else self.play_out(pos)
        low = max(lower_bound(pos, self.cards), beta - 1)
        return SolveResult(pos, value, low, [t for t, _ in line], [p for _, p in line], value <= low, self.states,
                           time.perf_counter() - self.t0, "reference", extra)

    def play_out(self, pos: Position) -> tuple[int, list]:
        """A real, if poor, complete line: always the first turn (used when time ran out before any end)."""
        line = []
        while True:
            kid = next(rules.turns(pos, self.cards), None)
            if kid is None:
                return len(pos), line
            line.append(kid)
            pos = kid[1]

    def principal_line(self, pos: Position) -> list:
        line = []
        while True:
            entry = self.memo.get(pos.key())
            if entry is None or entry[2] is None:
                return line
            line.append(entry[2])
            pos = entry[2][1]


def perft_suite(path):
    """Read a perft suite file (like ``tests/perft_suite.txt``): one row per line,
    ``layout ; deal ; sea ; margin ; perft(1) perft(2) ...``, ``#`` for comments.
    Yields (name "layout-sea", position, expected counts)."""
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        layout, deal, sea, margin, counts = (x.strip() for x in line.split(";"))
        pos = Deal.parse(layout, deal).position(int(margin), *parse_sea(sea))
        yield f"{layout}-{sea}", pos, [int(c) for c in counts.split()]


def perft_levels(pos: Position, depth: int, cards: CardTable | None = None) -> list[int]:
    """perft(1..depth): distinct states after exactly d turns (RULES.md, "Perft")."""
    cards = cards or standard_cards()
    level = {pos.key(): pos}
    counts = []
    for _ in range(depth):
        nxt = {}
        for p in level.values():
            for key, (_, q) in rules.successors(p, cards).items():
                nxt.setdefault(key, q)
        counts.append(len(nxt))
        level = nxt
    return counts
