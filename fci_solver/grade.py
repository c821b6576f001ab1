"""How hard is a deal?  Facts the exact search proves, and a tier computed only from them.

Facts (see ``RULES.md``, "Grading"):

* the minimum result with every choice of sea animals (none, Shark, Whale, both), and so which
  sea animals the deal *needs* for its best result;
* the distinct first turns of the deal as served, and how many of them still allow its minimum
  (the deal's *forgiveness*);
* the chance that a player who picks uniformly among legal turns at every step ends with at most
  ``target`` stacks, by exact dynamic programming over the state DAG (no sampling), with the
  shortest and longest winning lines.  This walk is only possible when the DAG is small enough
  (``dag_states``); on full 16-card deals it is not, and the fact is reported as unknown.

The tier depends only on the forgiveness and on whether the served sea animals are needed, so it
is defined for every deal whose forgiveness was settled within the time budget.
"""

from __future__ import annotations

import math
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

from .cards import CardTable
from .errors import FciError
from .position import SEA_CHOICES, Position, sea_list, sea_word
from .bitboard.search import DEFAULT_MEMORY_MIB, BitboardSolver, Engine, dag_walk, key_of

TIERS = ("easy", "medium", "hard", "expert")
# score = log2(first turns / first turns keeping the minimum) + NEED_BONUS if a served sea animal is needed
TIER_FLOORS = (0.0, 1.0, 2.5, 4.5)  # lowest score of easy, medium, hard, expert
NEED_BONUS = 2.0
SEA_CONFIGS = {name: SEA_CHOICES[name] for name in ("none", "shark", "whale", "both")}  # in the order solved
DEFAULT_DAG_STATES = 1_000_000
CHEAP_STATES = 500_000  # below this many search states a tier-only grade settles every first turn
SAMPLE_STATES = 2_000  # each first turn's budget in the first round
ROUNDS = (SAMPLE_STATES, 10_000, 50_000, 250_000, 2_000_000, None)  # growing budgets per first turn
SAMPLE_TURNS = 48  # in the generator's loop, first turns tried before judging the deal by them
FAR_BELOW = 1.0  # ... and dropping it when they score this far below the tier wanted


def tier_of(score: float | None) -> str | None:
    if score is None:
        return None
    tier = TIERS[0]
    for name, floor in zip(TIERS, TIER_FLOORS):
        if score >= floor:
            tier = name
    return tier


def tier_band(index: int) -> tuple[float, float]:
    """The scores of tier ``index``: from its floor up to (not including) the next tier's."""
    return TIER_FLOORS[index], TIER_FLOORS[index + 1] if index + 1 < len(TIERS) else math.inf


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
    score_range: tuple[float, float] | None = None  # when the forgiveness is only bounded

    def to_dict(self) -> dict:
        d = asdict(self)
        d["details"] = {k: v for k, v in self.details.items() if k != "estimate"}  # the climb's guess, not a fact
        d["sea"] = list(self.sea)
        d["keeping_bounds"] = list(self.keeping_bounds)
        d["score_range"] = list(self.score_range) if self.score_range else None
        d["forgiveness"] = None if self.keeping is None or not self.first_turns else self.keeping / self.first_turns
        d["seconds"] = round(self.seconds, 3)
        return d


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
    served = minimum[sea_word(pos.shark, pos.whale)]
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

    def deadline(self) -> float | None:
        return self.end

    @property
    def over(self) -> bool:
        return self.end is not None and time.perf_counter() > self.end


