"""A solve's path of keys as a line of reference-engine turns (the line a solve prints).

The fast engine's searches end with a path of keys.  Each step becomes the turn that leads
there, played by the reference rules (:mod:`fci_solver.rules`): every action of a printed line
is one the reference engine lists as legal where it is played, and the turn ends where the rules
end it, at the next key.

Most steps are read from the difference between the two keys: the tops that are gone (the prey,
a discard), the stacks that moved, the Shark and the pending effect.  Only the eat comes from the
reference engine's list; each later action is looked for in its list of legal ways, which stops
at the match.  Listing every turn that fits instead cost 2.1 ms a solve of the standard deals
(7% of the mean solve, with both sea animals); reading them costs 1.3 ms
(``python benchmarks/line_bench.py --sea both``).
Where the difference does not tell the turn (a stack moved, then discarded in the same turn),
every turn that fits is listed, as before.
"""

from __future__ import annotations

from itertools import permutations

from .. import rules
from ..actions import Discard, Eat, Move, SharkEat, Swap, Whale
from ..cards import CardTable
from ..position import Position
from .codec import key_of, key_pending, key_tops, position_of
from .kernels.keys import PHASE_BIT


def keys_to_line(start: Position, keys, cards: CardTable):
    """Turn a path of keys (after-Whale half-steps included) into reference-engine turns and the
    positions after them."""
    line, positions = [], []
    pos = start
    i = 0
    while i < len(keys):
        ts = rules.TurnState.begin(pos)
        prefix = ()
        if keys[i][2] & PHASE_BIT:
            whale = whale_between(pos, position_of(pos.board, keys[i]))
            ts = rules.advance(ts, whale, cards)
            prefix = (whale,)
            i += 1
            if i >= len(keys):
                break
        turn, pos = turn_to(ts, keys[i], cards)
        line.append(prefix + turn)
        positions.append(pos)
        i += 1
    return line, positions


def turn_to(ts: rules.TurnState, target, cards: CardTable):
    """A turn from ``ts`` (before its eat) that ends at the key ``target``, and the position it
    ends in."""
    found = _read_turn(ts, target, cards)
    if found is None:
        found = next(((turn, nxt) for turn, nxt in _turns_toward(ts, target, cards) if key_of(nxt) == target), None)
    if found is None:
        raise RuntimeError("the reference engine has no turn to a state the bitboard engine reached")
    return found


def _read_turn(ts: rules.TurnState, target, cards: CardTable):
    """The turn to ``target`` read from the keys' difference, or None where it does not tell."""
    pos = ts.pos
    board = pos.board
    tops = {card: (board.cell(i), stacked) for i, card, stacked in key_tops(target)}
    pending = key_pending(target)
    shark = pos.shark and not target[2] & 1  # the Shark ate in this turn
    # the eats legal_actions lists: with the Shark still there, its eats are most of them
    eats = rules.shark_eats(pos) if shark else rules.normal_eats(pos, ts.effect)
    for eat in eats:
        p, q = pos.at(eat.frm).card, pos.at(eat.to).card
        # the prey is gone; the predator stays on top of a stack (of two cards or more), and its
        # effect is the one pending after the turn
        if q in tops or not tops.get(p, (None, False))[1]:
            continue
        if cards.effect_of(p) != pending:
            continue
        after = rules.advance(ts, eat, cards)
        for rest in _rest(after, tops, cards):
            done = after
            for action in rest:
                if not rules.is_legal(done, action, cards):
                    break
                done = rules.advance(done, action, cards)
            else:
                if done.phase == "end":
                    nxt = rules.finish(done, cards)
                    if key_of(nxt) == target:
                        return (eat,) + rest, nxt
    return None


def _rest(ts: rules.TurnState, tops: dict, cards: CardTable):
    """The actions that may follow the eat, as the next key's ``tops`` (card -> (cell, stacked))
    tell them: the ability's (the moves in each order, as a stack may move into a cell another
    left; a discard of each top gone), then the raccoon trigger's discard of the top still to go."""
    moved = [s for s in ts.pos.stacks if s.card in tops and tops[s.card][0] != s.cell]
    gone = [Discard(s.cell) for s in ts.pos.stacks if s.card not in tops]
    kind = cards[ts.predator].ability if ts.phase == "ability" else None
    if kind == "move" and len(moved) <= 3:
        for order in permutations([Move(s.cell, tops[s.card][0]) for s in moved]):
            yield order + tuple(gone)
    elif kind == "swap" and len(moved) == 2:
        yield (Swap(moved[0].cell, moved[1].cell),) + tuple(gone)
    elif kind == "discard":
        for i, d in enumerate(gone):
            yield (d,) + tuple(gone[:i] + gone[i + 1:])
    elif kind is None:
        yield tuple(gone)


def _turns_toward(ts: rules.TurnState, target, cards: CardTable):
    """The turns of :func:`rules.turns_from` (no Whale first) that fit ``target``: the prey and
    a discarded stack's top are no tops there, and a moved or swapped stack is where ``target``
    has it (or gone, discarded later)."""
    board = ts.pos.board
    at = {card: i for i, card, _ in key_tops(target)}  # each top's cell index in ``target``

    def fits(card, cell):
        return card not in at or at[card] == board.index(cell)

    stack = [(ts, ())]
    while stack:
        ts, done = stack.pop()
        if ts.phase in ("end", "done"):
            yield done, rules.finish(ts, cards)
            continue
        for action in reversed(rules.legal_actions(ts, cards, whale_after=False, whale_before=False)):
            if isinstance(action, (Eat, SharkEat)) and ts.pos.at(action.to).card in at:
                continue
            if isinstance(action, Discard) and ts.pos.at(action.at).card in at:
                continue
            if isinstance(action, Move) and not fits(ts.pos.at(action.frm).card, action.to):
                continue
            if isinstance(action, Swap) and not (fits(ts.pos.at(action.a).card, action.b)
                                                 and fits(ts.pos.at(action.b).card, action.a)):
                continue
            stack.append((rules.advance(ts, action, cards), done + (action,)))


def whale_between(a: Position, b: Position) -> Whale:
    """The Whale move that turns ``a`` into ``b`` (the one stack that moved)."""
    before = {s.card: s.cell for s in a.stacks}
    for s in b.stacks:
        if before[s.card] != s.cell:
            return Whale(before[s.card], s.cell)
    raise RuntimeError("no Whale move between the two keys")
