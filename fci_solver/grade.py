"""How hard is a deal?  Facts the exact search proves, and a tier computed only from them.

Facts (see ``RULES.md``, "Grading"):

* the minimum result with every choice of sea animals (none, Shark, Whale, both), and so which
  sea animals the deal *needs* for its best result;
* the effort line (:mod:`.effort`): at every decision, the least search effort that proves a
  turn still allows the minimum; the deal's *effort* is that of its hardest decision;
* the decision profile (:mod:`.difficulty`): every position of the solution line with its
  distinct next positions and how many of them still allow the minimum, and the bits they sum
  to; its first decision is the deal's *forgiveness* (first turns that keep the minimum);
* the chance that a player who picks uniformly among legal turns at every step ends with at most
  ``target`` stacks, by exact dynamic programming over the state DAG (no sampling), with the
  shortest and longest winning lines.  This walk is only possible when the DAG is small enough
  (``dag_states``); on full 16-card deals it is not, and the fact is reported as unknown.

The tier depends only on the effort (search states); a proven bound that lies inside one tier's
band ("more than 299 states") fixes it as surely as the exact figure.  The bits are reported
beside it: they measure how few turns keep the minimum, which does not order how hard players
find deals (benchmarks/RESULTS.md), the effort does.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field, fields

from . import interrupt
from .cards import CardTable
from .difficulty import Profile, Stopped as ProfileStopped, profile
from .effort import LIMIT as EFFORT_LIMIT, Effort, effort as effort_line
from .errors import FciError
from .position import SEA_CHOICES, Position, sea_list, sea_word
from .bitboard.perft import count_within
from .bitboard.codec import key_of
from .bitboard.dag import dag_table_size, dag_walk
from .bitboard.engine import Engine
from .bitboard.search import SHORT_CHUNK, BitboardSolver, SMALL_LOADER_POSITION, load_once

TIERS = ("easy", "medium", "hard", "expert")
# lowest effort (search states of the hardest decision) of easy, medium, hard, expert; README:
# how they were set
TIER_FLOORS = (0, 20, 60, 300)
SEA_CONFIGS = {name: SEA_CHOICES[name] for name in ("none", "shark", "whale", "both")}  # in the order solved
DEFAULT_DAG_STATES = 1_000_000
# turns within which the positions the walk must visit are counted first: more than the walk's
# cap proves it cannot finish (standard deals 1-12: all of them, in 0.4-1.0 s, where the walk
# took 2.4-6.9 s; three turns proved 8 of them; with both sea animals, deals 1, 3, 8: 0.2 s
# against 3.7-13 s)
PROOF_TURNS = 4


def tier_of(score: float | None) -> str | None:
    if score is None:
        return None
    tier = TIERS[0]
    for name, floor in zip(TIERS, TIER_FLOORS):
        if score >= floor:
            tier = name
    return tier


def tier_band(index: int) -> tuple[float, float]:
    """The effort of tier ``index``: from its floor up to (not including) the next tier's."""
    return TIER_FLOORS[index], TIER_FLOORS[index + 1] if index + 1 < len(TIERS) else math.inf


def tier_index(name: str) -> int:
    try:
        return TIERS.index(name.lower())
    except ValueError:
        raise FciError(f"unknown difficulty {name!r}; choose one of {', '.join(TIERS)}, or a band of effort such as 50-200") from None


@dataclass(frozen=True)
class Band:
    """The effort a puzzle must have: a tier's band, or a designer's own (``"50-200"``, ``"1000-"``)."""

    name: str
    lo: float
    hi: float  # not included

    def holds(self, g: "Grade") -> bool:
        """Is ``g``'s effort proven inside the band (the exact figure, or both bounds)?"""
        if g.score is not None:
            return self.lo <= g.score < self.hi
        return g.score_range is not None and self.lo <= g.score_range[0] and \
            (g.score_range[1] < self.hi or self.hi == math.inf)

    def text(self) -> str:
        return f"effort {self.lo:g} or more" if self.hi == math.inf else f"effort {self.lo:g} to {self.hi - 1:g}"

    def limit(self) -> int:
        """The least cap on a decision's budget that tells whether an effort is in the band."""
        return max(1, int(self.hi) - 1 if self.hi < math.inf else math.ceil(self.lo) - 1)

    def excludes(self, lo: float, hi: float) -> bool:
        """Do proven bounds ``lo <= effort <= hi`` rule the band out?"""
        return hi < self.lo or lo >= self.hi


