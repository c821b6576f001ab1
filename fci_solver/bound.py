"""The sound lower bound on the stacks left, as readable Python (the kernels compute the same).

The set of top cards only ever shrinks (a predator keeps its top card), so a stack whose top
has no other top 1-3 above it can never be eaten normally: see :func:`lower_bound` for the
escapes (the Shark, discards) and the islands refinement, and RULES.md for why it is sound.
"""

from __future__ import annotations

from .cards import CardTable
from .position import Position
from . import rules


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
