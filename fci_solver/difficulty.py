"""Whole-game difficulty: every decision on a deal's solution line, and the bits a player must find.

At each position of the solution line a player faces a decision: of the ``options`` distinct next
positions, ``keeping`` still allow the deal's minimum.  A player who cannot tell them apart keeps
the minimum with chance keeping/options, so the decision costs ``log2(options / keeping)`` bits of
information; the deal's measure, ``bits``, is the sum over the line.  The first decision is the
old first-turn forgiveness; the narrow decisions are mostly later.

The line is the solution line (``fci solve``'s): at each position, the first turn in the engine's
turn order that keeps the minimum.  Every count is exact.  When a search budget runs out before
every next position is settled, a decision's ``keeping`` is only bounded (the played turn always
keeps, so at least 1), and so is ``bits``: :attr:`Profile.bits_bounds` is then a proven interval.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from . import interrupt
from .cards import CardTable
from .notation import line_to_human
from .position import Position
from .bitboard.codec import key_of
from .bitboard.engine import Engine
from .bitboard.line import keys_to_line
from .bitboard.search import BitboardSolver

NARROW = 20  # a decision is narrow when fewer than 1 in NARROW of its options keep the minimum
ROUNDS = (2_000, 10_000, 50_000, 250_000, 2_000_000, None)  # growing state budgets per next position


def bits_interval(options: int, lo: int, hi: int) -> tuple[float, float]:
    """Proven bounds on a decision's bits when ``lo <= keeping <= hi``."""
    return math.log2(options / hi), math.log2(options / lo)


@dataclass(frozen=True)
class Decision:
    """One position on the solution line: its options, how many keep the minimum, the turn played."""

    turn: int  # 1 for the deal itself
    options: int
    keeping_bounds: tuple[int, int]  # proven: lo <= keeping <= hi (equal once every option is settled)
    played: str  # the turn of the solution line, in human notation
    position: Position  # before the turn

    @property
    def keeping(self) -> int | None:
        lo, hi = self.keeping_bounds
        return lo if lo == hi else None

    @property
    def bits_bounds(self) -> tuple[float, float]:
        return bits_interval(self.options, *self.keeping_bounds)

    @property
    def bits(self) -> float | None:
        return None if self.keeping is None else math.log2(self.options / self.keeping)

    @property
    def narrow(self) -> bool:
        """Proven narrow: fewer than 1 in :data:`NARROW` of the options keep the minimum."""
        return self.keeping_bounds[1] * NARROW < self.options

    def to_dict(self) -> dict:
        lo, hi = self.bits_bounds
        return {"turn": self.turn, "options": self.options, "keeping": self.keeping,
                "keeping_bounds": list(self.keeping_bounds), "bits": None if self.bits is None else round(self.bits, 4),
                "bits_bounds": [round(lo, 4), round(hi, 4)], "narrow": self.narrow, "played": self.played}


@dataclass(frozen=True)
class Profile:
    """The decision profile of a position: every decision on its solution line."""

    minimum: int
    decisions: tuple[Decision, ...]
    states: int  # search states spent classifying next positions
    seconds: float

    @property
    def exact(self) -> bool:
        return all(d.keeping is not None for d in self.decisions)

    @property
    def bits_bounds(self) -> tuple[float, float]:
        return (sum(d.bits_bounds[0] for d in self.decisions), sum(d.bits_bounds[1] for d in self.decisions))

    @property
    def bits(self) -> float | None:
        return sum(d.bits for d in self.decisions) if self.exact else None

    @property
    def narrow(self) -> list[Decision]:
        return [d for d in self.decisions if d.narrow]

    def to_dict(self) -> dict:
        lo, hi = self.bits_bounds
        return {"minimum": self.minimum, "bits": None if self.bits is None else round(self.bits, 4),
                "bits_bounds": [round(lo, 4), round(hi, 4)], "narrow_decisions": len(self.narrow),
                "decisions": [d.to_dict() for d in self.decisions], "profile_states": self.states}


def solution_keys(solver: BitboardSolver, eng: Engine, pos: Position, minimum: int) -> list:
    """The solution line's keys (Whale half-steps included), read from the solver's table."""
    return solver.principal_keys(eng, key_of(pos), minimum, canonical=True)


