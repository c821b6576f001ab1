"""At the table: hints and an interactive game in the terminal.

:func:`hint` answers "what should I do next, and what does it keep
reachable?".  :class:`Session` is the game loop of ``fci play`` with its input
and output passed in, so it runs the same under a person, a pipe or a test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from .cards import CardTable
from .errors import FciError
from .notation import parse_human_turn, turn_to_human
from .position import Position, rank_name
from . import rules
from .search import solve


@dataclass(frozen=True)
class Hint:
    turn: tuple | None  # None when the game is over
    text: str
    after: Position | None
    min_remaining: int  # best reachable from the position (exact when ``exact``)
    exact: bool
    lower_bound: int


def hint(pos: Position, cards: CardTable, time_limit: float | None = None, engine: str = "bitboard",
         progress=None) -> Hint:
    """The best next turn from ``pos`` and the minimum result it keeps reachable."""
    r = solve(pos, cards, engine=engine, time_limit=time_limit, progress=progress)
    if not r.line:
        return Hint(None, "", None, r.min_remaining, r.exact, r.lower_bound)
    return Hint(r.line[0], turn_to_human(r.line[0], pos), r.positions[0], r.min_remaining, r.exact, r.lower_bound)


HELP = """Type a turn in human notation, e.g. '12 d3xe3; move f4-h4' (actions separated by ';').
Commands: moves (list legal turns), hint, undo, board, help, quit."""


class Session:
    """One game of ``fci play``: ``lines`` gives the input, ``out`` prints."""

    def __init__(self, start: Position, cards: CardTable, out: Callable[[str], None], target: int = 3,
                 time_limit: float | None = None, prompt: Callable[[str], None] | None = None):
        self.history = [start]
        self.cards = cards
        self.out = out
        self.target = target
        self.time_limit = time_limit
        self.prompt = prompt

    @property
    def pos(self) -> Position:
        return self.history[-1]

    def show(self) -> None:
        p = self.pos
        self.out(p.grid())
        self.out(f"   {p.status()}; turn {len(self.history)}")

    def legal_turns(self, limit: int = 60) -> tuple[list[str], int]:
        """Distinct outcomes without the Whale first, one turn each (the Whale multiplies them hugely)."""
        out = [turn_to_human(t, self.pos) for t, _ in rules.successors(self.pos, self.cards, whale_before=False).values()]
        return out[:limit], len(out)

    def run(self, lines: Iterable[str]) -> int:
        """Play until the game ends, input runs out, or 'quit'; returns the number of stacks left."""
        self.out(HELP)
        self.show()
        it = iter(lines)
        while not rules.is_over(self.pos, self.cards):
            if self.prompt:
                self.prompt("turn> ")
            try:
                line = next(it).strip()
            except StopIteration:
                self.out("(input ended)")
                return len(self.pos)
            if not line:
                continue
            cmd = line.lower()
            if cmd in ("quit", "q", "exit"):
                self.out(f"Stopped with {len(self.pos)} stacks.")
                return len(self.pos)
            if cmd in ("help", "?"):
                self.out(HELP)
            elif cmd in ("board", "b"):
                self.show()
            elif cmd in ("undo", "u"):
                if len(self.history) > 1:
                    self.history.pop()
                    self.out("Undone.")
                    self.show()
                else:
                    self.out("Nothing to undo.")
            elif cmd in ("moves", "m", "list"):
                shown, total = self.legal_turns()
                self.out(f"{total} distinct outcomes without the Whale" + (f" (first {len(shown)})" if total > len(shown) else "") + ":")
                for t in shown:
                    self.out(f"  {t}")
                if self.pos.whale:
                    self.out("  ...and any turn that starts with 'whale FROM-TO; '")
            elif cmd in ("hint", "h"):
                h = hint(self.pos, self.cards, self.time_limit)
                exact = "" if h.exact else f" (not exact: proven at least {h.lower_bound})"
                self.out(f"Hint: {h.text}  -> best reachable: {h.min_remaining} ({rank_name(h.min_remaining)}){exact}")
            else:
                try:
                    turn = parse_human_turn(line, self.pos.board, self.pos)
                    nxt = rules.play_turn(self.pos, turn, self.cards)
                except FciError as e:
                    self.out(f"Illegal: {e}")
                    continue
                self.history.append(nxt)
                self.show()
        n = len(self.pos)
        verdict = "you win" if n <= self.target else "you lose"
        self.out(f"Game over: {n} stack{'s' if n != 1 else ''} left - {rank_name(n)} ({verdict}, target {self.target}).")
        return n
