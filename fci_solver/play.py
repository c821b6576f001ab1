"""At the table: hints and an interactive game in the terminal.

:func:`hint` answers "what should I do next, and what does it keep
reachable?".  :class:`Session` is the game loop of ``fci play`` with its input
and output passed in, so it runs the same under a person, a pipe or a test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .cards import CardTable
from .errors import FciError
from .interrupt import Interrupted, resume
from .text import plural
from .notation import parse_human_turn, turn_to_human
from .position import Position, rank_name
from . import rules
from .search import Stopped, solve


@dataclass(frozen=True)
class Hint:
    turn: tuple | None  # None when the game is over
    text: str
    after: Position | None
    min_remaining: int  # best reachable from the position (exact when ``exact``)
    exact: bool
    lower_bound: int


class HintStopped(Interrupted):
    """Ctrl-C stopped :func:`hint`: ``hint`` is the first turn of the best line found by then."""

    def __init__(self, hint: Hint):
        super().__init__()
        self.hint = hint


def hint(pos: Position, cards: CardTable, time_limit: float | None = None, engine: str = "bitboard",
         progress=None) -> Hint:
    """The best next turn from ``pos`` and the minimum result it keeps reachable.  Ctrl-C
    raises :class:`HintStopped` with the best turn found by then."""
    try:
        r = solve(pos, cards, engine=engine, time_limit=time_limit, progress=progress)
    except Stopped as e:
        raise HintStopped(_hint_of(pos, e.result)) from None
    return _hint_of(pos, r)


def _hint_of(pos: Position, r) -> Hint:
    if not r.line:
        return Hint(None, "", None, r.min_remaining, r.exact, r.lower_bound)
    return Hint(r.line[0], turn_to_human(r.line[0], pos), r.positions[0], r.min_remaining, r.exact, r.lower_bound)


HELP = """Type a turn in human notation, e.g. '12 d3xe3; move f4-h4' (actions separated by ';'),
or just the eat ('12 d3xe3'): you are then asked for the ability.
Commands: moves [CARD] (the turns, grouped by eat; CARD: only that animal's), hint, undo, redo,
save FILE, board, help, quit.  Ctrl-C asks before it quits."""

CELL_WIDTH = 6  # a stable board: room for '*12:11' (the last move's cells are starred)
INTERRUPT = object()  # what an input source yields when the player presses Ctrl-C


class Session:
    """One game of ``fci play``: ``lines`` gives the input, ``out`` prints.

    ``lines`` yields the player's lines (or :data:`INTERRUPT` for Ctrl-C); ``prompt`` shows a
    prompt before each is read (interactive input leaves it None: ``input()`` prints its own).
    """

    def __init__(self, start: Position, cards: CardTable, out: Callable[[str], None], target: int = 3,
                 time_limit: float | None = None, prompt: Callable[[str], None] | None = None,
                 line: list | None = None, progress_factory=None):
        self.history = [start]
        self.turns: list = []  # the turns played, for undo, save and the last-move mark
        self.redo_stack: list = []
        self.cards = cards
        self.out = out
        self.target = target
        self.time_limit = time_limit
        self.prompt = prompt
        self.progress_factory = progress_factory
        for turn in line or ():
            self._play(turn)
        self.redo_stack.clear()

    @property
    def pos(self) -> Position:
        return self.history[-1]

    def _play(self, turn) -> None:
        self.history.append(rules.play_turn(self.pos, turn, self.cards))
        self.turns.append(turn)

    def last_cells(self) -> set:
        """The cells the last turn's actions ended on (its eat, moves, swaps), to mark on the board."""
        if not self.turns:
            return set()
        cells = set()
        for a in self.turns[-1]:
            for name in ("to", "a", "b"):
                if hasattr(a, name):
                    cells.add(getattr(a, name))
        return {c for c in cells if self.pos.at(c) is not None}

    def show(self) -> None:
        p = self.pos
        self.out(p.grid(highlight=self.last_cells(), width=CELL_WIDTH))
        last = f"; last turn: {turn_to_human(self.turns[-1], self.history[-2])}" if self.turns else ""
        self.out(f"   {p.status()}; turn {len(self.history)}; target: {self.target} or fewer{last}")

    def legal_turns(self, limit: int = 60) -> tuple[list[str], int]:
        """Distinct outcomes without the Whale first, one turn each (the Whale multiplies them hugely)."""
        out = [turn_to_human(t, self.pos) for t, _ in rules.successors(self.pos, self.cards, whale_before=False).values()]
        return out[:limit], len(out)

    def grouped_moves(self, card: int | None = None) -> list[str]:
        """The turns (without the Whale first) grouped by eat, with a count per eat; with ``card``, that
        animal's turns in full."""
        by_eat: dict[str, list[str]] = {}
        for t, _ in rules.successors(self.pos, self.cards, whale_before=False).values():
            text = turn_to_human(t, self.pos)
            eat, _, rest = text.partition("; ")
            by_eat.setdefault(eat, []).append(text)
        if card is not None:
            mine = {e: ts for e, ts in by_eat.items() if e.split()[0 if not e.startswith("shark") else 1] == str(card)}
            if not mine:
                return [f"{card} has no eat now."]
            lines = []
            for e, ts in mine.items():
                lines.append(f"{e}: {plural(len(ts), 'turn')}")
                lines += [f"    {t}" for t in ts]
            return lines
        lines = [f"{e}: {plural(len(ts), 'turn')}" for e, ts in by_eat.items()]
        lines.append("(moves CARD lists one animal's turns in full)")
        if self.pos.whale:
            lines.append("...and any turn may start with 'whale FROM-TO; '")
        return lines

    def read_turn(self, line: str, it) -> tuple | None:
        """Parse a turn; when only its first part was typed (the eat), ask for the rest."""
        turn = parse_human_turn(line, self.pos.board, self.pos)
        while True:
            ts = rules.TurnState.begin(self.pos)
            for i, action in enumerate(turn, 1):
                try:
                    rules.check_action(ts, action, self.cards)
                except FciError as e:
                    raise FciError(f"action {i} ({action.op}): {e}") from None
                ts = rules.advance(ts, action, self.cards)
            if ts.phase in ("end", "done"):
                return turn
            if ts.phase == "ability":
                card = self.cards[ts.predator]
                ask = f"Now the {card.name}'s ability ({card.describe()}), e.g. " + \
                      turn_to_human(rules.legal_actions(ts, self.cards)[0:1], ts.pos) + ": "
            elif ts.phase == "raccoon":
                ask = "Now the raccoon's discard (an unstacked animal), e.g. discard c3: "
            else:
                ask = "Now the eat: "
            if self.prompt is None:
                self.out(ask.rstrip())  # piped input: the question still belongs in the transcript
            more = self._next(it, ask)
            if more is None or more is INTERRUPT or not more.strip():
                return None
            turn = turn + parse_human_turn(more.strip(), ts.pos.board, ts.pos)

    def _next(self, it, prompt: str):
        if self.prompt:
            self.prompt(prompt)
        try:
            return next(it)
        except StopIteration:
            return None

    def confirm_quit(self, it) -> bool:
        answer = self._next(it, "Quit the game? [y/N] ")
        return answer is None or answer is INTERRUPT or answer.strip().lower() in ("y", "yes")

    def save(self, path: str) -> None:
        from .notation import sea_json

        start = self.history[0]
        doc = {"position": start.to_dict(), "sea": sea_json(start), "rules": self.cards.name,
               "target": self.target, "line": [[a.to_json() for a in t] for t in self.turns]}
        try:
            Path(path).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            raise FciError(f"cannot write {path!r}: {e.strerror}") from None
        self.out(f"Saved {plural(len(self.turns), 'turn')} to {path} (fci play --load {path} goes on; fci replay checks it).")

    def hint(self) -> None:
        progress = self.progress_factory() if self.progress_factory else None
        head = "Hint"
        try:
            h = hint(self.pos, self.cards, self.time_limit, progress=progress)
        except HintStopped as e:
            resume()
            h, head = e.hint, "Hint stopped. Best turn found so far"
        except Interrupted:
            resume()
            self.out("Hint stopped.")
            return
        finally:
            if progress:
                progress.close()
        exact = "" if h.exact else f" (not exact: proven at least {h.lower_bound})"
        self.out(f"{head}: {h.text}  -> best reachable: {h.min_remaining} ({rank_name(h.min_remaining)}){exact}")

    def run(self, lines: Iterable) -> int:
        """Play until the game ends, input runs out, or 'quit'; returns the number of stacks left."""
        self.out(HELP)
        self.show()
        it = iter(lines)
        while not rules.is_over(self.pos, self.cards):
            line = self._next(it, "turn> ")
            if line is None:
                self.out("(input ended)")
                return len(self.pos)
            if line is INTERRUPT:
                if self.confirm_quit(it):
                    self.out(f"Stopped with {len(self.pos)} stacks.")
                    return len(self.pos)
                continue
            line = line.strip()
            if not line:
                continue
            cmd, _, arg = line.partition(" ")
            cmd = cmd.lower()
            if cmd in ("quit", "q", "exit"):
                self.out(f"Stopped with {len(self.pos)} stacks.")
                return len(self.pos)
            self._command(cmd, arg.strip(), line, it)
        n = len(self.pos)
        verdict = "you win" if n <= self.target else "you lose"
        self.out(f"Game over: {n} stack{'s' if n != 1 else ''} left - {rank_name(n)} ({verdict}, target {self.target}).")
        return n

    def _command(self, cmd: str, arg: str, line: str, it) -> None:
        """Carry out one line of the player's other than 'quit': a command, or else a turn."""
        simple = {"help": lambda: self.out(HELP), "?": lambda: self.out(HELP), "board": self.show, "b": self.show,
                  "undo": self._undo, "u": self._undo, "redo": self._redo, "r": self._redo,
                  "hint": self.hint, "h": self.hint}
        if cmd in simple:
            simple[cmd]()
        elif cmd == "save":
            self._save(arg)
        elif cmd in ("moves", "m", "list"):
            self._moves(arg)
        else:
            self._turn(line, it)

    def _undo(self) -> None:
        if not self.turns:
            self.out("Nothing to undo.")
            return
        self.redo_stack.append(self.turns.pop())
        self.history.pop()
        self.out("Undone.")
        self.show()

    def _redo(self) -> None:
        if not self.redo_stack:
            self.out("Nothing to redo.")
            return
        self._play(self.redo_stack.pop())
        self.out("Redone.")
        self.show()

    def _save(self, path: str) -> None:
        if not path:
            self.out("save FILE: name the file to save the game to.")
            return
        try:
            self.save(path)
        except FciError as e:
            self.out(str(e))

    def _moves(self, card: str) -> None:
        if card and not card.isdigit():
            self.out("moves CARD: give an animal's number, e.g. moves 7")
            return
        for text in self.grouped_moves(int(card) if card else None):
            self.out(f"  {text}")

    def _turn(self, line: str, it) -> None:
        """A turn typed by the player (its steps may ask for more lines from ``it``), played if legal."""
        try:
            turn = self.read_turn(line, it)
        except FciError as e:
            self.out(f"Illegal: {e}")
            return
        if turn is None:
            self.out("Turn abandoned.")
            return
        self._play(turn)
        self.redo_stack.clear()
        self.show()


class TerminalInput:
    """The player's lines from the terminal, with line editing and history (readline), and
    :data:`INTERRUPT` for Ctrl-C instead of ending the program.  :meth:`set_prompt` is the
    session's ``prompt``: the next line is asked for with it."""

    def __init__(self):
        try:
            import readline  # noqa: F401  (imported for its side effect: input() edits lines)
        except ImportError:
            pass
        self.next_prompt = "turn> "

    def set_prompt(self, text: str) -> None:
        self.next_prompt = text

    def __iter__(self):
        while True:
            try:
                yield input(self.next_prompt)
            except EOFError:
                return
            except (Interrupted, KeyboardInterrupt):
                resume()
                print()
                yield INTERRUPT