class Stopped(interrupt.Interrupted):
    """Ctrl-C stopped :func:`profile`: ``profile`` holds the counts settled by then, as bounds."""

    def __init__(self, profile: Profile):
        super().__init__()
        self.profile = profile


class _Tally:
    """What is known of one decision while its next positions are being settled."""

    def __init__(self, options: int):
        self.options, self.good, self.bad = options, 0, 0

    @property
    def bounds(self) -> tuple[int, int]:
        return self.good, self.options - self.bad


def profile(pos: Position, cards: CardTable, minimum: int, *, solver: BitboardSolver | None = None,
            eng: Engine | None = None, jobs: int = 1, memory: int | None = None, state_limit: int | None = None,
            deadline: float | None = None, progress=None, near_first: bool = True) -> Profile:
    """The decision profile of ``pos``, whose proven minimum is ``minimum``.

    Every next position of every position on the solution line is settled by an exact search
    ("can ``minimum`` still be reached?"), in rounds of growing state budgets so that one hard
    position cannot starve the rest.  ``state_limit`` (search states) and ``deadline``
    (``time.perf_counter()`` value) stop it early, leaving bounds.  ``jobs`` threads share the
    work and the solver's table; the counts do not depend on it.
    """
    t0 = time.perf_counter()
    eng = eng or Engine(pos.board, cards)
    solver = solver or BitboardSolver(cards, memory=memory)
    keys = solution_keys(solver, eng, pos, minimum)
    turns, after = keys_to_line(pos, keys, cards)
    if not turns:
        return Profile(minimum, (), 0, time.perf_counter() - t0)
    tallies, items = _decisions([key_of(pos)] + [key_of(p) for p in after], eng, minimum)
    start_states = solver.states
    settler = _Settler(tallies, len(items), minimum, deadline, progress, near_first)

    def settled_profile() -> Profile:
        human = line_to_human(pos, turns, after)
        decisions = tuple(Decision(i + 1, t.options, t.bounds, human[i], pos if i == 0 else after[i - 1])
                          for i, t in enumerate(tallies))
        return Profile(minimum, decisions, solver.states - start_states, time.perf_counter() - t0)

    try:
        if jobs > 1 and len(items) > 1:
            settler.on_threads(items, jobs, solver, lambda: Engine(pos.board, cards), state_limit)
        else:
            settler.run(items, eng, solver, state_limit)
    except interrupt.Interrupted:
        settler.halt()
        # every count settled so far is a fact: the decisions keep them as bounds
        raise Stopped(settled_profile()) from None
    return settled_profile()


def _decisions(line: list, eng: Engine, minimum: int) -> tuple[list[_Tally], list]:
    """A tally for each position of ``line`` but the last, and the next positions still to settle
    as (decision, key): the line's own next position keeps the minimum, and one whose bound is
    above it does not."""
    tallies, items = [], []
    for i, key in enumerate(line[:-1]):
        kids = eng.sorted_next_states(key)
        t = _Tally(len(kids))
        tallies.append(t)
        for ch in kids:
            if ch == line[i + 1]:
                t.good += 1
            elif eng.lower_bound(ch) > minimum:
                t.bad += 1
            else:
                items.append((i, ch))
    return tallies, items