def grade(pos: Position, cards: CardTable, target: int = 1, time_limit: float | None = None,
          dag_states: int = DEFAULT_DAG_STATES, memory: int | None = None, progress=None,
          tier_only: bool = False, state_limit: int | None = None, stop_tier: str | None = None,
          jobs: int = 1) -> Grade:
    """Grade ``pos`` (usually a fresh deal) against ``target`` with the bitboard engine.

    ``time_limit`` (seconds) and ``state_limit`` (search states, the same on every machine) bound
    the searches; facts not settled within them are None and the tier is then None too.
    ``progress(done, best, unit)`` is called now and then.  ``tier_only`` settles just
    the facts the tier needs (the served and the no-sea minimum, the forgiveness), and stops
    counting first turns as soon as the counts fix the tier, or, with ``stop_tier``, as soon as
    they show the deal is or is not of that tier: the generator's inner loop.  A tier fixed by
    bounds on the forgiveness is as proven as one from the exact count.  ``jobs`` threads settle
    the first turns (not in the generator's loop, whose early stops depend on their order); the
    facts do not depend on it, and with ``state_limit`` each thread gets an equal share.
    """
    t0 = time.perf_counter()
    clock = _Clock(time_limit)
    eng = Engine(pos.board, cards)
    solver = BitboardSolver(cards, memory=memory)
    served_sea = sea_word(pos.shark, pos.whale)

    root = key_of(pos)
    kids = sorted(eng.next_states(root))
    n = len(kids)

    # 1. minimum with each choice of sea animals (one table: the keys include the sea bits).
    # A tier-only grade of a deal served without sea animals skips the search from the deal
    # itself: it asks each first turn whether it reaches the deal's lower bound, and one that does
    # proves the minimum.  The first turns are asked that anyway, cheap ones first, where the
    # search from the deal would first prove its failing first turns (one deal in four costs
    # 0.4-2.3M states that way).  Only when no first turn reaches the bound is the minimum searched.
    minimum = dict.fromkeys(SEA_CONFIGS)
    bound = eng.lower_bound(root)
    guessing = tier_only and served_sea == "none" and kids and bound <= target
    wanted = set() if guessing else {"none", served_sea} if tier_only else set(SEA_CONFIGS)

    def minima(wanted) -> None:
        for name, (shark, whale) in SEA_CONFIGS.items():
            if name in wanted:
                minimum[name] = _minimum(solver, eng, pos.replace(shark=shark, whale=whale), clock, state_limit)
                if progress:
                    progress(solver.states, None, "states")

    minima(wanted)
    served = bound if guessing else minimum[served_sea]
    minimum_states = solver.states

    # 2. forgiveness: first turns that keep the served minimum
    good = bad = 0
    undecided = list(kids)
    if tier_only and stop_tier is not None:
        # a fixed shuffle, so that the first turns settled first are a fair sample for far_off()
        random.Random(n).shuffle(undecided)
    order = list(undecided)
    need = False if guessing else served_need(pos, minimum)
    bonus = NEED_BONUS if need else 0.0

    def enough() -> bool:
        """In tier-only mode: do the counts so far already fix the tier (or rule out ``stop_tier``)?"""
        if not tier_only or need is None or not good:
            return False
        lo, hi = _score_range(n, good, bad, bonus)
        if stop_tier is None:
            return tier_of(lo) == tier_of(hi)
        floor, ceil = tier_band(tier_index(stop_tier))
        if floor <= lo and hi < ceil:
            return True
        # ruled out: stop only once the count has grown costly, since an exact score steers the
        # generator's climb better than a bound (and costs little on small layouts)
        return (hi < floor or lo >= ceil) and solver.states > CHEAP_STATES

    def far_off() -> bool:
        """In the generator's loop, after a sample of first turns at the cheap budget: do the ones
        settled put the deal clearly below ``stop_tier``?  Not a proof: the deal is left without a tier."""
        if not tier_only or stop_tier is None or need is None or not good:
            return False
        return math.log2((good + bad) / good) + bonus < tier_band(tier_index(stop_tier))[0] - FAR_BELOW

    sampled_out = False
    stop = False
    lock = threading.Lock()
    # Near-first finds lines after an arbitrary first turn with 4x fewer states (grading and the
    # calibration); in the generator's loop, where the early stops depend on which first turns
    # settle in the cheap rounds, generation order measured better (hard x5, seed 1: 45 s
    # against 139 s; benchmarks/RESULTS.md), so the climb keeps it.
    near_first = stop_tier is None

    def settle(todo: list, eng: Engine, solver: BitboardSolver, limit: int | None) -> list:
        """Rounds over the undecided first turns with growing state budgets, so that one hard first
        turn cannot starve the rest; budgets are states, not seconds, so a grade with
        ``state_limit`` is the same on every machine.  Returns the turns left undecided."""
        nonlocal good, bad, stop, sampled_out
        for share in ROUNDS:
            left = []
            for tried, ch in enumerate(todo):
                room = _room(solver, limit)
                if share is not None and tried and tried % SAMPLE_TURNS == 0 and far_off():
                    stop = sampled_out = True
                if stop or clock.over or (room is not None and room <= 0):
                    left.append(ch)
                    continue
                if eng.lower_bound(ch) > served:
                    v = served + 1
                else:
                    cap = share if room is None else (room if share is None else min(share, room))
                    v = solver.value(eng, ch, served + 1, clock.deadline(), cap, near_first)
                with lock:
                    if v is None:
                        left.append(ch)
                        continue
                    if v <= served:
                        good += 1
                    else:
                        bad += 1
                    stop = stop or enough()
                    if progress:
                        progress(good + bad, None, "first turns")
            todo = left
            if not todo or stop:
                break
            if share is not None and far_off():
                # the whole round, not just a sample, points well below the tier wanted
                stop = sampled_out = True
                break
        return todo

    if served is not None and not (tier_only and served > target):
        if jobs > 1 and stop_tier is None and len(undecided) > 1:
            # one engine and table per thread, the turns dealt round-robin (the kernels release the GIL)
            limit = None if state_limit is None else max(0, state_limit - solver.states) // jobs
            helpers = [(Engine(pos.board, cards), BitboardSolver(cards, memory=(memory or DEFAULT_MEMORY_MIB) // jobs))
                       for _ in range(jobs)]
            with ThreadPoolExecutor(jobs) as pool:
                parts = pool.map(lambda i: settle(undecided[i::jobs], *helpers[i], limit), range(jobs))
                undecided = [ch for part in parts for ch in part]
            solver.states += sum(h[1].states for h in helpers)  # so the state limit sees them
        else:
            undecided = settle(undecided, eng, solver, state_limit)
    if guessing:
        if good:
            minimum["none"] = served  # a first turn reaches the lower bound
        else:
            # no first turn was shown to reach the bound: search the minimum, then count again
            minima({"none"})
            served = minimum["none"]
            good = bad = 0
            stop = sampled_out = False
            undecided = list(order)
            if served is not None and served <= target:
                undecided = settle(undecided, eng, solver, state_limit)
    keeping = good if served is not None and not undecided else None
    bounds = (good, n - bad) if served is not None else (0, n)

    # 3. the random player's chance and the line lengths, when the DAG is small enough
    chance = shortest = longest = walked = None
    room = _room(solver, state_limit)
    if not clock.over and not tier_only and dag_states > 0 and (room is None or room > 0):
        w = dag_walk(pos, cards, target, max_states=dag_states, eng=eng)
        if w.complete:
            e = w.entry(root)
            chance, shortest, longest = (e[0], e[1], e[2]) if e else (0.0, None, None)
            walked = w.states

    reason = None
    score = None
    score_range = None
    tier = None
    if served is not None and served > target:
        reason = f"the deal cannot end with {target} or fewer stacks (its minimum is {served})"
    elif not kids:
        reason = "the deal has no legal turn"
    elif served is None or need is None:
        reason = "not every fact was proven within the limits"
    elif keeping is not None:
        score = score_of(n, keeping, need)
        tier = tier_of(score)
    else:
        if good:
            score_range = _score_range(n, good, bad, bonus)
            if tier_of(score_range[0]) == tier_of(score_range[1]):
                tier = tier_of(score_range[0])
        if tier is None:
            reason = ("not every fact was proven within the limits" if not tier_only or stop_tier is None
                      else f"stopped: the first turns settled so far point well below {stop_tier}" if sampled_out
                      else f"stopped once the first turns showed the deal is not {stop_tier}")
    details = {"states": solver.states, "minimum_states": minimum_states}
    if tier_only:
        details["not_computed"] = ["minima with other sea animals", "random player's chance"]
    if good:
        # a sampled estimate from the first turns settled so far: guidance for the generator only
        details["estimate"] = math.log2((good + bad) / good) + bonus
    return Grade(target, tuple(sea_list(pos.shark, pos.whale)), minimum, needed(minimum), n, keeping,
                 bounds, chance, shortest, longest, walked, score, tier, reason,
                 time.perf_counter() - t0, details, score_range)


def _score_range(n: int, good: int, bad: int, bonus: float) -> tuple[float, float]:
    """The scores still possible when ``good`` first turns are known to keep the minimum and ``bad`` not."""
    return math.log2(n / (n - bad)) + bonus, math.log2(n / good) + bonus


def _room(solver: BitboardSolver, state_limit: int | None) -> int | None:
    """Search states left under ``state_limit`` (None: no limit)."""
    return None if state_limit is None else state_limit - solver.states


def _minimum(solver: BitboardSolver, eng: Engine, pos: Position, clock: _Clock, state_limit: int | None) -> int | None:
    """The proven minimum from ``pos``, or None when the time or the states ran out."""
    key = key_of(pos)
    beta = eng.lower_bound(key) + 1
    while beta <= len(pos):
        room = _room(solver, state_limit)
        if room is not None and room <= 0:
            return None
        v = solver.value(eng, key, beta, clock.deadline(), room, near_first=False)  # from the deal: generation order
        if v is None:
            return None
        if v < beta:
            return v
        beta = v + 1
    return len(pos)
