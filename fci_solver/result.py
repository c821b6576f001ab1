"""What a solve proves: the result type both engines return."""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Turn
from .position import Position


@dataclass
class SolveResult:
    """What a solve proves, with one line that reaches the best result found."""

    start: Position
    min_remaining: int  # the best result found (the minimum when ``exact``)
    lower_bound: int  # proven: no line ends with fewer stacks
    line: list[Turn]
    positions: list[Position]  # after each turn of ``line``
    exact: bool
    states: int
    seconds: float
    engine: str
    extra: dict = field(default_factory=dict)