def difficulty_band(text: str) -> Band:
    """A tier name (case-insensitive) or a band of effort ``LO-HI``, search states from LO up to and
    not including HI (either end may be left out)."""
    lo, dash, hi = text.strip().partition("-")
    if not dash:
        i = tier_index(text.strip())
        return Band(TIERS[i], *tier_band(i))
    try:
        band = Band(text.strip(), float(lo) if lo.strip() else 0.0, float(hi) if hi.strip() else math.inf)
    except ValueError:
        tier_index(text)  # raises with the list of names
        raise
    if not 0 <= band.lo < band.hi:
        raise FciError(f"the band {text!r} is empty: give an effort LO-HI with 0 <= LO < HI")
    return band


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
    score: float | None  # the effort (search states of the hardest decision), when exact
    tier: str | None
    reason: str | None  # why there is no tier
    seconds: float = 0.0
    details: dict = field(default_factory=dict)
    score_range: tuple[float, float] | None = None  # proven bounds on the effort when not exact
    profile: Profile | None = None
    effort: Effort | None = None
    interrupted: bool = False  # Ctrl-C stopped it: what was not proven by then is unknown

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("profile", "effort")}  # plain values
        d["details"] = {k: v for k, v in self.details.items() if k != "estimate"}  # the climb's guess, not a fact
        d["sea"] = list(self.sea)
        d["keeping_bounds"] = list(self.keeping_bounds)
        d["score_range"] = [x if x < math.inf else None for x in self.score_range] if self.score_range else None
        d["forgiveness"] = None if self.keeping is None or not self.first_turns else self.keeping / self.first_turns
        d["seconds"] = round(self.seconds, 3)
        p = self.profile
        d["bits"] = None if p is None or p.bits is None else round(p.bits, 4)
        d["bits_bounds"] = None if p is None else [round(x, 4) for x in p.bits_bounds]
        d["narrow_decisions"] = None if p is None else len(p.narrow)
        d["decisions"] = [] if p is None else [x.to_dict() for x in p.decisions]
        e = self.effort
        d.update(e.to_dict() if e is not None else {"effort": None, "effort_bounds": None, "steps": []})
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


class _Clock:
    def __init__(self, limit: float | None):
        self.end = None if limit is None else time.perf_counter() + limit

    def deadline(self) -> float | None:
        return self.end

    @property
    def over(self) -> bool:
        return self.end is not None and time.perf_counter() > self.end


class Stopped(interrupt.Interrupted):
    """Ctrl-C stopped :func:`grade`: ``grade`` holds what was proven by then, as a grade whose
    limits ran out would (the rest unknown, the decision profile's counts bounded)."""

    def __init__(self, grade: "Grade"):
        super().__init__()
        self.grade = grade


@dataclass
class _Facts:
    """What :func:`grade` has proven so far (a Ctrl-C keeps it)."""

    minimum: dict
    minimum_states: int = 0
    effort: Effort | None = None
    profile: Profile | None = None
    walk: tuple | None = None  # chance, shortest, longest, states walked
    no_walk: str | None = None  # why the random player's chance was not computed
    stopped: bool = False


_loaded = threading.Event()


def load_kernels(notice=None) -> None:
    """Compile (first run) or load from numba's cache the kernels a grade uses beyond a solve's,
    once per process, so that no grade's seconds count a compile (see
    :func:`.bitboard.search.compiling` for ``notice``): a full grade of a small position on two
    threads."""
    from .cards import standard_cards
    from .position import parse_position_text

    def load():
        try:
            grade(parse_position_text(SMALL_LOADER_POSITION), standard_cards(), jobs=2)
        except Stopped:
            raise interrupt.Interrupted from None

    load_once(_loaded, notice, load)


