"""The sound lower bound on the stacks left, as readable Python (the kernels compute the same).

The set of top cards only ever shrinks (a predator keeps its top card), so a stack whose top
has no other top 1-3 above it can never be eaten normally: see :func:`lower_bound` for the
escapes (the Shark, discards) and the refinement for stacks that can never meet, and RULES.md
for why it is sound.
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


def _prey(c: int, tops: set[int], shark: bool) -> set[int]:
    """The tops ``c`` could eat by value (the Shark eats any lower card)."""
    return {q for q in tops if q < c and (shark or c - q <= 3)}


def self_movers(cards: CardTable) -> set[int]:
    """Cards whose ability moves only their own stack (the Bat, the Wolf)."""
    return {c.value for c in cards if c.ability == "move" and c.who == "self"}


def reach_sets(pos: Position, cards: CardTable, shark: bool, anywhere=(), radius: int = 2):
    """While no ability moves another card's stack (and there is no Whale), where each stack may
    yet stand.  Returns (S, N, F).

    A stack then moves only onto what it eats, so the cells it may stand on are those of the
    cards in ``S[c]``: its own, and those of whatever it may yet eat, transitively.  ``c`` may ever
    eat ``q`` only if some cell of ``S[c]`` is within distance 2 of some cell of ``S[q]`` (no eat
    reaches farther): ``N[c]`` is every card within distance 2 of ``S[c]``'s cells.  A card whose
    ability moves its own stack (Bat, Wolf) and that may ever eat is taken to go anywhere, and so
    is whatever may eat a stack that goes anywhere: the cards ``F``, which may meet any card.  The
    sets grow together until nothing changes (the least fixpoint: any order of growth gives the
    same sets).  ``anywhere`` adds cards to ``F`` from the start (an analysis of a mover uses it);
    ``radius`` is the farthest an eat may reach (2; an analysis of when it is 1 uses it).
    """
    cell = {s.card: s.cell for s in pos.stacks}
    tops = set(cell)
    own = self_movers(cards)
    near = {a: {b for b in tops if rules.distance(cell[a], cell[b]) <= radius} for a in tops}
    S = {c: {c} for c in tops}
    N = {c: set(near[c]) for c in tops}
    F: set[int] = set(anywhere)
    changed = True
    while changed:
        changed = False
        for e in tops:
            for q in _prey(e, tops, shark):
                if not meets(e, q, S, N, F):
                    continue
                if not S[q] <= S[e]:
                    S[e] |= S[q]
                    for j in S[q]:
                        N[e] |= near[j]
                    changed = True
                if e not in F and (q in F or e in own):
                    F.add(e)
                    changed = True
    return S, N, F


def meets(a: int, b: int, S, N, F) -> bool:
    """Whether the stacks of ``a`` and ``b`` may ever come within distance 2 (see reach_sets)."""
    return a in F or b in F or bool(N[a] & S[b])


def _far_prey(pos: Position, radius: int = 2) -> bool:
    """Whether some top has cards above it that could eat it by value but none within ``radius``."""
    cell = {s.card: s.cell for s in pos.stacks}
    eaters = _plain_eaters(set(cell))
    return any(eaters[t] and not any(rules.distance(cell[t], cell[e]) <= radius for e in eaters[t]) for t in cell)


def still_eaters(pos: Position, cards: CardTable, shark: bool, radius: int = 2) -> dict[int, set[int]] | None:
    """When no ability can ever move another card's stack: for each top, the tops that may ever
    eat it normally; None when some card whose ability moves or swaps any stack may still eat (so
    may act).

    Also None when every top that something could eat by value has such an eater within
    distance 2 already: the reach sets then seldom change the bound, and they cost more than the
    rest of it (the engines compute them only when this test passes).  ``radius``: the farthest
    an eat may reach, as in :func:`reach_sets`.
    """
    if not _far_prey(pos, radius):
        return None
    S, N, F = reach_sets(pos, cards, shark, radius=radius)
    tops = set(S)
    for m in (mover_cards(cards) - self_movers(cards)) & tops:
        if any(meets(m, q, S, N, F) for q in _prey(m, tops, shark)):
            return None
    return {t: {e for e in tops if 1 <= e - t <= 3 and meets(e, t, S, N, F)} for t in tops}


DISCARD_DEPTH = 3  # discard choices searched exactly; beyond, each discard is assumed to remove a stuck top


def islands(pos: Position) -> list[list]:
    """Groups of stacks linked by chains of stacks at most 2 apart (Manhattan distance): while no
    ability moves a stack, stacks of different islands never meet (the reach sets are finer)."""
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


def _plain_eaters(tops: set[int]) -> dict[int, set[int]]:
    return {t: {t + 1, t + 2, t + 3} & tops for t in tops}


def _stuck(tops: set[int], eaters: dict[int, set[int]]) -> set[int]:
    """Tops that no top can eat, ``eaters[t]`` being the cards that may ever eat t."""
    return {t for t in tops if not eaters[t] & tops}


def _fewest_stuck(tops: set[int], unstacked: set[int], discards: int, eaters: dict[int, set[int]],
                  below: int = 16, depth: int = 0) -> int:
    """The fewest stuck tops left after discarding at most ``discards`` unstacked tops.

    Discarding a top that some top can eat never helps (it would be eaten anyway, and it may be
    someone's eater), so only stuck tops are discarded, highest first.  A discarded top never
    ate (it would be stacked), so it eats nothing: tops it could have eaten may become stuck.
    """
    stuck = _stuck(tops, eaters)
    if depth == DISCARD_DEPTH:
        return len(stuck - unstacked) + max(0, len(stuck & unstacked) - discards)
    best = len(stuck)
    if discards:
        for u in stuck & unstacked:
            if u < below:
                best = min(best, _fewest_stuck(tops - {u}, unstacked, discards - 1, eaters, u, depth + 1))
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

    Stacks that can never meet: no eat reaches farther than Manhattan
    distance 2, and an eat leaves the merged stack on one of the two cells,
    so as long as no ability moves a stack (and there is no Whale) a stack
    only ever moves onto a stack it eats.  Where each stack may yet stand
    follows (:func:`reach_sets`), and so which tops may ever come within reach
    of each other.  An ability acts only after its own card has eaten, so
    when no card with a move or swap ability may ever reach something it can
    eat, no ability will ever act, and a top is also stuck when no card that
    may reach it can eat it.
    """
    tops = {s.card for s in pos.stacks}
    unstacked = {s.card for s in pos.stacks if not s.stacked}
    discards = 1 if pos.pending == "raccoon" else 0
    for c in discard_sources(cards):
        if c in tops:
            discards += sum(1 for d in (1, 2, 3) if c - d in tops) + (1 if pos.shark else 0)
    n = _fewest_stuck(tops, unstacked, discards, _plain_eaters(tops))
    if n < len(tops) and not pos.whale:
        eaters = still_eaters(pos, cards, pos.shark)
        if eaters is not None:
            n = _fewest_stuck(tops, unstacked, discards, eaters)
    if pos.shark and len(tops) >= 2:
        n -= 1
    return max(1, n)
