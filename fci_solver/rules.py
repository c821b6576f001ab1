"""The reference engine: the rules of Food Chain Island as readable Python.

This module is the executable statement of the ruleset in ``RULES.md``.  It
is written to be read, not to be fast; the numba engine in
:mod:`fci_solver.bitboard` must agree with it on every position.

A turn is played as a small state machine (:class:`TurnState`).  Its phases
follow the rules in order:

``start``    the optional Whale before the eat, or the eat itself
``eat``      the eat (the Whale was just used)
``ability``  the predator's ability, mandatory while some legal way exists
``raccoon``  the raccoon trigger's discard
``end``      the optional Whale after the ability; the turn may end here

:func:`legal_actions` lists what may happen next, :func:`advance` does it.
:func:`turns` enumerates every complete turn from a position; replaying a
user's line walks the same machine, so the solver and the checker cannot
disagree about the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from .actions import Action, Discard, Eat, Move, SharkEat, Swap, Turn, Whale
from .cards import CardTable, standard_cards
from .errors import FciError
from .position import Cell, Position, Stack

ORTHOGONAL = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
# Manhattan distance exactly 2: straight two steps, or one step each way.
TIGER = ((-2, 0), (2, 0), (0, -2), (0, 2)) + DIAGONAL


def distance(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def prey_offsets(effect: str | None) -> tuple[tuple[int, int], ...]:
    """Where a normal eat may find its prey, relative to the predator, under a pending effect."""
    if effect == "fox":
        return DIAGONAL
    if effect == "lynx":
        return tuple((2 * dr, 2 * dc) for dr, dc in ORTHOGONAL)
    if effect == "tiger":
        return TIGER
    return ORTHOGONAL


@dataclass(frozen=True)
class TurnState:
    """A turn in progress."""

    pos: Position
    phase: str = "start"
    effect: str | None = None  # the pending effect this turn began with
    predator: int | None = None  # the predator's top card (it follows its stack when moved)
    shark_eat: bool = False
    diff: int = 0  # p - q of the eat
    moves_left: int = 0
    moved: frozenset = frozenset()  # cards already moved by a multi-stack move ability

    @classmethod
    def begin(cls, pos: Position) -> "TurnState":
        return cls(pos, "start", pos.pending)


def replace(ts: TurnState, **changes) -> TurnState:
    """``dataclasses.replace`` for a turn state, five times cheaper: the fields are copied as they
    are rather than passed through ``__init__`` again (a turn state checks nothing when it is
    made).  A turn makes several, and the tests and the lines that solves print make millions."""
    new = object.__new__(TurnState)
    new.__dict__.update(ts.__dict__, **changes)
    return new


# -- eats ------------------------------------------------------------------

def normal_eats(pos: Position, effect: str | None) -> list[Eat]:
    """Every normal eat under the pending ``effect``."""
    out = []
    for p in pos.stacks:
        if effect == "bear" and p.card == 15:
            continue  # the Polar Bear cannot be the predator twice in a row
        for dr, dc in prey_offsets(effect):
            cell = (p.cell[0] + dr, p.cell[1] + dc)
            q = pos.at(cell)
            if q is None or not 1 <= p.card - q.card <= 3:
                continue
            if effect == "lion" and p.card - q.card != 1:
                continue
            if effect == "lynx" and pos.at((p.cell[0] + dr // 2, p.cell[1] + dc // 2)) is None:
                continue  # the lynx jumps over a stack
            out.append(Eat(p.cell, cell))
    return out


def shark_eats(pos: Position) -> list[SharkEat]:
    """Every Shark eat: any lower orthogonal neighbour; the pending effect is ignored."""
    if not pos.shark:
        return []
    out = []
    for p in pos.stacks:
        for dr, dc in ORTHOGONAL:
            q = pos.at((p.cell[0] + dr, p.cell[1] + dc))
            if q is not None and q.card < p.card:
                out.append(SharkEat(p.cell, q.cell))
    return out


def whale_moves(pos: Position) -> list[Whale]:
    if not pos.whale:
        return []
    opens = list(pos.open_cells())
    return [Whale(s.cell, to) for s in pos.stacks for to in opens]


def _without(pos: Position, *cells: Cell) -> list[Stack]:
    return [s for s in pos.stacks if s.cell not in cells]


def _eat(ts: TurnState, frm: Cell, to: Cell, shark: bool) -> TurnState:
    pos = ts.pos
    p, q = pos.at(frm), pos.at(to)
    # With the caiman the prey moves under the predator; otherwise the predator moves onto the prey.
    home = frm if (ts.effect == "caiman" and not shark) else to
    merged = Stack(home, p.card, p.height + q.height)
    new = pos.replace(stacks=tuple(_without(pos, frm, to)) + (merged,), shark=pos.shark and not shark)
    return replace(ts, pos=new, phase="ability", predator=p.card, shark_eat=shark, diff=p.card - q.card)


# -- abilities -------------------------------------------------------------

@lru_cache(maxsize=8192)
def _cells_at(board, cell: Cell, lo: int, hi: int | None) -> tuple[Cell, ...]:
    """The board's cells at distance lo..hi from ``cell``, in reading order (the same for every position)."""
    return tuple(c for c in board.cells if lo <= distance(cell, c) and (hi is None or distance(cell, c) <= hi))