def grade(pos: Position, cards: CardTable, target: int = 1, time_limit: float | None = None,
          dag_states: int = DEFAULT_DAG_STATES, memory: int | None = None, progress=None,
          tier_only: bool = False, state_limit: int | None = None, stop_band: Band | None = None,
          jobs: int = 1, effort_limit: int | None = None) -> Grade:
    """Grade ``pos`` (usually a fresh deal) against ``target`` with the bitboard engine.

    ``time_limit`` (seconds) and ``state_limit`` (search states, the same on every machine) bound
    the searches; facts not settled within them are None (the profile then has proven bounds).
    ``progress(done, best, unit, total)`` is called now and then (``total``: None, or what
    ``done`` counts up to).  ``tier_only`` settles just the facts the tier needs (the served and
    the no-sea minimum, the effort line, capped once the tier is fixed, or with ``stop_band``
    once the deal is shown in or out of that band): the generator's inner loop.  The effort
    line's cost is bounded by its cap (``effort_limit`` sets it; by default the least that fixes
    what is asked), not by ``state_limit``.  ``jobs`` threads search the effort line's options
    and settle the profile's next positions; the facts do not depend on it, and with
    ``state_limit`` each thread gets an equal share.  Ctrl-C raises :class:`Stopped` with what
    was proven by then.
    """
    load_kernels()
    t0 = time.perf_counter()
    if dag_states > 0 and not tier_only:
        dag_table_size(dag_states)  # a walk too large for this machine is an error now, not after the rest
    clock = _Clock(time_limit)
    eng = Engine(pos.board, cards)
    solver = BitboardSolver(cards, memory=memory, chunk=SHORT_CHUNK)
    facts = _Facts(dict.fromkeys(SEA_CONFIGS))
    try:
        _prove(facts, pos, cards, target, eng, solver, clock, dag_states, progress, tier_only, state_limit,
               stop_band, jobs, effort_limit)
    except interrupt.Interrupted as e:
        facts.stopped = True
        if isinstance(e, ProfileStopped):
            facts.profile = e.profile
    g = _conclude(facts, pos, target, eng, solver, tier_only, stop_band, time.perf_counter() - t0)
    if facts.stopped:
        raise Stopped(g)
    return g


def _prove(facts: _Facts, pos: Position, cards: CardTable, target: int, eng: Engine, solver: BitboardSolver,
           clock: "_Clock", dag_states: int, progress, tier_only: bool, state_limit: int | None,
           stop_band: Band | None, jobs: int, effort_limit: int | None) -> None:
    """Prove the facts of :func:`grade` into ``facts``, each one as it is settled."""
    served_sea = sea_word(pos.shark, pos.whale)
    # 1. minimum with each choice of sea animals (one table: the keys include the sea bits)
    wanted = {"none", served_sea} if tier_only else set(SEA_CONFIGS)
    for name, (shark, whale) in SEA_CONFIGS.items():
        if name in wanted:
            facts.minimum[name] = _minimum(solver, eng, pos.replace(shark=shark, whale=whale), clock, state_limit)
            if progress:
                progress(solver.states, None, "states", None)
    served = facts.minimum[served_sea]
    facts.minimum_states = solver.states

    # 2. the effort line (the tier's measure) and the decision profile along the solution line
    if served is not None and served <= target and not clock.over:
        facts.effort = _effort(pos, cards, eng, served, tier_only, stop_band, clock, effort_limit, jobs, progress)
        if not tier_only and not clock.over:
            facts.profile = profile(pos, cards, served, solver=solver, eng=eng, jobs=jobs, memory=solver.memory,
                                    state_limit=_room(solver, state_limit), deadline=clock.deadline(),
                                    progress=(lambda done, total: progress(done, None, "next positions settled", total))
                                    if progress else None)

    # 3. the random player's chance and the line lengths, when the DAG is small enough
    if tier_only:
        return
    room = _room(solver, state_limit)
    if dag_states == 0:
        facts.no_walk = "--dag-states 0"
    elif clock.over or (room is not None and room <= 0):
        facts.no_walk = "the limits ran out before it"
    elif (n := count_within(pos, cards, target, PROOF_TURNS, dag_states, clock.deadline(), eng)) is None:
        facts.no_walk = "the limits ran out before it"
    elif n > dag_states:
        facts.no_walk = "the state DAG is larger than --dag-states"
    else:
        w = dag_walk(pos, cards, target, max_states=dag_states, eng=eng, deadline=clock.deadline())
        if w.complete:
            e = w.entry(key_of(pos))
            facts.walk = ((e[0], e[1], e[2]) if e else (0.0, None, None)) + (w.states,)
        elif clock.over:
            facts.no_walk = f"the time limit ran out after {w.states:,} states of the walk"
        else:
            facts.no_walk = "the state DAG is larger than --dag-states"


