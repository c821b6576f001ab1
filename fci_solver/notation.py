"""Line formats and replay.

Two notations for a line of turns:

* **JSON** (RULES.md, "Line notation"): a list of turns, each a list of action objects
  with cells as ``[row, col]`` in the layout frame.
* **human**: cells named like a chessboard (see :class:`~fci_solver.position.Board`),
  actions joined by ``;`` within a turn::

      12 d3xe3; move f4-h4        a normal eat (predator card optional), then a move
      whale c3-h8; 9 d4xe5         the Whale before the eat
      shark 7 d5xc5; swap c3 d4    a Shark eat, then the Snake's swap
      10 e3xe5; discard c6         an eat, then a discard

A *line document* is the JSON object ``fci solve --json`` prints: it names the
deal and rules, so ``fci replay`` can check it from nothing else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .actions import Discard, Eat, Move, SharkEat, Swap, Turn, Whale, line_from_json
from .cards import CardTable, standard_cards
from .errors import FciError
from .layouts import LAYOUT_NAMES, load_layout, parse_layout
from .position import Board, Deal, Position, parse_sea, sea_list
from . import rules


# -- human notation ----------------------------------------------------------

def action_to_human(action, board: Board, pos: Position | None = None) -> str:
    n = board.name
    if isinstance(action, Eat | SharkEat):
        p = pos.at(action.frm) if pos is not None else None
        who = f"{p.card} " if p is not None else ""
        shark = "shark " if isinstance(action, SharkEat) else ""
        return f"{shark}{who}{n(action.frm)}x{n(action.to)}"
    if isinstance(action, Whale):
        return f"whale {n(action.frm)}-{n(action.to)}"
    if isinstance(action, Move):
        return f"move {n(action.frm)}-{n(action.to)}"
    if isinstance(action, Swap):
        return f"swap {n(action.a)} {n(action.b)}"
    if isinstance(action, Discard):
        return f"discard {n(action.at)}"
    raise TypeError(action)


def turn_to_human(turn: Turn, pos: Position) -> str:
    """A turn in human notation; ``pos`` is the position the turn starts from (for card numbers)."""
    parts = []
    for action in turn:
        parts.append(action_to_human(action, pos.board, pos))
        pos = _after_whale(pos, action)
    return "; ".join(parts)


def line_to_human(start: Position, line, positions) -> list[str]:
    """Each turn of a line in human notation (each names cells as they stand before it)."""
    return [turn_to_human(turn, before) for turn, before in zip(line, [start] + list(positions))]


def _after_whale(pos: Position | None, action) -> Position | None:
    """Card numbers in the eat that follows a Whale refer to where the Whale put the stack."""
    if pos is None or not isinstance(action, Whale) or pos.at(action.frm) is None:
        return pos
    s = pos.at(action.frm)
    return pos.replace(stacks=tuple(x for x in pos.stacks if x.cell != action.frm) + (type(s)(action.to, s.card, s.height),))


_CELL = r"([a-z]+\d+)"


def parse_human_action(text: str, board: Board, pos: Position | None = None):
    t = text.strip().lower()
    m = re.fullmatch(rf"(shark\s+)?(?:(\d+)\s+)?{_CELL}\s*x\s*{_CELL}", t)
    if m:
        frm, to = board.parse_name(m.group(3)), board.parse_name(m.group(4))
        if m.group(2) is not None and pos is not None:
            s = pos.at(frm)
            if s is None or s.card != int(m.group(2)):
                raise FciError(f"{text.strip()!r}: card {m.group(2)} is not on top at {m.group(3)}")
        return (SharkEat if m.group(1) else Eat)(frm, to)
    m = re.fullmatch(rf"(whale|move)\s+{_CELL}\s*-\s*{_CELL}", t)
    if m:
        cls = Whale if m.group(1) == "whale" else Move
        return cls(board.parse_name(m.group(2)), board.parse_name(m.group(3)))
    m = re.fullmatch(rf"swap\s+{_CELL}\s*(?:<>|\s)\s*{_CELL}", t)
    if m:
        return Swap(board.parse_name(m.group(1)), board.parse_name(m.group(2)))
    m = re.fullmatch(rf"discard\s+{_CELL}", t)
    if m:
        return Discard(board.parse_name(m.group(1)))
    raise FciError(f"cannot read action {text.strip()!r} (e.g. '12 d3xe3', 'shark d3xe3', 'whale c3-h8', 'move f4-h4', 'swap c3 d4', 'discard c6')")


def parse_human_turn(text: str, board: Board, pos: Position | None = None) -> Turn:
    parts = [p for p in text.split(";") if p.strip()]
    if not parts:
        raise FciError("empty turn")
    out = []
    for part in parts:
        action = parse_human_action(part, board, pos)
        out.append(action)
        pos = _after_whale(pos, action)
    return tuple(out)


# -- replay --------------------------------------------------------------------

def replay(start: Position, line, cards: CardTable | None = None) -> list[Position]:
    """Play ``line`` from ``start``; every position after each turn.

    Raises :class:`FciError` naming the turn and action of the first illegal step.
    """
    cards = cards or standard_cards()
    positions = []
    pos = start
    for i, turn in enumerate(line, 1):
        try:
            pos = rules.play_turn(pos, turn, cards)
        except FciError as e:
            raise FciError(f"turn {i}: {e}") from None
        positions.append(pos)
    return positions


# -- line documents --------------------------------------------------------------

@dataclass(frozen=True)
class LineDocument:
    """A deal (or position) with the rules it is played under and a line to replay."""

    start: Position
    line: list[Turn]
    deal: Deal | None
    rules_name: str


def read_line_document(text: str, cards: CardTable | None = None, where: str = "line") -> LineDocument:
    """Parse a JSON line document: ``layout``, ``deal``, ``sea``, ``margin``, ``line`` (and optionally ``rules``)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise FciError(f"{where}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, dict):
        raise FciError(f"{where}: expected a JSON object with 'deal' (or 'position') and 'line'")
    if "line" not in data:
        raise FciError(f"{where}: no 'line' in the document")
    line = line_from_json(data["line"])
    rules_name = data.get("rules", "standard")
    if "position" in data:
        return LineDocument(Position.from_dict(data["position"]), line, None, rules_name)
    if "deal" not in data:
        raise FciError(f"{where}: no 'deal' (or 'position') in the document")
    deal_value = data["deal"]
    layout = data.get("layout", "standard")
    if "layout_grid" in data:
        grid = data["layout_grid"]
        if not isinstance(grid, list) or not all(isinstance(r, str) for r in grid):
            raise FciError(f"{where}: 'layout_grid' must be a list of rows like \"XX.X\"")
        layout = parse_layout("\n".join(grid), str(layout), f"{where}: layout_grid")
    if isinstance(deal_value, list):
        deal = Deal.of(layout, [int(v) for v in deal_value])
    elif isinstance(deal_value, str):
        deal = Deal.parse(layout, deal_value)
    else:
        raise FciError(f"{where}: 'deal' must be a string or a list of card numbers")
    sea = data.get("sea", "both")
    if isinstance(sea, list):
        unknown = set(sea) - {"shark", "whale"}
        if unknown:
            raise FciError(f"{where}: unknown sea animal {sorted(unknown)[0]!r}")
        shark, whale = "shark" in sea, "whale" in sea
    else:
        shark, whale = parse_sea(str(sea))
    margin = data.get("margin", 2)
    if not isinstance(margin, int) or isinstance(margin, bool):
        raise FciError(f"{where}: 'margin' must be an integer")
    return LineDocument(deal.position(margin, shark, whale), line, deal, rules_name)


def sea_json(pos: Position) -> list[str]:
    return sea_list(pos.shark, pos.whale)


def solution_document(result, deal: Deal | None, target: int, rules_name: str) -> dict:
    """The ``solve --json`` object (README, "Solving a deal")."""
    from .position import RANKS, rank_name

    start = result.start
    doc = {}
    if deal is not None:
        doc.update(layout=deal.layout.name, deal=" ".join(map(str, deal.cards)))
        if deal.layout.name not in LAYOUT_NAMES or load_layout(deal.layout.name) != deal.layout:
            doc["layout_grid"] = str(deal.layout).splitlines()  # a user's layout travels with its line
        if deal.seed is not None:
            doc["seed"] = deal.seed
    else:
        doc["position"] = start.to_dict()
    doc.update(
        sea=sea_json(start),
        margin=start.board.margin,
        rules=rules_name,
        target=target,
        min_remaining=result.min_remaining,
        lower_bound=result.lower_bound,
        exact=result.exact,
        winnable=True if result.min_remaining <= target else (False if result.exact or result.lower_bound > target else None),
        rank=rank_name(result.min_remaining) if result.min_remaining in RANKS else None,
        line=[[a.to_json() for a in turn] for turn in result.line],
        stats={
            "engine": result.engine,
            "states": result.states,
            "seconds": round(result.seconds, 4),
            **result.extra,
        },
    )
    return doc
