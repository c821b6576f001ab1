"""State values: the board, a position, a deal; parsing and drawing.

Everything here is an immutable value.  A :class:`Position` prints itself as
a grid::

    >>> from fci_solver.position import Deal
    >>> print(Deal.parse("standard", "5 12 0 7 3 15 9 1 14 2 8 11 6 13 4 10").position(margin=1))
        a  b  c  d  e  f
     1  .  .  .  .  .  .
     2  .  5 12  .  7  .
    ...

Cells are ``(row, col)`` in the layout frame: ``(0, 0)`` is the top-left cell
of the layout's bounding box, margin cells have negative coordinates or lie
beyond the layout.  For people, cells are also named like a chessboard: column
letters ``a, b, c...`` from the board's left edge, row numbers ``1, 2, 3...``
from its top edge, margin included (so with margin 2, ``(0, 0)`` is ``c3``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from operator import attrgetter
from pathlib import Path

from .cards import N_CARDS, EFFECTS
from .errors import FciError, read_user_text
from .layouts import Layout, load_layout
from .text import plural

Cell = tuple[int, int]
SEA_CHOICES = {"both": (True, True), "shark": (True, False), "whale": (False, True), "none": (False, False)}
RANKS = {1: "Ecosystem Expert", 2: "Accidental Matchmaker", 3: "Island Intern"}
DEFAULT_MARGIN = 2


def rank_name(count: int) -> str:
    """The rulebook's title for ending with ``count`` animals ("no title" past 3: a loss)."""
    return RANKS.get(count, "no title")


def effect_label(effect: str | None) -> str:
    """A pending effect for people: the name and number of the card that sets it (``Gator (13)``)."""
    if effect is None:
        return "none"
    from .cards import standard_cards

    card = next((c for c in standard_cards() if c.ability == "pending" and c.effect == effect), None)
    return f"{card.name} ({card.value})" if card else effect


def parse_sea(text: str) -> tuple[bool, bool]:
    """``both|shark|whale|none`` -> (shark, whale)."""
    try:
        return SEA_CHOICES[text]
    except KeyError:
        raise FciError(f"unknown sea choice {text!r} (one of both, shark, whale, none)") from None


def sea_list(shark: bool, whale: bool) -> list[str]:
    return [name for name, on in (("shark", shark), ("whale", whale)) if on]


def sea_word(shark: bool, whale: bool) -> str:
    return {(True, True): "both", (True, False): "shark", (False, True): "whale", (False, False): "none"}[(shark, whale)]


@dataclass(frozen=True)
class Board:
    """The finite board: the layout's bounding box grown by ``margin`` on every side."""

    height: int
    width: int
    margin: int = DEFAULT_MARGIN

    @property
    def rows(self) -> range:
        return range(-self.margin, self.height + self.margin)

    @property
    def cols(self) -> range:
        return range(-self.margin, self.width + self.margin)

    @property
    def n_rows(self) -> int:
        return self.height + 2 * self.margin

    @property
    def n_cols(self) -> int:
        return self.width + 2 * self.margin

    @cached_property
    def cells(self) -> tuple[Cell, ...]:
        return tuple((r, c) for r in self.rows for c in self.cols)

    def __contains__(self, cell) -> bool:
        r, c = cell
        m = self.margin
        return -m <= r < self.height + m and -m <= c < self.width + m

    def index(self, cell: Cell) -> int:
        """Cell -> 0..n-1 in reading order (what the bitboard engine uses)."""
        r, c = cell
        return (r + self.margin) * self.n_cols + (c + self.margin)

    def cell(self, index: int) -> Cell:
        r, c = divmod(index, self.n_cols)
        return (r - self.margin, c - self.margin)

    def name(self, cell: Cell) -> str:
        """Chessboard-style name: column letter from the left edge, row number from the top."""
        r, c = cell
        return f"{_col_letters(c + self.margin)}{r + self.margin + 1}"

    def parse_name(self, text: str) -> Cell:
        m = re.fullmatch(r"([a-z]+)(\d+)", text.strip().lower())
        if not m:
            raise FciError(f"bad cell name {text!r} (expected a column letter and a row number, like c3)")
        col = 0
        for ch in m.group(1):
            col = col * 26 + (ord(ch) - ord("a") + 1)
        cell = (int(m.group(2)) - 1 - self.margin, col - 1 - self.margin)
        if cell not in self:
            raise FciError(f"cell {text!r} is off the board")
        return cell