def _conclude(facts: _Facts, pos: Position, target: int, eng: Engine, solver: BitboardSolver, tier_only: bool,
              stop_band: Band | None, seconds: float) -> Grade:
    """The :class:`Grade` of what ``facts`` holds: the tier, or why there is none."""
    minimum, eff, prof = facts.minimum, facts.effort, facts.profile
    served = minimum[sea_word(pos.shark, pos.whale)]
    if prof is not None and prof.decisions:
        n, first = prof.decisions[0].options, prof.decisions[0]
    else:
        n, first = len(eng.next_level(key_of(pos))[0]), None
    keeping = first.keeping if first else None
    bounds = first.keeping_bounds if first else (0, n)
    chance, shortest, longest, walked = facts.walk or (None, None, None, None)

    reason = score = score_range = tier = None
    if served is not None and served > target:
        reason = f"the deal cannot end with {target} or fewer stacks (its minimum is {served})"
    elif not n:
        reason = "the deal has no legal turn"
    elif eff is None:
        reason = ("stopped by Ctrl-C before every fact was proven" if facts.stopped
                  else "not every fact was proven within the limits")
    elif eff.exact:
        score = eff.hardest
        tier = tier_of(score)
    else:
        score_range = eff.bounds
        if tier_of(score_range[0]) == TIERS[-1]:
            tier = TIERS[-1]
        elif stop_band is not None and stop_band.excludes(*score_range):
            reason = f"stopped once the bounds showed the deal is not {stop_band.name}"
        else:
            reason = f"a decision needs more than {eff.limit:,} search states (the effort's cap)"
    details = {"states": solver.states, "minimum_states": facts.minimum_states}
    if facts.stopped and facts.walk is None and not tier_only:
        facts.no_walk = "stopped by Ctrl-C"
    if facts.no_walk:
        details["chance_not_computed"] = facts.no_walk
    if tier_only:
        details["not_computed"] = ["minima with other sea animals", "random player's chance"]
    if score_range is not None:
        # the proven lower bound: guidance for the generator's climb only
        details["estimate"] = score_range[0]
    if eff is not None:
        details["effort_states"] = eff.states
    return Grade(target, tuple(sea_list(pos.shark, pos.whale)), minimum, needed(minimum), n, keeping,
                 bounds, chance, shortest, longest, walked, score, tier, reason,
                 seconds, details, score_range, prof, eff, facts.stopped)


def _effort(pos: Position, cards: CardTable, eng: Engine, minimum: int, tier_only: bool, band: Band | None,
            clock: "_Clock", limit: int | None = None, jobs: int = 1, progress=None) -> Effort | None:
    """The effort line, capped at ``limit``, by default where a larger figure could not change
    what is asked: the tier, or whether the deal is in ``band``; None when the time ran out."""
    if limit is None:
        limit = band.limit() if band is not None else (TIER_FLOORS[-1] - 1 if tier_only else EFFORT_LIMIT)
    report = None
    if progress:
        def report(turn, done, total, budget):
            progress(done, None, f"options searched for the effort of turn {turn} (within {budget:,} states)", total)
    try:
        return effort_line(pos, cards, minimum, eng=eng, limit=limit, deadline=clock.deadline(), jobs=jobs,
                           progress=report)
    except TimeoutError:
        return None


def _room(solver: BitboardSolver, state_limit: int | None) -> int | None:
    """Search states left under ``state_limit`` (None: no limit)."""
    return None if state_limit is None else state_limit - solver.states


def _minimum(solver: BitboardSolver, eng: Engine, pos: Position, clock: _Clock, state_limit: int | None) -> int | None:
    """The proven minimum from ``pos``, or None when the time or the states ran out."""
    room = _room(solver, state_limit)
    if room is not None and room <= 0:
        return None
    return solver.minimum(eng, key_of(pos), clock.deadline(), room)
