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


def mover_steps(cards: CardTable) -> dict[int, int]:
    """For each card whose ability moves any stack a bounded number of cells (the Ant, Spider,
    Mouse and Rat): how far one eat's ability can shift stacks in all (the Spider: two stacks one
    cell each)."""
    return {c.value: c.max * c.count for c in cards if c.ability == "move" and c.who != "self" and c.max is not None}


def caiman_sources(cards: CardTable) -> set[int]:
    """Cards whose eat sets the caiman (the Gator): the next eat leaves the eater in place."""
    return {c.value for c in cards if c.ability == "pending" and c.effect == "caiman"}


MAX_SLACK = 3  # the most that those moves may shift stacks in all for the geometry to be worked out


FAR_EFFECTS = ("fox", "lynx", "tiger")  # the pending effects under which the next eat reaches distance 2


def far_sources(cards: CardTable) -> set[int]:
    """Cards whose eat sets a far effect (the Fox, the Lynx, the Tiger)."""
    return {c.value for c in cards if c.ability == "pending" and c.effect in FAR_EFFECTS}


class Reach:
    """While no ability moves another card's stack (and there is no Whale), where each stack may
    yet stand, and so which tops may ever meet (:meth:`meets`).

    A stack then moves only onto what it eats, so the cells it may stand on are those of the
    cards in ``S[c]``: its own, and those of whatever it may yet eat, transitively.  A normal eat
    is between orthogonal neighbours; only the eat right after a Fox, Lynx or Tiger eat (a *far
    eat*) reaches distance 2.  So the sets come in layers: layer k holds where each stack may stand
    once at most k far eats have been made, and ``c`` may eat ``q`` in layer k if some cell of
    ``S[c]`` is next to some cell of ``S[q]``, or if, in layer k - 1, they are within distance 2.
    A card whose ability moves its own stack (Bat, Wolf) and that may ever eat is taken to go
    anywhere, and so is whatever may eat a stack that goes anywhere: the cards ``F``, which may
    meet any card.  Each layer grows from the one below until nothing changes.

    How many far eats can there be?  One for a far effect pending now, and one after each eat of a
    Fox, Lynx or Tiger, and each of those eats takes a different top that the card may meet.  The
    layers are built up until that count, read from the top layer, is no more than the layers
    (or a layer adds nothing): no game makes more far eats than that, so the top layer holds
    every meeting any game can make.  ``anywhere`` adds cards to ``F`` from the start (an analysis
    of a mover uses it).

    ``slack``: how far abilities that move other stacks by a bounded step (:func:`mover_steps`)
    may shift stacks in all.  Each such move shifts one stack, so two stacks that meet stand at
    most ``slack`` further apart than they would without those moves: "next to" is read as
    within 1 + ``slack``, and a far eat's reach as 2 + ``slack``.  ``shares``: a mover's part of
    the slack, left out where its own cell meets (:func:`still_eaters`).
    """

    def __init__(self, pos: Position, cards: CardTable, shark: bool, anywhere=(), slack: int = 0,
                 shares: dict[int, int] | None = None):
        cell = {s.card: s.cell for s in pos.stacks}
        self.tops, self.shark, self.own = set(cell), shark, self_movers(cards)
        shares = shares or {}

        def near(a, b, reach):
            # a mover's own cell meets nothing shifted by that mover (see still_eaters); a cell is
            # always near itself
            return a == b or rules.distance(cell[a], cell[b]) <= reach + slack - shares.get(a, 0) - shares.get(b, 0)

        self.near1 = {a: {b for b in cell if near(a, b, 1)} for a in cell}
        self.near2 = {a: {b for b in cell if near(a, b, 2)} for a in cell}
        self.S = {c: {c} for c in cell}
        self.F: set[int] = set(anywhere)
        self.below_S = {c: set() for c in cell}  # the layer below: S, and the cards within 2 of it
        self.below_N = {c: set() for c in cell}
        self._grow()
        pending = 1 if pos.pending in FAR_EFFECTS else 0
        sources = far_sources(cards) & self.tops
        self.layers = 0
        while self.layers < pending + self._source_eats(sources) and self._next_layer():
            pass

    def meets(self, a: int, b: int) -> bool:
        """Whether ``a`` may ever come within reach to eat ``b`` (or ``b`` to eat ``a``)."""
        if a in self.F or b in self.F:
            return True
        if any(self.near1[j] & self.S[b] for j in self.S[a]):
            return True
        return bool(self.below_N[a] & self.below_S[b])

    def _source_eats(self, sources) -> int:
        return sum(1 for c in sources for q in _prey(c, self.tops, self.shark) if self.meets(c, q))

    def _next_layer(self) -> bool:
        """Add a layer (one far eat more); whether it changed anything."""
        self.below_S = {c: set(s) for c, s in self.S.items()}
        self.below_N = {c: set().union(*(self.near2[j] for j in s)) for c, s in self.S.items()}
        self.layers += 1
        return self._grow()

    def _grow(self) -> bool:
        """Grow this layer's sets until nothing changes (the least fixpoint: any order of growth
        gives the same sets); whether they grew."""
        grew, changed = False, True
        while changed:
            changed = False
            for e in self.tops:
                for q in _prey(e, self.tops, self.shark):
                    if not self.meets(e, q):
                        continue
                    if not self.S[q] <= self.S[e]:
                        self.S[e] |= self.S[q]
                        changed = True
                    if e not in self.F and (q in self.F or e in self.own):
                        self.F.add(e)
                        changed = True
            grew |= changed
        return grew