@lru_cache(maxsize=None)
def _col_letters(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        s = chr(ord("a") + rem) + s
    return s


@dataclass(frozen=True, order=True)
class Stack:
    """A stack on the map: its cell, top card and height (1 = an unstacked animal)."""

    cell: Cell
    card: int
    height: int = 1

    @property
    def stacked(self) -> bool:
        return self.height > 1


# a position has one stack per cell, so its cell alone sorts stacks as Stack's fields would
_STACK_ORDER = attrgetter("cell")


@dataclass(frozen=True)
class Position:
    """A state of the game: stacks, sea animals still available, pending effect."""

    board: Board
    stacks: tuple[Stack, ...]
    shark: bool = True
    whale: bool = True
    pending: str | None = None
    _by_cell: dict = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        # sorted by a plain key, not by Stack's own comparisons: those are Python calls, most of
        # the cost of making a position (the perfect-play graph makes one per node)
        object.__setattr__(self, "stacks", tuple(sorted(self.stacks, key=_STACK_ORDER)))
        object.__setattr__(self, "_by_cell", {s.cell: s for s in self.stacks})

    # -- queries -------------------------------------------------------
    def __len__(self) -> int:
        return len(self.stacks)

    def at(self, cell: Cell) -> Stack | None:
        return self._by_cell.get(cell)

    def is_open(self, cell: Cell) -> bool:
        return cell in self.board and cell not in self._by_cell

    def open_cells(self):
        return (c for c in self.board.cells if c not in self._by_cell)

    def key(self) -> tuple:
        """Identity for search and perft: the exact height never matters for play, only stacked-or-not."""
        return (
            tuple((s.cell, s.card, s.height > 1) for s in self.stacks),
            self.shark,
            self.whale,
            self.pending,
        )

    def replace(self, **changes) -> "Position":
        fields = dict(board=self.board, stacks=self.stacks, shark=self.shark, whale=self.whale, pending=self.pending)
        fields.update(changes)
        return Position(**fields)

    # -- validation and conversion --------------------------------------
    @classmethod
    def build(cls, board: Board, stacks, shark=True, whale=True, pending=None) -> "Position":
        """Build a position from user data, checking it: one stack per cell, each card once."""
        seen_cells, seen_cards = set(), set()
        out = []
        for s in stacks:
            s = s if isinstance(s, Stack) else Stack(tuple(s[0]), int(s[1]), int(s[2]) if len(s) > 2 else 1)
            if s.cell not in board:
                raise FciError(f"stack at {s.cell} is off the board")
            if not 0 <= s.card < N_CARDS:
                raise FciError(f"card {s.card} is outside 0..15")
            if s.height < 1 or s.height > N_CARDS:
                raise FciError(f"stack of card {s.card} has height {s.height}; heights are 1..16")
            if s.cell in seen_cells:
                raise FciError(f"two stacks on cell {list(s.cell)}")
            if s.card in seen_cards:
                raise FciError(f"card {s.card} appears twice")
            seen_cells.add(s.cell)
            seen_cards.add(s.card)
            out.append(s)
        if sum(s.height for s in out) > N_CARDS:
            raise FciError("stack heights add up to more than 16 cards")
        if not out:
            raise FciError("a position needs at least one stack")
        if pending is not None and pending not in EFFECTS:
            raise FciError(f"unknown pending effect {pending!r} (one of {', '.join(EFFECTS)}, or none)")
        return cls(board, tuple(out), bool(shark), bool(whale), pending)

    def to_dict(self) -> dict:
        return {
            "board": {"height": self.board.height, "width": self.board.width, "margin": self.board.margin},
            "stacks": [{"cell": list(s.cell), "card": s.card, "height": s.height} for s in self.stacks],
            "sea": sea_list(self.shark, self.whale),
            "pending": self.pending,
        }

    @classmethod
    def from_dict(cls, data) -> "Position":
        """The inverse of :meth:`to_dict`, with every check of :meth:`build`."""
        if not isinstance(data, dict):
            raise FciError("a position must be a JSON object with 'board' and 'stacks'")
        if "line" in data and "board" not in data:
            raise FciError("this is a solution line (what fci solve --json writes), not a position: "
                           "check it with fci replay FILE, or give a position file (a grid, or JSON with 'board' and 'stacks')")
        missing = [k for k in ("board", "stacks") if k not in data]
        if missing:
            raise FciError(f"a JSON position needs 'board' and 'stacks'; this one has no {' or '.join(repr(k) for k in missing)}")
        b = data.get("board", {})
        try:
            board = Board(int(b["height"]), int(b["width"]), int(b.get("margin", DEFAULT_MARGIN)))
            stacks = [(tuple(s["cell"]), int(s["card"]), int(s.get("height", 1))) for s in data["stacks"]]
        except KeyError as e:
            raise FciError(f"malformed position: a board or stack has no {e}") from None
        except (TypeError, ValueError) as e:
            raise FciError(f"malformed position: {e}") from None
        if board.margin < 0 or board.height < 1 or board.width < 1:
            raise FciError("malformed position: board sizes must be positive and margin >= 0")
        sea = data.get("sea", ["shark", "whale"])
        if not isinstance(sea, list) or set(sea) - {"shark", "whale"}:
            raise FciError("malformed position: 'sea' must be a list of 'shark' and/or 'whale'")
        return cls.build(board, stacks, "shark" in sea, "whale" in sea, data.get("pending"))

    # -- drawing ---------------------------------------------------------
    def grid(self, highlight: set | None = None, width: int | None = None) -> str:
        """The board as text: card numbers, ``:h`` after a stack of height h, ``.`` for open cells.

        Cells are as wide as the widest label needs, with a space between cells (``width`` fixes
        it instead, as a game does so that its board does not jump); a highlighted cell has ``*``.
        """
        b = self.board
        longest = max((len(f"{s.card}:{s.height}" if s.height > 1 else str(s.card)) for s in self.stacks), default=1)
        w = max(width or 0, 3, longest + 1 + (1 if highlight else 0))
        head = "   " + "".join(f"{_col_letters(i):>{w}}" for i in range(b.n_cols))
        lines = [head.rstrip()]
        for r in b.rows:
            row = f"{r + b.margin + 1:>3}"
            for c in b.cols:
                s = self._by_cell.get((r, c))
                if s is None:
                    txt = "."
                else:
                    txt = f"{s.card}:{s.height}" if s.height > 1 else str(s.card)
                if highlight and (r, c) in highlight:
                    txt = "*" + txt
                row += f"{txt:>{w}}"
            lines.append(row)
        return "\n".join(lines)

    def status(self) -> str:
        sea = ", ".join(sea_list(self.shark, self.whale)) or "none"
        n = len(self.stacks)
        return f"{n} stack{'s' if n != 1 else ''}; sea: {sea}; pending: {effect_label(self.pending)}"

    def __str__(self) -> str:
        return self.grid()


@dataclass(frozen=True)
class Deal:
    """A layout and the cards dealt into its cells in reading order."""

    layout: Layout
    cards: tuple[int, ...]
    seed: int | None = None

    @classmethod
    def parse(cls, layout: str | Layout, text: str) -> "Deal":
        layout = load_layout(layout)
        tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
        values = []
        for t in tokens:
            if not re.fullmatch(r"[+-]?\d+", t):
                raise FciError(f"malformed deal: {t!r} is not a card number")
            values.append(int(t))
        return cls.of(layout, values)

    @classmethod
    def of(cls, layout: str | Layout, values, seed: int | None = None) -> "Deal":
        layout = load_layout(layout)
        values = list(values)
        if len(values) != len(layout):
            raise FciError(f"layout {layout.name!r} has {plural(len(layout), 'cell')} but the deal lists {plural(len(values), 'card')}")
        for v in values:
            if not 0 <= v < N_CARDS:
                raise FciError(f"card {v} is outside 0..15")
        dup = sorted({v for v in values if values.count(v) > 1})
        if dup:
            raise FciError(f"card {dup[0]} appears twice in the deal")
        return cls(layout, tuple(values), seed)

    @classmethod
    def random(cls, layout: str | Layout = "standard", seed: int | None = None) -> "Deal":
        """A reproducible random deal: the same seed always gives the same cards."""
        layout = load_layout(layout)
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        rng = random.Random(seed)
        return cls(layout, tuple(rng.sample(range(N_CARDS), len(layout))), seed)

    @classmethod
    def from_file(cls, layout: str | Layout, path: str | Path) -> "Deal":
        text = read_user_text(path, "deal file")
        text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
        return cls.parse(layout, text)

    def __str__(self) -> str:
        return " ".join(map(str, self.cards))

    def board(self, margin: int = DEFAULT_MARGIN) -> Board:
        if margin < 0:
            raise FciError(f"margin must be >= 0, got {margin}")
        return Board(self.layout.height, self.layout.width, margin)

    def position(self, margin: int = DEFAULT_MARGIN, shark: bool = True, whale: bool = True) -> Position:
        stacks = tuple(Stack(cell, card) for cell, card in zip(self.layout.cells, self.cards))
        return Position(self.board(margin), stacks, shark, whale, None)


# -- the position file format ----------------------------------------------------

def parse_position_text(text: str, where: str = "position") -> Position:
    """Parse a typed mid-game position.

    Header lines ``sea: shark whale`` (or ``none``), ``pending: fox`` (or
    ``none``), ``margin: 2``; then the grid, one row a line, cells separated by
    spaces: ``.`` for open, ``7`` for an unstacked animal, ``7:3`` for a stack of
    height 3 with card 7 on top.  The grid's top-left is cell (0, 0) and the
    margin is added around it.  With a header ``board: 4x4 margin 2`` the grid
    is instead the whole board, margin included (what :func:`position_text`
    writes, so stacks in the margin keep their coordinates).  A JSON object
    (as :meth:`Position.to_dict` writes) is accepted too.
    """
    stripped = text.strip()
    if stripped.startswith("{"):
        import json

        try:
            return Position.from_dict(json.loads(stripped))
        except json.JSONDecodeError as e:
            raise FciError(f"{where}: not valid JSON ({e.msg} at line {e.lineno})") from None
    head = _Header()
    rows = [line.split() for line in head.read(text, where)]
    if not rows:
        raise FciError(f"{where}: no grid rows")
    board, off = head.board(rows, where)
    stacks = []
    for r, row in enumerate(rows):
        for c, tok in enumerate(row):
            if tok == ".":
                continue
            m = re.fullmatch(r"(\d+)(?::(\d+))?", tok)
            if not m:
                raise FciError(f"{where}: grid row {r + 1} has {tok!r}; use '.', a card like 7, or a stack like 7:3")
            stacks.append(((r - off, c - off), int(m.group(1)), int(m.group(2) or 1)))
    try:
        return Position.build(board, stacks, head.shark, head.whale, head.pending)
    except FciError as e:
        raise FciError(f"{where}: {e}") from None


class _Header:
    """The header lines of a typed position, as they are read (defaults: both sea animals, nothing
    pending, the default margin, the grid without its margin)."""

    def __init__(self):
        self.shark = self.whale = True
        self.pending = None
        self.margin = DEFAULT_MARGIN
        self.full = None  # (height, width, margin) of a grid that is the whole board

    def read(self, text: str, where: str) -> list[str]:
        """Take the header lines of ``text``; returns its grid lines (comments and blanks dropped)."""
        grid = []
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"board\s*:\s*(\d+)\s*x\s*(\d+)\s+margin\s+(\d+)", line, re.I)
            if m:
                self.full = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
                continue
            m = re.fullmatch(r"(sea|pending|margin)\s*:\s*(.*)", line, re.I)
            if m:
                self._field(m.group(1).lower(), m.group(2).strip().lower(), f"{where}: line {lineno}")
            else:
                grid.append(line)
        return grid

    def _field(self, key: str, val: str, where: str) -> None:
        if key == "sea":
            words = set(val.replace(",", " ").split())
            if words - {"shark", "whale", "none", "both"}:
                raise FciError(f"{where}: sea lists shark, whale, both or none")
            self.shark = "shark" in words or "both" in words
            self.whale = "whale" in words or "both" in words
        elif key == "pending":
            self.pending = None if val in ("none", "-", "") else val
        else:
            if not re.fullmatch(r"\d+", val):
                raise FciError(f"{where}: margin must be a whole number >= 0")
            self.margin = int(val)

    def board(self, rows: list[list[str]], where: str) -> tuple[Board, int]:
        """The board the grid ``rows`` lie on, and the offset of the grid's top-left cell."""
        if self.full is None:
            return Board(len(rows), max(len(r) for r in rows), self.margin), 0
        board = Board(*self.full)
        if board.height < 1 or board.width < 1:
            raise FciError(f"{where}: board sizes must be positive")
        if len(rows) != board.n_rows or any(len(r) != board.n_cols for r in rows):
            raise FciError(f"{where}: the board header says {board.n_rows} rows of {board.n_cols} cells (margin included), the grid differs")
        return board, board.margin


