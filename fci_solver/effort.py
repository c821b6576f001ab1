"""Whole-game difficulty as effort: how much calculation the hardest decision of a deal needs.

At a decision, a player must find a turn after which the deal's minimum is still reachable, and
see that it is.  The *effort* of a decision is the least work that shows one: over its options
(distinct next positions), the fewest search states with which the project's search, started
afresh from that option ("can the minimum still be reached from here?", nearest-first move
order, an empty table), proves that it keeps the minimum.  A decision with one option costs
nothing.  The *effort line* plays, at each position, the option proven with the least effort (the
first in the engine's order on a tie), from the deal to the end; the deal's *effort* is that of
its hardest decision on the line.

Every figure is exact: the search is deterministic, so "proven within b states" holds for every
budget b from the figure up and for none below it.  Searches are run with budgets 16, 32, 64,
... until one option is proven, so a decision costs at most twice the states of its options'
searches up to its effort; ``limit`` caps the budget (the figure is then only bounded below).
Why effort and not only the bits of :mod:`.difficulty`: players who check each turn with a
budget of B search states won every one of 200 graded deals in at least half their games once B
passed the deal's effort, and their success follows the effort far more closely than the bits
(benchmarks/RESULTS.md).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from . import interrupt
from .cards import CardTable
from .notation import line_to_human
from .position import Position
from .bitboard import kernels as K
from .bitboard.fresh import REFUTED, fresh_needs
from .bitboard.codec import key_of
from .bitboard.engine import Engine
from .bitboard.line import keys_to_line
from .bitboard.search import SHORT_CHUNK, BitboardSolver, max_table_entries

FIRST_BUDGET = 16  # no option can be proven with fewer states than the turns left to play: start near there
LIMIT = 100_000  # default cap on a decision's budget
TABLE_MIB = 8  # each search's own table: the budgets are small
# A table sized to the budget: slots per state allowed.  A decision with the Whale has 10^4-10^5
# options, each searched afresh at budgets from 16 up, and a fresh table of 2^18 entries cost
# 73 us of zeroing and page faults a search: 60% of the effort line (eight deal 3, both sea
# animals).  A search that evicts nothing gives the same states on any table size, and at an
# eighth full a window of 8 probes is almost never full (the same figures on 44 deals: RESULTS.md).
SLOTS_PER_STATE = 8


@dataclass(frozen=True)
class Step:
    """One decision of the effort line."""

    turn: int  # 1 for the deal itself
    options: int  # distinct next positions
    effort: int | None  # search states that prove the played option keeps the minimum; None: more than the limit
    proven: int  # options proven to keep the minimum within that effort (all of them tie)
    played: str  # the turn played, in human notation ("" once the line stops at the limit)
    position: Position | None = None  # before the turn

    @property
    def forced(self) -> bool:
        return self.options == 1

    def to_dict(self) -> dict:
        return {"turn": self.turn, "options": self.options, "effort": self.effort, "proven": self.proven,
                "played": self.played}


@dataclass(frozen=True)
class Effort:
    """The effort line of a position and its hardest decision."""

    minimum: int
    steps: tuple[Step, ...]
    limit: int
    states: int  # search states spent computing it
    seconds: float

    @property
    def exact(self) -> bool:
        return all(s.effort is not None for s in self.steps)

    @property
    def hardest(self) -> int | None:
        """The deal's effort: the largest effort of a decision on the line (None: above the limit)."""
        return max((s.effort for s in self.steps), default=0) if self.exact else None

    @property
    def bounds(self) -> tuple[int, float]:
        """Proven ``lo <= effort <= hi`` (``hi`` infinite when a decision needs more than the limit)."""
        if self.exact:
            return self.hardest, self.hardest
        return self.limit + 1, float("inf")

    def hardest_step(self) -> Step | None:
        worst = None
        for s in self.steps:
            if s.effort is None:
                return s
            if worst is None or s.effort > worst.effort:
                worst = s
        return worst

    def to_dict(self) -> dict:
        lo, hi = self.bounds
        return {"effort": self.hardest, "effort_bounds": [lo, None if hi == float("inf") else hi],
                "effort_limit": self.limit, "steps": [s.to_dict() for s in self.steps], "effort_states": self.states}