def _far_prey(pos: Position, radius: int = 2) -> bool:
    """Whether some top has cards above it that could eat it by value but none within ``radius``."""
    cell = {s.card: s.cell for s in pos.stacks}
    eaters = _plain_eaters(set(cell))
    return any(eaters[t] and not any(rules.distance(cell[t], cell[e]) <= radius for e in eaters[t]) for t in cell)


def still_eaters(pos: Position, cards: CardTable, shark: bool) -> dict[int, set[int]] | None:
    """When no ability can ever move another card's stack but by a bounded step: for each top, the
    tops that may ever eat it normally; None when some card whose ability swaps stacks or moves any
    stack anywhere may still eat (so may act), or when the bounded steps may add up to more than
    :data:`MAX_SLACK`.

    Which movers of a bounded step may ever eat is found by growing their set: those that may meet
    their prey with no stack shifted, then those that may with the shifts the ones found so far can
    make (:func:`_shares`), until no more may.  A mover outside the set never eats: before the first
    eat of one, only movers in the set have acted, and their shifts are within the slack.

    A mover's own cell meets with none of that mover's shifts: a stack stands for the top whose
    cell it took (an eat takes the prey's), so the one standing for a mover's cell is the mover's
    own stack before it has eaten, or a stack that ate it there (and buried it for good: only
    unstacked animals are discarded).  Either way the mover has not acted yet, for it acts only
    after an eat, which takes its stack off that cell.  So where such a cell meets another, the
    slack is less that mover's part (and the other's, when it is a mover's cell too).  Not when a
    caiman may come: an eat under the caiman leaves the eater where it stands.

    Also None when every top that something could eat by value has such an eater next to it, or,
    where a far eat may come, within distance 2: the reach sets then seldom change the bound, and
    they cost more than the rest of it (the engines compute them only when this test passes).
    """
    if not _far_prey(pos, 1):
        return None
    reach = Reach(pos, cards, shark)
    if reach.layers and not _far_prey(pos, 2):
        return None
    tops = reach.tops
    steps = mover_steps(cards)
    free = (mover_cards(cards) - self_movers(cards) - set(steps)) & tops
    caiman = pos.pending == "caiman" or any(_prey(g, tops, shark) for g in caiman_sources(cards) & tops)
    active: set[int] = set()
    while True:
        if any(reach.meets(m, q) for m in free for q in _prey(m, tops, shark)):
            return None
        met = {m for m in set(steps) & tops if any(reach.meets(m, q) for q in _prey(m, tops, shark))}
        if met == active:
            return {t: {e for e in tops if 1 <= e - t <= 3 and reach.meets(e, t)} for t in tops}
        active = met
        shares = _shares(active, steps, tops, shark)
        slack = sum(shares.values())
        if slack > MAX_SLACK:
            return None
        reach = Reach(pos, cards, shark, slack=slack, shares={} if caiman else shares)


def _shares(movers: set[int], steps: dict[int, int], tops: set[int], shark: bool) -> dict[int, int]:
    """How far each of ``movers`` may shift stacks in all (their sum is the slack): each eat of
    one shifts at most its step."""
    return {m: steps[m] * _eats_at_most(m, tops, shark) for m in movers}


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


def _fewest_stuck(tops: set[int], unstacked: set[int], budget, eaters: dict[int, set[int]],
                  below: int = 16, depth: int = 0) -> int:
    """The fewest stuck tops left after discarding unstacked tops, ``budget(r)`` being how many
    discards a game can make at most if the tops not in ``r`` are the ones discarded.

    Discarding a top that some top can eat never helps (it would be eaten anyway, and it may be
    someone's eater), so only stuck tops are discarded, highest first.  A discarded top never
    ate (it would be stacked), and it was never eaten: it eats nothing, so tops it could have
    eaten may become stuck, and it takes part in no eat that pays for a discard, so the budget
    is counted again over the tops left (:func:`discard_budget`).
    """
    stuck = _stuck(tops, eaters)
    if depth == DISCARD_DEPTH:
        return len(stuck - unstacked) + max(0, len(stuck & unstacked) - (budget(tops) - depth))
    best = len(stuck)
    for u in stuck & unstacked:
        if u < below and budget(tops - {u}) >= depth + 1:
            best = min(best, _fewest_stuck(tops - {u}, unstacked, budget, eaters, u, depth + 1))
    return best