def position_text(pos: Position) -> str:
    """A position in the typed format of :func:`parse_position_text` (the inverse)."""
    return tops_text(pos.board, ((s.cell, s.card, s.height) for s in pos.stacks), pos.shark, pos.whale, pos.pending)


def tops_text(board: Board, tops, shark: bool, whale: bool, pending: str | None) -> str:
    """:func:`position_text` from a position's parts, ``tops`` as (cell, card, height): the graph
    of perfect play writes one per node (172,000 for an expert puzzle) from its key, without
    making a position first."""
    lines = [
        f"sea: {' '.join(sea_list(shark, whale)) or 'none'}",
        f"pending: {pending or 'none'}",
        f"board: {board.height}x{board.width} margin {board.margin}",
    ]
    # a grid of empty cells with the stacks written in, not a look at every cell (90 us a node)
    rows, cols = board.rows, board.cols
    grid = [["   ."] * len(cols) for _ in rows]
    r0, c0 = rows[0], cols[0]
    for cell, card, height in tops:
        grid[cell[0] - r0][cell[1] - c0] = (f"{card}:{height}" if height > 1 else str(card)).rjust(4)
    lines += [" ".join(row) for row in grid]
    return "\n".join(lines) + "\n"


def read_position(path: str) -> Position:
    """Read a position file (``-`` for stdin), text or JSON."""
    where = "position on stdin" if path == "-" else f"position file {path!r}"
    return parse_position_text(read_user_text(path, "position file"), where)