def option_effort(eng: Engine, cards: CardTable, key, minimum: int, budget: int) -> int | None:
    """States a fresh search needs to prove that ``minimum`` is reachable from ``key``, if at most
    ``budget``; else None (not proven within it: unreachable, or more work)."""
    solver = BitboardSolver(cards, memory=TABLE_MIB, chunk=SHORT_CHUNK)
    solver.once = False  # the search the tiers were calibrated with: both orders of a double move
    solver.start_table(_table_entries(budget))
    v = solver.value(eng, key, minimum + 1, max_states=budget, near_first=True)
    return solver.states if v is not None and v <= minimum else None


def _table_entries(budget: int) -> int:
    """The table of a search capped at ``budget`` states: the power of two of at least
    ``SLOTS_PER_STATE`` slots a state (2^10 at least), at most the memory's (the kernel that
    searches many options sizes each one's table by the same function)."""
    return int(K.table_entries(SLOTS_PER_STATE, budget, max_table_entries(TABLE_MIB)))


def decision_effort(eng: Engine, options: list, minimum: int, limit: int,
                    deadline: float | None = None, jobs: int = 1,
                    progress=None) -> tuple[int | None, int, object, int]:
    """(effort, options proven with it, the first of them, states spent) for one decision whose
    ``options`` are next position keys in the engine's order; effort None when above ``limit``.
    ``jobs`` threads search the options (the figures do not depend on it).  ``progress(done,
    total, budget)`` is called as options are searched."""
    if len(options) == 1:
        return 0, 1, options[0], 0
    candidates = [ch for ch in options if eng.lower_bound(ch) <= minimum]
    keys = np.array(candidates, dtype=np.uint64).reshape(-1, 3)
    # an option whose search ended within a budget without a line has none: a larger budget
    # runs the same search to the same end, so it is not searched again
    refuted = np.zeros(len(candidates), bool)
    spent, budget = 0, FIRST_BUDGET
    while True:
        budget = min(budget, limit)
        report = (lambda done, budget=budget: progress(done, len(candidates), budget)) if progress else None
        needs, cost = _needs(eng, keys, refuted, minimum, budget, deadline, jobs, report)
        spent += cost
        found = needs[needs > 0]
        if found.size:
            best = int(found.min())
            return best, int((needs == best).sum()), candidates[int(np.argmax(needs == best))], spent
        if budget >= limit:
            return None, 0, None, spent
        refuted |= needs == REFUTED
        budget *= 2


def _needs(eng: Engine, keys: np.ndarray, refuted: np.ndarray, minimum: int, budget: int,
           deadline: float | None, jobs: int, report=None) -> tuple[np.ndarray, int]:
    """Each candidate's states to be proven within ``budget`` (a figure > 0), else
    :data:`~.bitboard.fresh.NOT_WITHIN` or :data:`~.bitboard.fresh.REFUTED` (``refuted`` ones are
    not searched), except that a candidate needing more than the least found so far may read
    NOT_WITHIN: it cannot be the figure.  Also the states spent.  ``report(searched)`` is called
    as candidates are searched."""
    n = keys.shape[0]
    needs = np.where(refuted, REFUTED, -1).astype(np.int64)
    least = np.array([budget], np.int64)  # shared by the threads; a stale read only searches a little further
    rows = _table_entries(budget)
    lock, searched = threading.Lock(), [0]

    def tell(k: int) -> None:
        with lock:
            searched[0] += k
            report(searched[0])

    def run(eng: Engine, part) -> int:
        mine = needs[part].copy()  # contiguous, as the kernel is compiled for; written back whole
        spent = fresh_needs(eng, keys[part], mine, minimum + 1, budget, least, SLOTS_PER_STATE, rows, deadline,
                            tell if report else None)
        needs[part] = mine
        return spent

    if jobs <= 1 or n < 2 * jobs:
        return needs, run(eng, slice(0, n))
    # a decision with the Whale has 10^4-10^5 options: shared out
    engines = [eng] + [eng.copy() for _ in range(jobs - 1)]
    with interrupt.pool(jobs) as pool:
        spent = sum(pool.map(lambda j: run(engines[j], slice(j, n, jobs)), range(jobs)))
    return needs, spent


