"""Puzzles of a chosen difficulty: local search over deals, every candidate graded exactly.

Random deals are mostly easy, so the generator climbs: from a random deal it tries a small change
(swap the cards of two cells, or on a layout with fewer than 16 cells put an unused card in one),
grades the result, and keeps the change when the score moves toward the requested tier.  After a
run of changes that do not help it starts again from a fresh random deal.  Everything draws from
one ``random.Random(seed)``, so the same seed gives the same puzzles.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from math import comb, factorial

from .cards import CardTable
from .errors import FciError
from .grade import TIERS, Grade, grade, tier_band, tier_index
from .layouts import Layout, load_layout
from .position import DEFAULT_MARGIN, N_CARDS, Deal

STALL = 12  # changes without progress before a restart


@dataclass(frozen=True)
class Puzzle:
    deal: Deal
    grade: Grade
    candidates: int  # deals graded to find this one


def distance(score: float | None, tier: int) -> float:
    """How far a score is from the tier's band (0 inside it; infinite when there is no score)."""
    if score is None:
        return math.inf
    lo, hi = tier_band(tier)
    return lo - score if score < lo else (score - hi if score >= hi else 0.0)


def _guide(g: Grade, tier: int) -> float:
    """The climb's measure of how far a graded deal is from the tier.

    Exact when the grade has a score; when the grade stopped early it uses the share of good
    first turns among those settled (only to steer the search: the tier of a puzzle is always
    the proven one).
    """
    if g.tier == TIERS[tier]:
        return 0.0
    if g.score is not None:
        return distance(g.score, tier)
    est = g.details.get("estimate")
    return math.inf if est is None else max(distance(est, tier), 1e-3)


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
             max_candidates: int = 2000, grade_states: int | None = 5_000_000, progress=None) -> list[Puzzle]:
    """``count`` distinct deals of the tier ``difficulty`` (see :mod:`.grade`), reproducible from ``seed``.

    ``grade_states`` bounds each grade in search states (a deal not settled within it is skipped;
    states, not seconds, so the same seed gives the same puzzles on any machine);
    ``max_candidates`` bounds the whole run.  Raises :class:`FciError` when the tier cannot be
    reached.
    """
    want = tier_index(difficulty)
    layout = load_layout(layout)
    n = len(layout)
    if n < 2:
        raise FciError(f"layout {layout.name!r} has {n} cell; a puzzle needs at least 2")
    space = comb(N_CARDS, n) * factorial(n)
    rng = random.Random(seed)
    seen: dict[tuple[int, ...], Grade] = {}
    found: list[Puzzle] = []
    tried = 0

    def rate(c: tuple[int, ...]) -> Grade:
        nonlocal tried
        if c in seen:
            return seen[c]
        tried += 1
        pos = Deal(layout, c).position(margin, shark, whale)
        g = grade(pos, cards, target, tier_only=True, state_limit=grade_states, stop_tier=difficulty)
        seen[c] = g
        if progress:
            progress(tried, f"{len(found)}/{count} found")
        return g

    def fresh() -> tuple[int, ...]:
        return tuple(rng.sample(range(N_CARDS), n))

    while len(found) < count:
        if tried >= max_candidates or len(seen) >= space:
            break
        cur = fresh()
        g = rate(cur)
        stall = 0
        while stall < STALL and tried < max_candidates and len(seen) < space:
            if g.tier == TIERS[want] and cur not in {p.deal.cards for p in found}:
                found.append(Puzzle(Deal(layout, cur), g, tried))
                break
            nxt = _neighbour(cur, rng)
            if nxt in seen:
                stall += 1
                continue
            ng = rate(nxt)
            now, then = _guide(ng, want), _guide(g, want)
            if now <= then:
                cur, g = nxt, ng
            stall = 0 if now < then else stall + 1
    if len(found) < count:
        where = f"layout {layout.name!r}"
        if len(seen) >= space:
            raise FciError(f"{where} has only {len(found)} {difficulty} deal(s) among all {space} "
                           f"(every one graded); {count} asked")
        got = f"; found: {'; '.join(str(p.deal) for p in found)}" if found else ""
        raise FciError(f"found {len(found)} of {count} {difficulty} puzzles on {where} after grading {tried} deals "
                       f"(raise --max-candidates, or ask for another tier){got}")
    # the puzzles are served with their full grade (every fact, not just the tier's)
    out = []
    for p in found:
        full = grade(p.deal.position(margin, shark, whale), cards, target, state_limit=grade_states)
        out.append(Puzzle(p.deal, full if full.tier == p.grade.tier else p.grade, p.candidates))
    return out
