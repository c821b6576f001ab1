"""What a solve proves: the result type both engines return."""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Turn
from .interrupt import Interrupted
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


class Stopped(Interrupted):
    """Ctrl-C stopped a solve: ``result`` holds the best line found by then and the bound proven
    (``exact`` only when that line reaches the bound; ``extra["interrupted"]`` is True)."""

    def __init__(self, result: SolveResult):
        super().__init__()
        self.result = result