def effort(pos: Position, cards: CardTable, minimum: int, *, eng: Engine | None = None, limit: int = LIMIT,
           deadline: float | None = None, jobs: int = 1, progress=None) -> Effort:
    """The effort line of ``pos``, whose proven minimum is ``minimum``.  The line stops at the
    first decision above ``limit`` (the deal's effort is then only bounded: more than ``limit``).
    Raises :class:`TimeoutError` when ``deadline`` (a ``time.perf_counter()`` value) passes.
    ``jobs`` threads search each decision's options; the line does not depend on it.
    ``progress(turn, done, total, budget)``: options of the decision before ``turn`` searched."""
    t0 = time.perf_counter()
    eng = (eng or Engine(pos.board, cards)).calibrated()
    key, path, found, states = key_of(pos), [], [], 0
    while True:
        options = eng.sorted_next_states(key)
        if not options:
            break
        turn = len(found) + 1
        e, proven, nxt, spent = decision_effort(eng, options, minimum, limit, deadline, jobs,
                                                (lambda *a, turn=turn: progress(turn, *a)) if progress else None)
        states += spent
        found.append((len(found) + 1, len(options), e, proven))
        if nxt is None:
            break
        path += _keys_between(eng, key, nxt)
        key = nxt
    turns, after = keys_to_line(pos, path, cards)
    human = line_to_human(pos, turns, after)
    before = [pos] + list(after)
    steps = tuple(Step(t, n, e, p, human[t - 1] if e is not None and t <= len(human) else "",
                       before[t - 1] if t <= len(before) else None)
                  for t, n, e, p in found)
    return Effort(minimum, steps, limit, states, time.perf_counter() - t0)


def _keys_between(eng: Engine, key, nxt) -> list:
    """The keys from ``key`` to its next position ``nxt``: ``[nxt]``, or the after-Whale half-step
    first when the turn starts with the Whale (the way the reference engine replays a line)."""
    kids = eng.children(key)
    if nxt in kids:
        return [nxt]
    half = next(ch for ch in kids if ch[2] & K.PHASE_BIT and nxt in eng.children(ch))
    return [half, nxt]


def effort_table(e: Effort, all_rows: bool = True, show: int = 3) -> list[str]:
    """The effort line as a short text table; ``all_rows=False``: the ``show`` hardest decisions only."""
    head = (f"Effort of the hardest decision: {e.hardest:,} search states" if e.exact
            else f"Effort of the hardest decision: more than {e.limit:,} search states")
    rows = [head, " turn  options  effort  played"]
    keep = set(range(len(e.steps)))
    if not all_rows:
        order = sorted(range(len(e.steps)), key=lambda i: -(e.steps[i].effort if e.steps[i].effort is not None else 1 << 62))
        keep = set(order[:show])
    hard = e.hardest_step()
    for i, s in enumerate(e.steps):
        if i not in keep:
            continue
        eff = "forced" if s.forced else (f"{s.effort:,}" if s.effort is not None else f">{e.limit:,}")
        mark = "  <- hardest" if s is hard and not s.forced else ""
        rows.append(f"{s.turn:>5} {s.options:>8,} {eff:>7}  {s.played}{mark}")
    return rows
