"""Puzzles of a chosen difficulty: local search over deals, every candidate graded exactly.

Random deals are mostly easy, so the generator climbs: from a random deal it draws a few small
changes (swap the cards of two cells, or on a layout with fewer than 16 cells put an unused card
in one), grades the most promising of them, and keeps the change when the score moves toward the
requested tier.  "Most promising" is judged by the number of first turns, which costs a
millisecond where a grade costs a second: the hard deals are those with few.  After a run of
changes that do not help it starts again from a fresh deal; after finding a puzzle it goes on
from it, since deals of a tier lie near each other.  Everything draws from one
``random.Random(seed)``, so the same seed gives the same puzzles.

With ``jobs`` > 1 the climb grades ahead: while it grades one candidate, another thread grades the
candidate it will try next if this one is rejected (the kernels release the GIL).  A grade depends
only on the deal, so a guess that comes true is used as is and a wrong one costs only the spare
core: the puzzles are the same for every ``jobs``.
"""

from __future__ import annotations

import math
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from math import comb, factorial

from . import interrupt
from .cards import CardTable
from .errors import FciError
from .grade import Band, Grade, difficulty_band, grade
from .layouts import Layout, load_layout
from .text import plural
from .position import DEFAULT_MARGIN, N_CARDS, Deal
from .bitboard.codec import key_of
from .bitboard.engine import Engine

STALL = 12  # changes without progress before a restart
PROPOSALS = 6  # deals drawn per step, of which the climb grades the most promising
SPREAD = 6  # cells in which any two puzzles of a run differ, by default
FEWEST = 32  # first turns a deal needs before the climb upwards considers it

# Search states for a grade's minima (a deal whose minimum is not proven within them is skipped;
# the effort line is bounded by its own cap).
GRADE_STATES = 500_000


class Stopped(interrupt.Interrupted):
    """Ctrl-C stopped the search: ``puzzles`` are the ones found by then, each proven to be in the
    band (with the grade that proved it, even where a full grade was asked for)."""

    def __init__(self, puzzles: list):
        super().__init__()
        self.puzzles = puzzles


@dataclass(frozen=True)
class Puzzle:
    deal: Deal
    grade: Grade
    candidates: int  # deals graded to find this one


def distance(score: float | None, band: Band) -> float:
    """How far an effort is from the band, in doublings (0 inside it; infinite when there is no score)."""
    if score is None:
        return math.inf
    if score < band.lo:
        return math.log2((band.lo + 1) / (score + 1))
    return math.log2((score + 1) / band.hi) if score >= band.hi else 0.0


def _guide(g: Grade, band: Band) -> float:
    """The climb's measure of how far a graded deal is from the band.

    Exact when the grade has its effort; when the effort is only bounded (a decision needs more
    than the cap) it uses the proven lower bound (only to steer the search: the band of a puzzle
    is always proven).
    """
    if band.holds(g):
        return 0.0
    if g.score is not None:
        return distance(g.score, band)
    est = g.details.get("estimate")
    return math.inf if est is None else max(distance(est, band), 1e-3)


def _direction(g: Grade, band: Band) -> int:
    """+1 when the climb should raise the effort of ``g``'s deal, -1 to lower it, 0 when unknown."""
    value = g.score if g.score is not None else g.details.get("estimate")
    if value is None:
        return 0
    return 1 if value < band.lo else (-1 if value >= band.hi else 0)


