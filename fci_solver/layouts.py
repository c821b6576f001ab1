"""Layouts: which cells of the island the 16 land cards are dealt into.

A layout file is plain text, one character per cell: ``X`` for a dealt cell,
``.`` for an open one.  Lines starting with ``#`` are comments.  The seven
layouts of the rules ship in the top-level ``layouts/`` folder (installed as
package data); ``--layout`` takes one of their names or a path to a user file.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .text import plural
from .errors import FciError, read_user_text

Cell = tuple[int, int]

#: The rulebook's layouts, in its order.
RULEBOOK_LAYOUTS = ("standard", "staircase", "cross", "comb", "gap", "tower", "ring")
#: Every built-in layout: the rulebook's, then three small ones for quick puzzles.
LAYOUT_NAMES = RULEBOOK_LAYOUTS + ("six", "eight", "ten")
MIN_CELLS, MAX_CELLS = 2, 16


@dataclass(frozen=True)
class Layout:
    """A named layout: its dealt cells in reading order and its bounding box."""

    name: str
    cells: tuple[Cell, ...]
    height: int
    width: int
    about: str = ""

    def __len__(self) -> int:
        return len(self.cells)

    def __str__(self) -> str:
        dealt = set(self.cells)
        return "\n".join(
            "".join("X" if (r, c) in dealt else "." for c in range(self.width))
            for r in range(self.height)
        )

    def is_symmetric_under(self, transform) -> bool:
        """Whether ``transform`` (a cell map on the bounding box) maps the layout onto itself."""
        return {transform(c) for c in self.cells} == set(self.cells)


def parse_layout(text: str, name: str = "custom", where: str | None = None) -> Layout:
    """Parse layout text.  Raises :class:`FciError` naming the first problem."""
    where = where or f"layout {name!r}"
    rows: list[str] = []
    about = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("#"):
            about.append(line.lstrip("# "))
            continue
        if not line:
            continue
        bad = set(line) - {"X", "x", "."}
        if bad:
            raise FciError(f"{where}: line {lineno} has {sorted(bad)[0]!r}; use 'X' for a dealt cell and '.' for an open one")
        rows.append(line.upper())
    cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X"]
    if not MIN_CELLS <= len(cells) <= MAX_CELLS:
        raise FciError(f"{where}: has {plural(len(cells), 'dealt cell')}; a layout needs {MIN_CELLS} to {MAX_CELLS}")
    # Trim to the bounding box of the dealt cells, so (0, 0) is its top-left.
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    cells = [(r - r0, c - c0) for r, c in cells]
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    return Layout(name, tuple(cells), height, width, " ".join(about))


def _layout_dir():
    """The shipped layout files: package data when installed, the top-level folder in a source tree."""
    try:
        return resources.files("fci_solver.layout_files")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / "layouts"


def builtin_layout(name: str) -> Layout:
    text = _layout_dir().joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return parse_layout(text, name)


def load_layout(spec: str | Path | Layout) -> Layout:
    """A layout by built-in name, or from a file path."""
    if isinstance(spec, Layout):
        return spec
    spec = str(spec)
    if spec.lower() in LAYOUT_NAMES:
        return builtin_layout(spec.lower())
    path = Path(spec)
    if path.suffix or "/" in spec or path.exists():
        text = read_user_text(path, "layout file")
        return parse_layout(text, path.stem, f"layout file {spec!r}")
    raise FciError(f"unknown layout {spec!r} (built-in: {', '.join(LAYOUT_NAMES)}; or a path to a layout file)")


def all_layouts() -> list[Layout]:
    return [builtin_layout(n) for n in LAYOUT_NAMES]