def _move_targets(pos: Position, s: Stack, lo: int, hi: int | None) -> Iterator[Cell]:
    return (c for c in _cells_at(pos.board, s.cell, lo, hi) if pos.at(c) is None)


def ability_actions(ts: TurnState, cards: CardTable) -> list[Action]:
    """The ways to carry out (the rest of) the predator's ability; empty when it cannot be."""
    return list(_ability_actions(ts, cards))


def _ability_actions(ts: TurnState, cards: CardTable) -> Iterator[Action]:
    # a generator, so that whether there is any way at all (_settle) costs the first one only
    card = cards[ts.predator]
    pos = ts.pos
    if card.ability == "move":
        if ts.moves_left <= 0:
            return
        if card.who == "self":
            movers = [s for s in pos.stacks if s.card == ts.predator]
        else:
            movers = [s for s in pos.stacks if s.card not in ts.moved]
        yield from (Move(s.cell, to) for s in movers for to in _move_targets(pos, s, card.min, card.max))
    elif card.ability == "discard" and ts.moves_left > 0:
        yield from (Discard(s.cell) for s in pos.stacks if not s.stacked)
    elif card.ability == "swap" and ts.moves_left > 0:
        st = pos.stacks
        yield from (Swap(a.cell, b.cell) for i, a in enumerate(st) for b in st[i + 1:])


def _start_ability(ts: TurnState, cards: CardTable) -> TurnState:
    card = cards[ts.predator]
    uses = card.count if card.ability == "move" else 1
    return _settle(replace(ts, phase="ability", moves_left=uses, moved=frozenset()), cards)


def _raccoon_triggers(ts: TurnState) -> bool:
    return ts.effect == "raccoon" and not ts.shark_eat and ts.diff == 1


def _settle(ts: TurnState, cards: CardTable) -> TurnState:
    """Skip phases that have nothing left to do (an ability with no legal way is skipped)."""
    if ts.phase == "ability" and next(_ability_actions(ts, cards), None) is None:
        ts = replace(ts, phase="raccoon", moves_left=0)
    if ts.phase == "raccoon" and not (_raccoon_triggers(ts) and any(not s.stacked for s in ts.pos.stacks)):
        ts = replace(ts, phase="end")
    return ts


# -- the state machine -----------------------------------------------------

def legal_actions(ts: TurnState, cards: CardTable, whale_after: bool = True,
                  whale_before: bool = True) -> list[Action]:
    """What may happen next in this turn.  In phase ``end`` the turn may also simply end.
    ``whale_before``/``whale_after``: whether the Whale's moves are offered before the eat/after
    the ability (a caller that skips them need not build one per stack and open cell)."""
    pos = ts.pos
    if ts.phase == "start":
        eats = normal_eats(pos, ts.effect) + shark_eats(pos)
        return eats + whale_moves(pos) if whale_before else eats
    if ts.phase == "eat":
        return normal_eats(pos, ts.effect) + shark_eats(pos)
    if ts.phase == "ability":
        return ability_actions(ts, cards)
    if ts.phase == "raccoon":
        return [Discard(s.cell) for s in pos.stacks if not s.stacked]
    if ts.phase == "end" and whale_after:
        return whale_moves(pos)
    return []


