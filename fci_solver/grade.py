"""How hard is a deal?  Facts the exact search proves, and a tier computed only from them.

Facts (see ``RULES.md``, "Grading"):

* the minimum result with every choice of sea animals (none, Shark, Whale, both), and so which
  sea animals the deal *needs* for its best result;
* the distinct first turns of the deal as served, and how many of them still allow its minimum
  (the deal's *forgiveness*);
* the chance that a player who picks uniformly among legal turns at every step ends with at most
  ``target`` stacks, by exact dynamic programming over the state DAG (no sampling), with the
  shortest and longest winning lines.  This walk is only possible when the DAG is small enough
  (``max_states``); on full 16-card deals it is not, and the fact is reported as unknown.

The tier depends only on the forgiveness and on whether the served sea animals are needed, so it
is defined for every deal whose forgiveness was settled within the time budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

from .cards import CardTable
from .errors import FciError
from .position import Position, sea_list
from .bitboard.search import BitboardSolver, Engine, dag_walk, key_of

TIERS = ("easy", "medium", "hard", "expert")
# score = log2(first turns / first turns keeping the minimum) + NEED_BONUS if a served sea animal is needed
TIER_FLOORS = (0.0, 1.0, 2.5, 4.5)  # lowest score of easy, medium, hard, expert
NEED_BONUS = 2.0
SEA_CONFIGS = {"none": (False, False), "shark": (True, False), "whale": (False, True), "both": (True, True)}
DEFAULT_MAX_STATES = 1_000_000


def tier_of(score: float | None) -> str | None:
    if score is None:
        return None
    tier = TIERS[0]
    for name, floor in zip(TIERS, TIER_FLOORS):
        if score >= floor:
            tier = name
    return tier


def tier_index(name: str) -> int:
    try:
        return TIERS.index(name)
    except ValueError:
        raise FciError(f"unknown difficulty {name!r}; choose one of {', '.join(TIERS)}") from None


@dataclass(frozen=True)
class Grade:
    """Everything :func:`grade` proved about one position."""

    target: int
    sea: tuple[str, ...]  # the sea animals the deal is served with
    minimum: dict  # sea config -> proven minimum, or None when not settled in time
    needs: str | None  # sea animals needed for the minimum with both: none/shark/whale/both/either
    first_turns: int
    keeping: int | None  # first turns after which the served minimum is still reachable
    keeping_bounds: tuple[int, int]
    chance: float | None  # random player reaches <= target
    shortest: int | None  # turns of the shortest / longest line ending with <= target stacks
    longest: int | None
    dag_states: int | None
    score: float | None
    tier: str | None
    reason: str | None  # why there is no tier
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    @property
    def served_minimum(self) -> int | None:
        return self.minimum.get(sea_word_of(self.sea))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["sea"] = list(self.sea)
        d["keeping_bounds"] = list(self.keeping_bounds)
        d["forgiveness"] = None if self.keeping is None or not self.first_turns else self.keeping / self.first_turns
        d["seconds"] = round(self.seconds, 3)
        return d


def sea_word_of(sea) -> str:
    s = set(sea)
    return "both" if s == {"shark", "whale"} else (next(iter(s)) if s else "none")


def needed(minimum: dict) -> str | None:
    """Which sea animals the minimum with both needs (None when a minimum is unknown)."""
    if any(v is None for v in minimum.values()):
        return None
    best = minimum["both"]
    if minimum["none"] == best:
        return "none"
    shark_ok, whale_ok = minimum["shark"] == best, minimum["whale"] == best
    if shark_ok and whale_ok:
        return "either"
    if shark_ok:
        return "shark"
    if whale_ok:
        return "whale"
    return "both"


def served_need(pos: Position, minimum: dict) -> bool | None:
    """Is some sea animal the deal is served with needed for its served minimum?"""
    served = minimum[sea_word_of(sea_list(pos.shark, pos.whale))]
    if served is None or minimum["none"] is None:
        return None
    return minimum["none"] > served


def score_of(first_turns: int, keeping: int | None, need: bool | None) -> float | None:
    if keeping is None or need is None or keeping == 0:
        return None
    return math.log2(first_turns / keeping) + (NEED_BONUS if need else 0.0)


class _Clock:
    def __init__(self, limit: float | None):
        self.end = None if limit is None else time.perf_counter() + limit

    def deadline(self, share: float | None = None):
        """A deadline for one step: the whole budget, or ``share`` seconds of it."""
        if self.end is None:
            return None if share is None else time.perf_counter() + share
        now = time.perf_counter()
        return min(self.end, now + share) if share is not None else self.end

    @property
    def over(self) -> bool:
        return self.end is not None and time.perf_counter() > self.end


def grade(pos: Position, cards: CardTable, target: int = 1, time_limit: float | None = None,
          max_states: int = DEFAULT_MAX_STATES, memory: int | None = None, progress=None,
          tier_only: bool = False, state_limit: int | None = None) -> Grade:
    """Grade ``pos`` (usually a fresh deal) against ``target`` with the bitboard engine.

    ``time_limit`` (seconds) and ``state_limit`` (search states, the same on every machine) bound
    the searches; facts not settled within them are None and the tier is then None too.  ``progress(done, best, unit)`` is called now and then.  ``tier_only`` settles just
    the facts the tier needs (the served and the no-sea minimum, the forgiveness): the generator's
    inner loop.
    """
    t0 = time.perf_counter()
    clock = _Clock(time_limit)
    eng = Engine(pos.board, cards)
    solver = BitboardSolver(cards, memory=memory)
    solver._alloc_table()
    solver.states = 0

    # 1. minimum with each choice of sea animals (one table: the keys include the sea bits)
    minimum = {}
    wanted = {"none", sea_word_of(sea_list(pos.shark, pos.whale))} if tier_only else set(SEA_CONFIGS)
    for name, (shark, whale) in SEA_CONFIGS.items():
        if name not in wanted:
            minimum[name] = None
            continue
        minimum[name] = _minimum(solver, eng, pos.replace(shark=shark, whale=whale), clock, state_limit)
        if progress:
            progress(solver.states, None, "states")
    served = minimum[sea_word_of(sea_list(pos.shark, pos.whale))]

    # 2. forgiveness: first turns that keep the served minimum
    root = key_of(pos)
    kids = sorted(eng.next_states(root))
    good = bad = 0
    undecided = list(kids)
    if served is not None and not (tier_only and served > target):
        # Rounds over the undecided first turns with growing state budgets, so that one hard first
        # turn cannot starve the rest; budgets are states, not seconds, so a grade with
        # ``state_limit`` is the same on every machine.
        for share in (20_000, 1_000_000, None):
            left = []
            for ch in undecided:
                room = None if state_limit is None else state_limit - solver.states
                if clock.over or (room is not None and room <= 0):
                    left.append(ch)
                    continue
                if eng.lower_bound(ch) > served:
                    bad += 1
                    continue
                cap = share if room is None else (room if share is None else min(share, room))
                v = solver.value(eng, ch, served + 1, clock.deadline(), cap)
                if v is None:
                    left.append(ch)
                elif v <= served:
                    good += 1
                else:
                    bad += 1
                if progress:
                    progress(good + bad, None, "first turns")
            undecided = left
            if not undecided:
                break
    keeping = good if served is not None and not undecided else None
    bounds = (good, len(kids) - bad) if served is not None else (0, len(kids))

    # 3. the random player's chance and the line lengths, when the DAG is small enough
    chance = shortest = longest = dag_states = None
    if not clock.over and not tier_only and max_states > 0 and (state_limit is None or solver.states < state_limit):
        w = dag_walk(pos, cards, target, max_states=max_states, eng=eng)
        if w.complete:
            e = w.entry(root)
            chance, shortest, longest = (e[0], e[1], e[2]) if e else (0.0, None, None)
            dag_states = w.states

    need = served_need(pos, minimum)
    reason = None
    if served is not None and served > target:
        reason = f"the deal cannot end with {target} or fewer stacks (its minimum is {served})"
        score = None
    elif served is None or keeping is None or need is None:
        reason = "not every fact was proven within the time limit"
        score = None
    elif not kids:
        reason = "the deal has no legal turn"
        score = None
    else:
        score = score_of(len(kids), keeping, need)
    return Grade(target, tuple(sea_list(pos.shark, pos.whale)), minimum, needed(minimum), len(kids), keeping,
                 bounds, chance, shortest, longest, dag_states, score, tier_of(score), reason,
                 time.perf_counter() - t0, {"states": solver.states})


def _minimum(solver: BitboardSolver, eng: Engine, pos: Position, clock: _Clock, state_limit: int | None) -> int | None:
    """The proven minimum from ``pos``, or None when the time or the states ran out."""
    key = key_of(pos)
    beta = eng.lower_bound(key) + 1
    while beta <= len(pos):
        room = None if state_limit is None else state_limit - solver.states
        if room is not None and room <= 0:
            return None
        v = solver.value(eng, key, beta, clock.deadline(), room)
        if v is None:
            return None
        if v < beta:
            return v
        beta = v + 1
    return len(pos)
