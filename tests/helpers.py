"""Small helpers so each rules test can draw its position and name its turn."""

from __future__ import annotations

from fci_solver import rules
from fci_solver.cards import standard_cards
from fci_solver.notation import parse_human_turn
from fci_solver.position import Position, parse_position_text

CARDS = standard_cards()


def board(text: str, sea: str = "none", pending: str = "none", margin: int = 1) -> Position:
    """A position drawn as a grid ('.' open, '7' an animal, '7:2' a stack), (0, 0) at the top-left."""
    return parse_position_text(f"sea: {sea}\npending: {pending}\nmargin: {margin}\n{text}")


def eats(pos: Position) -> set[tuple[int, int]]:
    """(predator card, prey card) of every normal eat available without the Whale."""
    return {
        (pos.at(a.frm).card, pos.at(a.to).card)
        for a in rules.normal_eats(pos, pos.pending)
    }


def shark_eats(pos: Position) -> set[tuple[int, int]]:
    return {(pos.at(a.frm).card, pos.at(a.to).card) for a in rules.shark_eats(pos)}


def play(pos: Position, turn: str, cards=CARDS) -> Position:
    """Play one turn written in human notation (checked by the rules)."""
    return rules.play_turn(pos, parse_human_turn(turn, pos.board, pos), cards)


def layout_of(pos: Position) -> dict[int, tuple[tuple[int, int], int]]:
    """card -> (cell, height) of every stack."""
    return {s.card: (s.cell, s.height) for s in pos.stacks}


# Small deals with every choice of sea animals, each solved by brute force in a blink.
SMALL = [
    board("9 8 7\n6 5 .", sea="shark"),
    board("4 3 2\n1 0 .", sea="none"),
    board("12 10 9\n. 8 11", sea="whale"),
    board("7 5 4 3", sea="none", margin=1),
    board("11 9 8\n5 . 6", sea="both"),
]


COMPILE = 0.5  # the seconds :func:`slow_first_load` pretends a first run's compile takes


def slow_first_load(monkeypatch, module) -> float:
    """Make ``module.load_kernels`` (a grade's or a perfect-play graph's) take :data:`COMPILE`
    seconds more, as a first run's compile would; returns ``compile_seconds`` before."""
    import time

    from fci_solver.bitboard import search as bs

    real = module.load_kernels

    def slow(notice=None):
        with bs.compiling(notice):
            time.sleep(COMPILE)
        real(notice)

    monkeypatch.setattr(module, "load_kernels", slow)
    return bs.compile_seconds