class _Settler:
    """Settles next positions into their decisions' tallies, on one thread or several."""

    def __init__(self, tallies: list[_Tally], total: int, minimum: int, deadline: float | None, progress,
                 near_first: bool):
        self.tallies, self.total, self.minimum = tallies, total, minimum
        self.deadline, self.progress, self.near_first = deadline, progress, near_first
        self.settled = 0
        self.lock = threading.Lock()
        # set when Ctrl-C stopped the profile: a thread left running (the pool does not wait for it)
        # neither counts nor reports again, even once the caller has taken the Ctrl-C and goes on
        self.halted = threading.Event()

    def halt(self) -> None:
        with self.lock:
            self.halted.set()

    def on_threads(self, items: list, jobs: int, solver: BitboardSolver, new_engine, state_limit: int | None) -> None:
        """``items`` shared out over ``jobs`` threads, each with its own engine and a helper of
        ``solver``.  The threads share one table: what one proves, the other finds (seeded deal 1:
        24.3M states on two threads with a table each, about as many as one thread alone with one)."""
        limit = None if state_limit is None else state_limit // jobs
        helpers = solver.helpers(jobs)
        for h in helpers:
            h.cancel = self.halted  # a search under way stops at its next chunk
        engines = [new_engine() for _ in range(jobs)]
        try:
            with interrupt.pool(jobs) as pool:
                list(pool.map(lambda j: self.run(items[j::jobs], engines[j], helpers[j], limit), range(jobs)))
        finally:
            solver.unshare(helpers)

    def run(self, todo: list, eng: Engine, solver: BitboardSolver, limit: int | None) -> list:
        """Rounds over ``todo`` with growing budgets; returns what is still unsettled."""
        spent0 = solver.states
        # Rounds cost more states in all (each search starts again from its next position), but
        # when the work may stop early they settle the cheap positions first: without a limit,
        # one search each is cheapest (seeded deal 1: 14.6M states against 19.8M).
        limited = limit is not None or self.deadline is not None
        for share in ROUNDS if limited else (None,):
            # one more settled option narrows a decision's bits by about 1 / (keeping found so far):
            # the narrow decisions first, where each search buys the most
            todo.sort(key=lambda item: (self.tallies[item[0]].good, -item[0]))
            todo = self._round(todo, share, eng, solver, None if limit is None else limit + spent0)
            if not todo or self.halted.is_set():
                break
        return todo

    def _round(self, todo: list, share: int | None, eng: Engine, solver: BitboardSolver, until: int | None) -> list:
        """One search of at most ``share`` states for each of ``todo`` (none once the solver's
        count reaches ``until`` or the deadline passes); returns those left unsettled."""
        left = []
        for k, (i, ch) in enumerate(todo):
            interrupt.check()
            if self.halted.is_set():
                return todo[k:] + left
            room = None if until is None else until - solver.states
            if (self.deadline is not None and time.perf_counter() > self.deadline) or (room is not None and room <= 0):
                left.append((i, ch))
                continue
            cap = share if room is None else (room if share is None else min(share, room))
            v = solver.value(eng, ch, self.minimum + 1, self.deadline, cap, self.near_first)
            if v is None:
                left.append((i, ch))
            elif not self._count(i, v <= self.minimum):
                return todo[k:] + left
        return left

    def _count(self, i: int, keeps: bool) -> bool:
        """Count a settled next position of decision ``i``; False (and nothing counted) once halted."""
        with self.lock:
            if self.halted.is_set():
                return False
            if keeps:
                self.tallies[i].good += 1
            else:
                self.tallies[i].bad += 1
            self.settled += 1
            if self.progress:
                self.progress(self.settled, self.total)
        return True


def profile_table(p: Profile, all_rows: bool = True) -> list[str]:
    """The profile as a short text table, narrow decisions marked (``all_rows=False``: only
    those, the first, and the ones not settled)."""
    lo, hi = p.bits_bounds
    head = (f"Bits to find along the solution line: {p.bits:.1f}" if p.exact
            else f"Bits to find along the solution line: between {lo:.1f} and {hi:.1f} (not every option settled)")
    rows = [head, f"{len(p.decisions)} decisions, {len(p.narrow)} narrow (fewer than 1 in {NARROW} turns keep the minimum)",
            " turn  options  keeping   bits  played"]
    for d in p.decisions:
        if not (all_rows or d.narrow or d.turn == 1 or d.keeping is None):
            continue
        keep = f"{d.keeping}" if d.keeping is not None else f"{d.keeping_bounds[0]}-{d.keeping_bounds[1]}"
        b = f"{d.bits:6.2f}" if d.bits is not None else f"{d.bits_bounds[0]:.1f}-{d.bits_bounds[1]:.1f}"
        mark = "  <- narrow" if d.narrow else ""
        rows.append(f"{d.turn:>5} {d.options:>8,} {keep:>8} {b:>6}  {d.played}{mark}")
    return rows

