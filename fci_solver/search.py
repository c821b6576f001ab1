"""Exact search over the reference engine, the shared lower bound, and perft.

The solver finds the **minimum result**: the fewest stacks that can be left
when no turn remains.  It is a depth-first search with memoisation keyed on
the state (cells, top cards, stacked-or-not, sea animals, pending effect),
a fail-hard bound (a subtree is only searched for results below the best
already found), and the sound lower bound :func:`lower_bound`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .actions import Turn
from .cards import CardTable, standard_cards
from .position import Deal, Position, parse_sea
from . import interrupt, rules


class TimeUp(Exception):
    pass


@dataclass
class SolveResult:
    """What a solve proves, with one line that reaches the best result found."""

    start: Position
    min_remaining: int  # the best result found (the minimum when ``exact``)
    lower_bound: int  # proven: no line ends with fewer stacks
    line: list[Turn]
    positions: list[Position]  # after each turn of ``line``
    exact: bool
    states: int
    seconds: float
    engine: str
    extra: dict = field(default_factory=dict)


def discard_sources(cards: CardTable) -> set[int]:
    """Cards whose eats can discard an unstacked animal (their ability, or the raccoon trigger they set)."""
    return {c.value for c in cards if c.ability == "discard" or (c.ability == "pending" and c.effect == "raccoon")}


def mover_cards(cards: CardTable) -> set[int]:
    """Cards whose ability moves or swaps stacks."""
    return {c.value for c in cards if c.ability in ("move", "swap")}


def _can_move(tops: set[int], cards: CardTable, shark: bool) -> bool:
    """Whether a stack may still change cell other than by eating: some mover on top can still eat."""
    return any(m in tops and any(q < m and (shark or m - q <= 3) for q in tops) for m in mover_cards(cards))


def islands(pos: Position) -> list[list]:
    """Groups of stacks linked by chains of stacks at most 2 apart (Manhattan distance)."""
    left = list(pos.stacks)
    groups = []
    while left:
        group = [left.pop(0)]
        for s in group:  # grows while it is walked
            near = [t for t in left if rules.distance(s.cell, t.cell) <= 2]
            for t in near:
                left.remove(t)
            group.extend(near)
        groups.append(group)
    return groups


DISCARD_DEPTH = 3  # discard choices searched exactly; beyond, each discard is assumed to remove a stuck top


def _stuck(tops: set[int], groups: list[set[int]]) -> set[int]:
    """Tops that no top of their own group can eat (an eater is 1-3 higher)."""
    return {t for g in groups for t in g & tops if not any(t + d in g & tops for d in (1, 2, 3))}


def _fewest_stuck(tops: set[int], unstacked: set[int], discards: int, groups: list[set[int]],
                  below: int = 16, depth: int = 0) -> int:
    """The fewest stuck tops left after discarding at most ``discards`` unstacked tops.

    Discarding a top that some top can eat never helps (it would be eaten anyway, and it may be
    someone's eater), so only stuck tops are discarded, highest first.  A discarded top never
    ate (it would be stacked), so it eats nothing: tops it could have eaten may become stuck.
    """
    stuck = _stuck(tops, groups)
    if depth == DISCARD_DEPTH:
        return len(stuck - unstacked) + max(0, len(stuck & unstacked) - discards)
    best = len(stuck)
    if discards:
        for u in stuck & unstacked:
            if u < below:
                best = min(best, _fewest_stuck(tops - {u}, unstacked, discards - 1, groups, u, depth + 1))
    return best


def lower_bound(pos: Position, cards: CardTable) -> int:
    """A number of stacks that must remain whatever is played.

    The set of top cards only shrinks (a predator keeps its top card), so a
    stack whose top t has no other top in t+1..t+3 can never be eaten
    normally ("stuck").  A stuck stack can still leave the map by the one
    Shark eat or, if unstacked, by a discard.  Discards are limited: a Lizard
    discards once per eat and a Raccoon's trigger needs a Raccoon eat first,
    and a card can eat at most as many times as there are tops 1-3 below it
    now, plus one with the Shark; a pending raccoon adds one.  A discarded
    top must never have eaten, so the tops only it could eat are stuck too
    (:func:`_fewest_stuck`).  The Shark's one eat removes at most one more.

    Islands: no eat reaches farther than Manhattan distance 2, and an eat
    leaves the merged stack on one of the two cells, so when nothing can move
    a stack any more (no Whale, and no card with a move or swap ability is on
    top with something it can still eat) the occupied cells only ever become
    fewer.  Stacks then meet only within their island (stacks linked by
    steps of distance <= 2), so a top is also stuck when no top of its own
    island can eat it.
    """
    tops = {s.card for s in pos.stacks}
    unstacked = {s.card for s in pos.stacks if not s.stacked}
    discards = 1 if pos.pending == "raccoon" else 0
    for c in discard_sources(cards):
        if c in tops:
            discards += sum(1 for d in (1, 2, 3) if c - d in tops) + (1 if pos.shark else 0)
    n = _fewest_stuck(tops, unstacked, discards, [tops])
    if n < len(tops) and not pos.whale and not _can_move(tops, cards, pos.shark):
        n = _fewest_stuck(tops, unstacked, discards, [{s.card for s in g} for g in islands(pos)])
    if pos.shark and len(tops) >= 2:
        n -= 1
    return max(1, n)


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
            exact = False
            value, line = self.best if self.best else self.play_out(pos)
            low = max(lower_bound(pos, self.cards), beta - 1)
        seconds = time.perf_counter() - self.t0
        return SolveResult(
            pos, value, low, [t for t, _ in line], [p for _, p in line], exact, self.states, seconds, "reference"
        )

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


ENGINES = ("bitboard", "reference")


def solve(
    pos: Position,
    cards: CardTable | None = None,
    engine: str = "bitboard",
    time_limit: float | None = None,
    memory: int | None = None,
    progress=None,
    stop_at: int = 0,
) -> SolveResult:
    """The minimum result reachable from ``pos``, with a line that reaches it.

    ``engine`` is ``"bitboard"`` (numba, fast) or ``"reference"`` (pure Python).
    With ``time_limit`` (seconds) the answer may be inexact: ``exact`` is then
    False, ``min_remaining`` is the best line found and ``lower_bound`` what
    is proven.  With ``stop_at`` (bitboard engine) the search stops as soon
    as a line ends with at most that many stacks, or it is proven that none
    can: enough to answer "can it be won?", not necessarily exact.
    """
    cards = cards or standard_cards()
    if engine == "reference":
        return ReferenceSolver(cards, time_limit, progress).solve(pos)
    if engine == "bitboard":
        from .bitboard.search import BitboardSolver

        return BitboardSolver(cards, time_limit=time_limit, memory=memory, progress=progress, stop_at=stop_at).solve(pos)
    raise ValueError(f"unknown engine {engine!r}")