def advance(ts: TurnState, action: Action, cards: CardTable) -> TurnState:
    """Carry out one action (assumed legal: see :func:`check_action`)."""
    pos = ts.pos
    if isinstance(action, Whale):
        s = pos.at(action.frm)
        moved = pos.replace(stacks=tuple(_without(pos, action.frm)) + (Stack(action.to, s.card, s.height),), whale=False)
        return replace(ts, pos=moved, phase="eat" if ts.phase == "start" else "done")
    if isinstance(action, (Eat, SharkEat)):
        return _start_ability(_eat(ts, action.frm, action.to, isinstance(action, SharkEat)), cards)
    if isinstance(action, Move):
        s = pos.at(action.frm)
        new = pos.replace(stacks=tuple(_without(pos, action.frm)) + (Stack(action.to, s.card, s.height),))
        left = ts.moves_left - 1
        return _settle(replace(ts, pos=new, moves_left=left, moved=ts.moved | {s.card}), cards)
    if isinstance(action, Swap):
        a, b = pos.at(action.a), pos.at(action.b)
        rest = tuple(_without(pos, action.a, action.b))
        new = pos.replace(stacks=rest + (Stack(b.cell, a.card, a.height), Stack(a.cell, b.card, b.height)))
        return _settle(replace(ts, pos=new, moves_left=0), cards)
    if isinstance(action, Discard):
        new = pos.replace(stacks=tuple(_without(pos, action.at)))
        phase = "end" if ts.phase == "raccoon" else ts.phase
        return _settle(replace(ts, pos=new, phase=phase, moves_left=0), cards)
    raise TypeError(f"not an action: {action!r}")


def finish(ts: TurnState, cards: CardTable) -> Position:
    """End the turn: the predator's pending effect (if any) applies to the next turn."""
    assert ts.phase in ("end", "done"), ts.phase
    return ts.pos.replace(pending=cards.effect_of(ts.predator))


# -- whole turns -----------------------------------------------------------

def turns(pos: Position, cards: CardTable | None = None, whale_after: bool = False,
          whale_before: bool = True) -> Iterator[tuple[Turn, Position]]:
    """Every complete turn from ``pos`` with the position it leads to.

    By default the optional Whale after the ability is not generated: it
    reaches nothing that the Whale before the next eat does not (see RULES.md).
    """
    cards = cards or standard_cards()
    return turns_from(TurnState.begin(pos), cards, whale_after=whale_after, whale_before=whale_before)


def turns_from(ts: TurnState, cards: CardTable, whale_after: bool = False,
               whale_before: bool = True) -> Iterator[tuple[Turn, Position]]:
    """Every way to complete a turn in progress."""
    stack: list[tuple[TurnState, Turn]] = [(ts, ())]
    while stack:
        ts, done = stack.pop()
        if ts.phase in ("end", "done"):
            yield done, finish(ts, cards)
            if ts.phase == "done" or not whale_after:
                continue
        for action in reversed(legal_actions(ts, cards, whale_after, whale_before)):
            stack.append((advance(ts, action, cards), done + (action,)))


def successors(pos: Position, cards: CardTable | None = None, whale_before: bool = True) -> dict:
    """Distinct next states: ``{state key: (turn, position)}``, one turn kept per state."""
    out = {}
    for turn, nxt in turns(pos, cards, whale_before=whale_before):
        out.setdefault(nxt.key(), (turn, nxt))
    return out


def is_over(pos: Position, cards: CardTable | None = None) -> bool:
    """The game ends when no complete turn exists (an eat now, after a Whale move, or a Shark eat)."""
    return next(turns(pos, cards), None) is None


# -- checking a user's turn -------------------------------------------------

def is_legal(ts: TurnState, action: Action, cards: CardTable) -> bool:
    """Whether ``action`` may happen now: one of :func:`legal_actions` (an ability's ways are
    made only up to the one that matches)."""
    if ts.phase == "ability":
        return action in _ability_actions(ts, cards)
    return ts.phase != "done" and action in legal_actions(ts, cards)


