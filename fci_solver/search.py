"""The public solve API: one entry point over both engines.

:func:`solve` runs the numba engine (:mod:`.bitboard`) or the pure-Python reference
(:mod:`.reference`); both return a :class:`~.result.SolveResult`.  The names the library has
always offered here (the reference solver, the lower bound, perft) are kept for callers.
"""

from __future__ import annotations

from .bitboard.search import BitboardSolver
from .bound import discard_sources, islands, lower_bound, mover_cards  # noqa: F401  (the library's names)
from .cards import CardTable, standard_cards
from .position import Position
from .reference import ReferenceSolver, TimeUp, perft_levels, perft_suite  # noqa: F401
from .result import SolveResult, Stopped  # noqa: F401

ENGINES = ("bitboard", "reference")


def solve(
    pos: Position,
    cards: CardTable | None = None,
    engine: str = "bitboard",
    time_limit: float | None = None,
    memory: int | None = None,
    progress=None,
    stop_at: int = 0,
    jobs: int = 1,
) -> SolveResult:
    """The minimum result reachable from ``pos``, with a line that reaches it.

    ``engine`` is ``"bitboard"`` (numba, fast) or ``"reference"`` (pure Python).
    With ``time_limit`` (seconds) the answer may be inexact: ``exact`` is then
    False, ``min_remaining`` is the best line found and ``lower_bound`` what
    is proven.  With ``stop_at`` (bitboard engine) the search stops as soon
    as a line ends with at most that many stacks, or it is proven that none
    can: enough to answer "can it be won?", not necessarily exact.  ``jobs`` threads (bitboard
    engine): for a tenth of a second two of them run the search's two move orders at once, then
    all of them share out the root's turns over one table: the same minimum, sooner on deals
    that take over a second; the line may differ from one thread's.
    Ctrl-C raises :class:`Stopped`, holding the best line found by then.
    """
    cards = cards or standard_cards()
    if engine == "reference":
        return ReferenceSolver(cards, time_limit, progress).solve(pos)
    if engine == "bitboard":
        return BitboardSolver(cards, time_limit=time_limit, memory=memory, progress=progress, stop_at=stop_at, jobs=jobs).solve(pos)
    raise ValueError(f"unknown engine {engine!r}")
