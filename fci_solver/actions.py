"""Actions: the small immutable steps a turn is made of.

A turn is a tuple of actions in the order they happen, e.g.
``(Eat((0, 1), (0, 2)), Move((0, 2), (2, 2)))``.  Each action knows its JSON
form (the JSON line notation of RULES.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import FciError

Cell = tuple[int, int]


@dataclass(frozen=True)
class Whale:
    """The Whale moves one stack to any other open cell (once per game)."""

    frm: Cell
    to: Cell
    op = "whale"

    def to_json(self) -> dict:
        return {"op": self.op, "from": list(self.frm), "to": list(self.to)}


@dataclass(frozen=True)
class Eat:
    """A normal eat: the predator at ``frm`` eats the prey at ``to``."""

    frm: Cell
    to: Cell
    op = "eat"

    def to_json(self) -> dict:
        return {"op": self.op, "from": list(self.frm), "to": list(self.to)}


@dataclass(frozen=True)
class SharkEat:
    """The Shark lets the predator at ``frm`` eat any lower adjacent prey at ``to`` (once per game)."""

    frm: Cell
    to: Cell
    op = "shark"

    def to_json(self) -> dict:
        return {"op": self.op, "from": list(self.frm), "to": list(self.to)}


@dataclass(frozen=True)
class Move:
    """An ability moves the stack at ``frm`` to the open cell ``to``."""

    frm: Cell
    to: Cell
    op = "move"

    def to_json(self) -> dict:
        return {"op": self.op, "from": list(self.frm), "to": list(self.to)}


@dataclass(frozen=True)
class Swap:
    """The Snake swaps the stacks at ``a`` and ``b`` (stored with a < b)."""

    a: Cell
    b: Cell
    op = "swap"

    def __post_init__(self):
        if self.b < self.a:
            a, b = self.b, self.a
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)

    def to_json(self) -> dict:
        return {"op": self.op, "a": list(self.a), "b": list(self.b)}


@dataclass(frozen=True)
class Discard:
    """The unstacked animal at ``at`` leaves the map (Lizard, raccoon trigger)."""

    at: Cell
    op = "discard"

    def to_json(self) -> dict:
        return {"op": self.op, "at": list(self.at)}


Action = Whale | Eat | SharkEat | Move | Swap | Discard
Turn = tuple[Action, ...]
_TWO_CELL = {"whale": Whale, "eat": Eat, "shark": SharkEat, "move": Move}


def _cell(value, what: str) -> Cell:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        raise FciError(f"{what} must be a cell [row, col], got {value!r}")
    return (value[0], value[1])


def action_from_json(obj) -> Action:
    """Parse one JSON action; raises :class:`FciError` naming what is wrong."""
    if not isinstance(obj, dict) or "op" not in obj:
        raise FciError(f"an action must be an object with an 'op', got {obj!r}")
    op = obj["op"]
    if op in _TWO_CELL:
        return _TWO_CELL[op](_cell(obj.get("from"), f"{op} 'from'"), _cell(obj.get("to"), f"{op} 'to'"))
    if op == "swap":
        return Swap(_cell(obj.get("a"), "swap 'a'"), _cell(obj.get("b"), "swap 'b'"))
    if op == "discard":
        return Discard(_cell(obj.get("at"), "discard 'at'"))
    raise FciError(f"unknown action op {op!r}")


def line_to_json(line) -> list[list[dict]]:
    return [[a.to_json() for a in turn] for turn in line]


def line_from_json(data) -> list[Turn]:
    if not isinstance(data, list):
        raise FciError("a line must be a list of turns")
    turns = []
    for i, turn in enumerate(data, 1):
        if not isinstance(turn, list):
            raise FciError(f"turn {i} must be a list of actions")
        turns.append(tuple(action_from_json(a) for a in turn))
    return turns