def raccoon_cards(cards: CardTable) -> set[int]:
    """Cards whose eat sets the raccoon effect."""
    return {c.value for c in cards if c.ability == "pending" and c.effect == "raccoon"}


def _eats_at_most(c: int, tops: set[int], shark: bool) -> int:
    """How many times ``c`` can still eat: once for each top 1-3 below it, plus one with the Shark."""
    return sum(1 for d in (1, 2, 3) if c - d in tops) + (1 if shark else 0)


def discard_budget(tops: set[int], cards: CardTable, shark: bool, pending_raccoon: bool,
                   left: set[int] | None = None) -> int:
    """How many discards a game can still make if only the tops ``left`` (all of ``tops`` if
    None) are never discarded: a discarded top never ate and was never eaten.

    A Lizard discards once per eat, and a card eats at most as many times as there are tops 1-3
    below it now, plus one with the Shark.  A raccoon trigger needs a Raccoon eat on the turn
    before (or the raccoon pending now, ``p``): at most R + p triggers for R Raccoon eats.  Each
    trigger is also an eat by exactly 1, and no card is eaten twice, so the Raccoon eats and the
    trigger eats take different prey, among the Raccoons' prey by value and the tops with a top
    just above them (M of them, all in ``left``), plus the Shark's one eat.  An eat can be both
    (a Raccoon eating the card just below it with the raccoon pending): O at most, one per
    Raccoon with that card left.  So with T triggers, R + T - O <= M + Shark and T <= R + p, so
    2T <= M + Shark + O + p.
    """
    left = tops if left is None else left
    p = 1 if pending_raccoon else 0
    raccoons = raccoon_cards(cards) & left
    lizards = (discard_sources(cards) - raccoon_cards(cards)) & left
    n = sum(_eats_at_most(c, tops, shark) for c in lizards)
    prey = {q for c in raccoons for q in (c - 1, c - 2, c - 3) if q in left}
    by_one = {q for q in left if q + 1 in left}
    both = sum(1 for c in raccoons if c - 1 in left)
    sea = 1 if shark and raccoons else 0
    triggers = min(p + sum(_eats_at_most(c, tops, shark) for c in raccoons),
                   (len(prey | by_one) + sea + both + p) // 2)
    return n + triggers


def lower_bound(pos: Position, cards: CardTable) -> int:
    """A number of stacks that must remain whatever is played.

    The set of top cards only shrinks (a predator keeps its top card), so a
    stack whose top t has no other top in t+1..t+3 can never be eaten
    normally ("stuck").  A stuck stack can still leave the map by the one
    Shark eat or, if unstacked, by a discard.  Discards are limited: a Lizard
    discards once per eat and a Raccoon's trigger needs a Raccoon eat first,
    and a card can eat at most as many times as there are tops 1-3 below it
    now, plus one with the Shark; a pending raccoon adds one; and each
    trigger needs an eat by exactly 1 (:func:`discard_budget`).  A discarded
    top must never have eaten, so the tops only it could eat are stuck too
    (:func:`_fewest_stuck`).  The Shark's one eat removes at most one more.

    Stacks that can never meet: an eat is between orthogonal neighbours, or
    at distance 2 right after a Fox, Lynx or Tiger eat, and it leaves the
    merged stack on one of the two cells, so as long as no ability moves a
    stack (and there is no Whale) a stack only ever moves onto a stack it
    eats.  Where each stack may yet stand follows (:class:`Reach`), and so
    which tops may ever come within reach of each other.  An ability acts only after its own card has eaten, so
    when no card with a move or swap ability may ever reach something it can
    eat, no ability will ever act, and a top is also stuck when no card that
    may reach it can eat it.  Movers of a bounded step that may eat widen
    the reach by as far as their eats let them shift stacks in all
    (:func:`still_eaters`).
    """
    tops = {s.card for s in pos.stacks}
    unstacked = {s.card for s in pos.stacks if not s.stacked}

    def budget(left):
        return discard_budget(tops, cards, pos.shark, pos.pending == "raccoon", left)

    n = _fewest_stuck(tops, unstacked, budget, _plain_eaters(tops))
    if n < len(tops) and not pos.whale:
        eaters = still_eaters(pos, cards, pos.shark)
        if eaters is not None:
            n = _fewest_stuck(tops, unstacked, budget, eaters)
    if pos.shark and len(tops) >= 2:
        n -= 1
    return max(1, n)
