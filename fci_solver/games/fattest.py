"""Survival of the Fattest: turn order, and the exact outcome of foraging at one location.

Foraging: every critter at the location plays some Forage cards; that many
cards (in all) are revealed from the location deck; critters draft them one
card per pick in priority order until each has as many cards as Forage cards
played.  The distribution is exact: it weights every possible revealed
multiset by its multivariate hypergeometric probability, which is the same
as averaging over every order of the deck.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from ..errors import FciError

CRITTERS = ("Ol' Grizz", "Bucky", "Lottie", "Huni & Bunz", "Oakley", "Flit")  # largest first
FOODS = ("Carrot", "Berry", "Fish", "Acorn", "Leaf", "Honey")
WILD, TRAP = "Wild Fruit", "Trap"
TYPES = FOODS + (WILD, TRAP)
DEFAULT_DECK = {**{f: 13 for f in FOODS}, WILD: 12, TRAP: 12}
DEFAULT_WISH = (WILD,) + FOODS
FORAGE_NUMBERS = range(1, 8)  # each critter deck holds one Forage card of each number


def critter(name: str) -> str:
    key = name.strip().lower().replace("'", "").replace("&", "and")
    for c in CRITTERS:
        if c.lower().replace("'", "").replace("&", "and") == key or c.lower().split()[0].strip("'") == key.split()[0]:
            return c
    raise FciError(f"unknown critter {name!r} (one of {', '.join(CRITTERS)})")


def card_type(name: str) -> str:
    key = name.strip().lower()
    for t in TYPES:
        if t.lower() == key or t.lower().split()[0] == key:
            return t
    raise FciError(f"unknown card {name!r} (one of {', '.join(TYPES)})")


def size_rank(name: str) -> int:
    """0 for the largest critter."""
    return CRITTERS.index(name)


def starting_player(hands: dict[str, list[int]]) -> str:
    """Highest Forage card; ties compare the next highest and so on; then the larger critter."""
    if not hands:
        raise FciError("no players")
    for c, values in hands.items():
        bad = [v for v in values if v not in FORAGE_NUMBERS]
        if bad:
            raise FciError(f"{c}'s Forage card {bad[0]} does not exist: a critter's Forage cards are numbered "
                           f"{FORAGE_NUMBERS[0]} to {FORAGE_NUMBERS[-1]}")
        if len(set(values)) != len(values):
            raise FciError(f"{c} holds a Forage number twice: each critter deck has one card of each number")
    return min(hands, key=lambda c: ([-v for v in sorted(hands[c], reverse=True)] + [1], size_rank(c)))


@dataclass(frozen=True)
class Forager:
    critter: str
    forage: int  # Forage cards played
    wish: tuple[str, ...] = DEFAULT_WISH  # non-trap picks in preference order


def priority(foragers: list[Forager]) -> list[Forager]:
    """Ol' Grizz first; then more Forage cards; ties to the larger critter."""
    return sorted(foragers, key=lambda f: (f.critter != CRITTERS[0], -f.forage, size_rank(f.critter)))


def draft(foragers: list[Forager], revealed: Counter) -> dict[str, Counter]:
    """Deterministic draft of a revealed multiset (priority order, one card per pick)."""
    order = priority(foragers)
    left = Counter(revealed)
    got = {f.critter: Counter() for f in order}
    picks = {f.critter: f.forage for f in order}
    took_trap = {f.critter: False for f in order}
    if len(order) == 1:
        got[order[0].critter] = Counter({k: v for k, v in left.items() if v})
        return got
    while any(picks.values()) and sum(left.values()):
        for i, f in enumerate(order):
            if not picks[f.critter] or not sum(left.values()):
                continue
            lower_without_trap = any(picks[g.critter] and not took_trap[g.critter] for g in order[i + 1:])
            # after this pick a lower critter still to pick counts only if it still has picks left
            must_trap = left[TRAP] > 0 and not lower_without_trap
            choice = None
            if not must_trap:
                choice = next((t for t in f.wish if left[t] > 0 and t != TRAP), None)
                if choice is None:
                    choice = next((t for t in TYPES if left[t] > 0 and t != TRAP), None)
            if choice is None:
                choice = TRAP
            left[choice] -= 1
            got[f.critter][choice] += 1
            picks[f.critter] -= 1
            if choice == TRAP:
                took_trap[f.critter] = True
    return got


def forage(foragers: list[Forager], deck: dict[str, int]) -> dict:
    """Exact distribution of what each critter ends with, over every order of the location deck."""
    names = [f.critter for f in foragers]
    if len(set(names)) != len(names):
        raise FciError("a critter appears twice at the location")
    for f in foragers:
        if not 0 <= f.forage <= len(FORAGE_NUMBERS):
            raise FciError(f"{f.critter} plays {f.forage} Forage cards: a critter has {len(FORAGE_NUMBERS)}, so 0 to "
                           f"{len(FORAGE_NUMBERS)}")
    for t, n in deck.items():
        if not 0 <= n <= DEFAULT_DECK[t]:
            raise FciError(f"the location deck holds {n} {t}: the food deck has {DEFAULT_DECK[t]} in all")
    deck = {t: n for t, n in deck.items() if n > 0}
    if not deck:
        raise FciError("the location deck is empty")
    total_cards = sum(deck.values())
    reveal = min(sum(f.forage for f in foragers), total_cards)
    types = list(deck)
    denom = comb(total_cards, reveal)
    dist = {f.critter: Counter() for f in foragers}
    cases = 0
    for ks in _compositions(reveal, [deck[t] for t in types]):
        w = Fraction(1, denom)
        for t, k in zip(types, ks):
            w *= comb(deck[t], k)
        got = draft(foragers, Counter({t: k for t, k in zip(types, ks) if k}))
        for c, g in got.items():
            dist[c][tuple(sorted(g.items()))] += w
        cases += 1
    return {"revealed": reveal, "cases": cases, "distribution": dist}


def _compositions(total, caps):
    if not caps:
        if total == 0:
            yield ()
        return
    for k in range(min(total, caps[0]) + 1):
        for rest in _compositions(total - k, caps[1:]):
            yield (k,) + rest


def expected_counts(dist: Counter) -> dict[str, Fraction]:
    out = Counter()
    for outcome, p in dist.items():
        for t, k in outcome:
            out[t] += p * k
    return {t: out[t] for t in TYPES if out[t]}
