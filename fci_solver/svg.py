"""Printable SVG drawings of a puzzle and of its solution (plain SVG 1.1, no dependency)."""

from __future__ import annotations

from html import escape

from .cards import CardTable
from .position import Position, _col_letters

CELL = 64  # px per cell on the puzzle page
MINI = 30  # px per cell on the solution page


def label_size(label: str, cell: float, font: float) -> float:
    """The font size at which ``label`` fits a cell with a margin (a bold digit is about 0.6 em wide)."""
    return min(font, 0.8 * cell / (0.6 * len(label)))


def _board(pos: Position, cards: CardTable | None, x0: float, y0: float, cell: float, names: bool) -> list[str]:
    b = pos.board
    out = []
    font = cell * 0.36
    for i, r in enumerate(b.rows):
        for j, c in enumerate(b.cols):
            x, y = x0 + j * cell, y0 + i * cell
            s = pos.at((r, c))
            fill = "#ffffff" if s is None else "#fdf3d8"
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fill}" stroke="#999" stroke-width="1"/>')
            if s is None:
                continue
            label = str(s.card) + (f":{s.height}" if s.height > 1 else "")
            size = label_size(label, cell, font)
            out.append(f'<text x="{x + cell / 2}" y="{y + cell * (0.5 if not names else 0.45)}" font-size="{size:.1f}" '
                       f'text-anchor="middle" dominant-baseline="middle" font-weight="bold">{escape(label)}</text>')
            if names and cards is not None:
                out.append(f'<text x="{x + cell / 2}" y="{y + cell * 0.8}" font-size="{cell * 0.16:.1f}" '
                           f'text-anchor="middle">{escape(cards[s.card].name)}</text>')
    # column letters and row numbers, as in the human notation
    for j in range(b.n_cols):
        out.append(f'<text x="{x0 + (j + 0.5) * cell}" y="{y0 - 4}" font-size="{max(9, cell * 0.2):.1f}" '
                   f'text-anchor="middle" fill="#666">{_col_letters(j)}</text>')
    for i in range(b.n_rows):
        out.append(f'<text x="{x0 - 4}" y="{y0 + (i + 0.5) * cell}" font-size="{max(9, cell * 0.2):.1f}" '
                   f'text-anchor="end" dominant-baseline="middle" fill="#666">{i + 1}</text>')
    return out


def _doc(width: float, height: float, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def puzzle_svg(pos: Position, cards: CardTable, title: str, lines: list[str]) -> str:
    """The start position, large, with card numbers and names, a title and a few lines of facts."""
    b = pos.board
    pad, top = 30, 60 + 18 * len(lines)
    body = [f'<text x="{pad}" y="30" font-size="20" font-weight="bold">{escape(title)}</text>']
    body += [f'<text x="{pad}" y="{54 + 18 * i}" font-size="13">{escape(t)}</text>' for i, t in enumerate(lines)]
    body += _board(pos, cards, pad + 10, top + 10, CELL, True)
    return _doc(2 * pad + 10 + b.n_cols * CELL, top + 10 + b.n_rows * CELL + pad, body)


def solution_svg(start: Position, positions: list[Position], turns: list[str], title: str, per_row: int = 4,
                 narrow: dict | None = None) -> str:
    """The start and the position after every turn of the line, small, each captioned with its turn.

    ``narrow`` maps a turn number to its (keeping, options): that turn's caption and frame are
    marked, since the decision before it was a narrow one.
    """
    b = start.board
    narrow = narrow or {}
    w, h = b.n_cols * MINI + 24, b.n_rows * MINI + 58
    frames = [(start, "start", None)] + [(p, f"{i + 1}. {t}", narrow.get(i + 1))
                                         for i, (p, t) in enumerate(zip(positions, turns))]
    body = [f'<text x="16" y="28" font-size="18" font-weight="bold">{escape(title)}</text>']
    if narrow:
        body.append('<text x="16" y="44" font-size="11" fill="#b00">red: a narrow decision '
                    '(fewer than 1 turn in 20 keeps the perfect result)</text>')
    for k, (p, caption, mark) in enumerate(frames):
        x, y = 16 + (k % per_row) * w, 56 + (k // per_row) * h
        colour = ' fill="#b00" font-weight="bold"' if mark else ""
        body.append(f'<text x="{x + 14}" y="{y + 12}" font-size="11"{colour}>{escape(caption)}</text>')
        if mark:
            body.append(f'<text x="{x + 14}" y="{y + 25}" font-size="10" fill="#b00" class="narrow">'
                        f'{mark[0]} of {mark[1]} turns keep it</text>')
            body.append(f'<rect x="{x + 10}" y="{y + 30}" width="{b.n_cols * MINI + 8}" height="{b.n_rows * MINI + 8}" '
                        f'fill="none" stroke="#b00" stroke-width="2"/>')
        body += _board(p, None, x + 14, y + 34, MINI, False)
    rows = (len(frames) + per_row - 1) // per_row
    return _doc(32 + min(per_row, len(frames)) * w, 56 + rows * h, body)