def check_action(ts: TurnState, action: Action, cards: CardTable) -> None:
    """Raise :class:`FciError` with the reason when ``action`` is not legal now."""
    if ts.phase == "done":
        raise FciError("the turn is over after the Whale that follows the ability")
    if is_legal(ts, action, cards):
        return
    pos = ts.pos
    if ts.phase in ("start", "eat"):
        if isinstance(action, Whale) and not pos.whale:
            raise FciError("the Whale is not available")
        if isinstance(action, Whale) and ts.phase == "eat":
            raise FciError("the Whale was already used this turn")
        if isinstance(action, SharkEat) and not pos.shark:
            raise FciError("the Shark is not available")
        if not isinstance(action, (Whale, Eat, SharkEat)):
            raise FciError(f"the turn must begin with an eat (or the Whale), not a {action.op}")
        frm = pos.at(action.frm)
        to = pos.at(action.to)
        if frm is None:
            raise FciError(f"no stack at {list(action.frm)}")
        if isinstance(action, Whale):
            raise FciError(f"the Whale must move to another open cell of the board, not {list(action.to)}")
        if to is None:
            raise FciError(f"no prey at {list(action.to)}")
        raise FciError(why_no_eat(frm.card, to.card, ts.effect, isinstance(action, SharkEat), cards))
    if ts.phase == "ability":
        name = cards[ts.predator].name
        raise FciError(f"not a legal way to carry out the {name}'s ability")
    if ts.phase == "raccoon":
        raise FciError("the raccoon trigger must discard an unstacked animal")
    if isinstance(action, Whale) and not pos.whale:
        raise FciError("the Whale is not available")
    raise FciError(f"nothing more may happen this turn (got {action.op})")


GEOMETRY = {
    None: "next to it (up, down, left or right)",
    "fox": "diagonally next to it",
    "lynx": "two cells away in a straight line, with a stack between to jump over",
    "tiger": "exactly 2 cells away",
}


def why_no_eat(p: int, q: int, effect: str | None, shark: bool, cards: CardTable) -> str:
    """Why ``p`` may not eat ``q`` as asked, in a player's terms."""
    base = f"{p} cannot eat {q}"
    if shark:
        if q >= p:
            return f"{base}: the Shark lets a predator eat any lower animal, and {q} is not lower"
        return f"{base}: with the Shark the prey must still be next to the predator (up, down, left or right)"
    prey = [str(x) for x in (p - 3, p - 2, p - 1) if x >= 0]
    if not 1 <= p - q <= 3:
        return f"{base}: {p} eats only " + (" or ".join([", ".join(prey[:-1]), prey[-1]] if len(prey) > 1 else prey)
                                           if prey else "nothing")
    setter = next((c for c in cards if c.ability == "pending" and c.effect == effect), None)
    pending = f"with the {setter.name}'s effect pending, " if setter else (f"with {effect} pending, " if effect else "")
    if effect == "lion" and p - q != 1:
        return f"{base}: {pending}the predator must be exactly 1 above its prey"
    if effect == "bear" and p == 15:
        return f"{base}: {pending}the Polar Bear may not eat this turn"
    return f"{base} from there: {pending}the prey must be {GEOMETRY.get(effect, GEOMETRY[None])}"


def play_turn(pos: Position, turn: Turn, cards: CardTable | None = None) -> Position:
    """Play a whole turn, checking each action; raises :class:`FciError` at the first illegal one."""
    cards = cards or standard_cards()
    if not turn:
        raise FciError("a turn must contain at least an eat")
    ts = TurnState.begin(pos)
    for i, action in enumerate(turn, 1):
        try:
            check_action(ts, action, cards)
        except FciError as e:
            raise FciError(f"action {i} ({action.op}): {e}") from None
        ts = advance(ts, action, cards)
    if ts.phase not in ("end", "done"):
        what = {"start": "an eat", "eat": "an eat after the Whale", "ability": "the predator's ability", "raccoon": "the raccoon discard"}[ts.phase]
        raise FciError(f"the turn stops before {what} is carried out")
    return finish(ts, cards)