def _apart(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """Cells whose cards differ between two deals."""
    return sum(x != y for x, y in zip(a, b))


def _neighbour(cards: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    c = list(cards)
    unused = sorted(set(range(N_CARDS)) - set(c))
    if unused and rng.random() < 0.3:
        c[rng.randrange(len(c))] = rng.choice(unused)
    else:
        i, j = rng.sample(range(len(c)), 2)
        c[i], c[j] = c[j], c[i]
    return tuple(c)


def generate(layout: str | Layout, difficulty: str, count: int, seed: int, cards: CardTable,
             shark: bool = False, whale: bool = False, target: int = 1, margin: int = DEFAULT_MARGIN,
             max_candidates: int = 2000, grade_states: int | None = GRADE_STATES, progress=None,
             jobs: int = 1, full_grade: bool = False, spread: int | None = None,
             time_limit: float | None = None) -> list[Puzzle]:
    """``count`` distinct deals of the tier ``difficulty`` (see :mod:`.grade`), reproducible from ``seed``.

    ``difficulty`` is a tier name or a band of effort of the designer's own, ``"50-200"``.

    ``grade_states`` bounds each grade in search states (a deal not settled within it is skipped;
    states, not seconds, so the same seed gives the same puzzles on any machine);
    ``max_candidates`` bounds the whole run; ``jobs`` threads grade (the result does not depend on
    it).  Any two puzzles differ in at least ``spread`` cells (the climb goes on from each puzzle
    it finds, so with 1 they are often a swap apart; default :data:`SPREAD`, or every cell of a
    smaller layout).  Each puzzle comes with the grade that
    proved its tier: the facts the tier rests on (the effort line, capped where the tier is
    fixed: a bound that fixes it is a proof); ``full_grade`` grades each puzzle again for every
    fact of :func:`.grade` (the minima with other sea animals, the decision profile and its bits,
    the exact count cost far more than the tier).  ``time_limit`` (seconds) ends the search for more puzzles between two grades; the
    puzzles found before it are the ones a run without it finds first.  Raises :class:`FciError`
    when the tier is not reached within ``max_candidates`` or ``time_limit``.
    """
    band = difficulty_band(difficulty)
    layout = load_layout(layout)
    n = len(layout)
    if n < 2:
        raise FciError(f"layout {layout.name!r} has {n} cell; a puzzle needs at least 2")
    spread = min(SPREAD, n) if spread is None else spread
    if not 1 <= spread <= n:
        raise FciError(f"--spread must be between 1 and the {n} cells of layout {layout.name!r}, got {spread}")
    setup = _Setup(layout, cards, margin, shark, whale, target, grade_states)
    climb = _Climb(setup, band, count, seed, max_candidates, spread, time_limit, progress, jobs)
    try:
        found = climb.run()
        if not full_grade:
            return found  # each with the grade that proved its tier
        return climb.full_grades(found)
    except interrupt.Interrupted:
        if climb.found:
            raise Stopped(list(climb.found)) from None
        raise
    finally:
        climb.close()


@dataclass(frozen=True)
class _Setup:
    """What every candidate of a run shares: the layout, the rules and what a grade is asked."""

    layout: Layout
    cards: CardTable
    margin: int
    shark: bool
    whale: bool
    target: int
    grade_states: int | None

    def position(self, c: tuple[int, ...]):
        return Deal(self.layout, c).position(self.margin, self.shark, self.whale)


class _Climb:
    """One run of the generator: the deals graded so far, the puzzles found, the grades started on
    a guess.  Everything random draws from ``rng``, so a seed fixes the run."""

    def __init__(self, setup: _Setup, band: Band, count: int, seed: int, max_candidates: int, spread: int,
                 time_limit: float | None, progress, jobs: int):
        self.setup, self.band, self.count, self.spread, self.progress = setup, band, count, spread, progress
        self.max_candidates, self.time_limit = max_candidates, time_limit
        n = len(setup.layout)
        self.space = comb(N_CARDS, n) * factorial(n)
        self.rng = random.Random(seed)
        self.seen: dict[tuple[int, ...], Grade] = {}
        self.found: list[Puzzle] = []
        self.tried = 0
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit
        self.jobs = jobs
        self.pool = ThreadPoolExecutor(jobs) if jobs > 1 else None
        self.ahead: dict = {}  # deal -> future of its grade, started on a guess
        self.eng = Engine(Deal(setup.layout, tuple(range(n))).board(setup.margin), setup.cards)
        self.turns: dict[tuple[int, ...], int] = {}

    def close(self) -> None:
        if self.pool is not None:
            interrupt.leave(self.pool, cancel=True)  # the grades started on a guess are not wanted

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.perf_counter() > self.deadline

    def exhausted(self) -> bool:
        """No more deals may be graded: the candidates, the deals there are, or the time ran out."""
        return self.tried >= self.max_candidates or len(self.seen) >= self.space or self.out_of_time()

    def grade_of(self, c: tuple[int, ...]) -> Grade:
        s = self.setup
        # a grade the deadline cuts short is never used: the loop stops before it looks at it
        left = None if self.deadline is None else max(0.01, self.deadline - time.perf_counter())
        return grade(s.position(c), s.cards, s.target, tier_only=True, state_limit=s.grade_states,
                     stop_band=self.band, time_limit=left)

    def first_turns(self, c: tuple[int, ...]) -> int:
        if c not in self.turns:
            self.turns[c] = len(self.eng.next_level(key_of(self.setup.position(c)))[0])
        return self.turns[c]

    def pick(self, options: list, direction: int) -> tuple[int, ...]:
        """The most promising of a few drawn deals, judged by a count that costs a millisecond:
        deals with few first turns are the hard ones (a hard standard deal has 50-110, an easy one
        200-600), so a climb upwards takes the fewest and one downwards the most."""
        unseen = [c for c in options if c not in self.seen] or options
        if direction == 0:
            return unseen[0]
        # but the climb must not sink into deals where hardly anything can eat
        enough = [c for c in unseen if self.first_turns(c) >= FEWEST] or unseen
        return min(enough, key=lambda c: direction * self.first_turns(c))

    def propose(self, base: tuple[int, ...], g: Grade, r: random.Random) -> tuple[int, ...]:
        return self.pick([_neighbour(base, r) for _ in range(PROPOSALS)], _direction(g, self.band))

    def fresh(self) -> tuple[int, ...]:
        n = len(self.setup.layout)
        return self.pick([tuple(self.rng.sample(range(N_CARDS), n)) for _ in range(PROPOSALS)],
                         1 if self.band.lo > 0 else 0)

    def guess(self, base: tuple[int, ...], g: Grade) -> None:
        """Start grading the neighbour of ``base`` that the climb's random stream draws next."""
        if self.pool is None or any(not f.done() for f in self.ahead.values()):
            return
        twin = random.Random()
        twin.setstate(self.rng.getstate())
        c = self.propose(base, g, twin)
        if c not in self.seen and c not in self.ahead:
            self.ahead[c] = self.pool.submit(self.grade_of, c)

    def rate(self, c: tuple[int, ...], base: tuple[int, ...] | None = None, gbase: Grade | None = None) -> Grade:
        """Grade ``c``; ``base`` (graded ``gbase``) is the deal the climb changes next if ``c`` is not kept."""
        if c in self.seen:
            return self.seen[c]
        self.tried += 1
        fut = self.ahead.pop(c, None)
        if base is not None:
            self.guess(base, gbase)
        g = fut.result() if fut is not None else self.grade_of(c)
        self.seen[c] = g
        if self.progress:
            self.progress(self.tried, f"{len(self.found)}/{self.count} found")
        return g

    def run(self) -> list[Puzzle]:
        """Climb until ``count`` puzzles are found; :class:`FciError` when the budget runs out first."""
        cur = g = None
        while len(self.found) < self.count and not self.exhausted():
            if cur is None:
                cur = self.fresh()
                g = self.rate(cur)
            cur, g = self._climb(cur, g)
        if len(self.found) < self.count:
            raise self._shortfall()
        return self.found

    def _climb(self, cur: tuple[int, ...], g: Grade):
        """Climb from ``cur`` (graded ``g``) until it finds a puzzle (returned, to go on from it:
        a deal of the tier is surrounded by deals near it, where a fresh random deal is mostly
        easy) or stalls (``None``: start again from a fresh deal)."""
        band = self.band
        stall = 0
        while stall < STALL and not self.exhausted():
            if band.holds(g) and all(_apart(cur, p.deal.cards) >= self.spread for p in self.found):
                self.found.append(Puzzle(Deal(self.setup.layout, cur), g, self.tried))
                return cur, g
            nxt = self.propose(cur, g, self.rng)
            if nxt in self.seen:
                stall += 1
                continue
            ng = self.rate(nxt, cur, g)
            now, then = _guide(ng, band), _guide(g, band)
            if now <= then:
                cur, g = nxt, ng
            stall = 0 if now < then else stall + 1
        return (None, None) if stall >= STALL else (cur, g)

    def _shortfall(self) -> FciError:
        band, found, count = self.band, self.found, self.count
        where = f"layout {self.setup.layout.name!r}"
        if len(self.seen) >= self.space:
            return FciError(f"{where} has only {plural(len(found), band.name + ' deal')} among all {self.space:,} "
                            f"(every one graded); {count} asked")
        got = f"; found: {'; '.join(str(p.deal) for p in found)}" if found else ""
        proven = [g.score if g.score is not None else g.score_range[0] for g in self.seen.values()
                  if g.score is not None or g.score_range is not None]
        span = f" (the deals graded had effort {min(proven):,.0f} to {max(proven):,.0f})" if proven else ""
        spent = f" in {self.time_limit:g} s" if self.out_of_time() else ""
        limit = "--time-limit" if spent else "--max-candidates"
        return FciError(f"found {len(found)} of {count} {band.name} puzzles ({band.text()}) on {where} after grading "
                        f"{plural(self.tried, 'deal')}{spent}{span}: the band may not occur there within this budget; "
                        f"raise {limit} or ask for another{got}")

    def full_grades(self, found: list[Puzzle]) -> list[Puzzle]:
        """The puzzles graded again for every fact (each keeps the grade that proved its tier if a
        full grade, cut by ``grade_states``, no longer shows it)."""
        s, band, jobs = self.setup, self.band, max(1, self.jobs // len(found))

        def full(p: Puzzle) -> Puzzle:
            g = grade(s.position(p.deal.cards), s.cards, s.target, state_limit=s.grade_states, jobs=jobs)
            return Puzzle(p.deal, g if band.holds(g) else p.grade, p.candidates)

        return list(self.pool.map(full, found)) if self.pool is not None else [full(p) for p in found]
