"""The graph of perfect play: every position a perfect line of a deal passes through.

A position is in the graph when it is reached from the start by turns each of which keeps the
start's minimum reachable, and its own minimum is the start's.  The graph is built with the fast
engine: every next position of every position in it is settled by an exact search ("can the
minimum still be reached?"), which is what the decision profile (:mod:`.difficulty`) does along
one line, here done for every perfect line.  Where a deal's decisions are narrow the graph is
small; a forgiving deal's is not, hence the node cap.

Nodes carry the attributes of :func:`.graph.node_attributes` (``position``, ``label``, ``count``,
``depth``, ...) plus ``options`` (distinct next positions) and ``keeping`` (those that keep the
minimum); edges carry ``turns``.  The analyses are plain functions over the graph; the ones the
full graph has (:mod:`.graph`) apply with ``target`` set to the minimum.
"""

from __future__ import annotations

import gc
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass

import networkx as nx
import numpy as np

from . import graph as g
from .cards import CardTable
from .errors import FciError
from .interrupt import Interrupted, check as check_interrupt, held, pool as thread_pool
from .layered import Layered
from .position import Position
from .text import plural
from .bitboard.keymap import KeyMap
from .bitboard.codec import key_of
from .bitboard.engine import Engine
from .bitboard.search import SHARED_ENTRIES, BitboardSolver, SMALL_LOADER_POSITION, load_once
from .bitboard.turns import TurnLister, Turns, spans


CHUNK = 2000
BATCH = 256  # next positions answered by one kernel call before any is searched
PROGRESS_WAIT = 1.0  # seconds between progress reports while the build waits for a slice
# the threads take runs of at most 1/RUNS_EACH of their share of the keys left (see _run_size)
RUNS_EACH = 8
# ways to play listed, and their next positions settled, between two looks at the node cap and the clock
SLICE = 1 << 14
START_ENTRIES = SHARED_ENTRIES  # the threads' shared table at first (it grows between slices)
STATS = ("states", "minimum_states", "settled", "seconds")  # what a build cost (:meth:`_Build.stats`)


class Incomplete(FciError):
    """The build stopped before the graph was whole: the node cap, the time limit or Ctrl-C.

    ``partial`` is the graph built so far (every node in it expanded, with its options and
    keeping counts); ``counts`` says how far it got: positions ``found`` (expanded or waiting),
    ``expanded``, the deepest ``turn`` reached, next positions ``settled`` (whole slices only),
    and ``reason`` (the subclass's: ``"cap"``, ``"time"`` or ``"interrupt"``).
    """

    reason = ""

    def __init__(self, message: str, partial: nx.DiGraph, counts: dict):
        super().__init__(message)
        self.partial, self.counts = partial, counts
        self.stats: dict = {}  # what the build cost until it stopped, as in a whole graph's (STATS)
        self.found = partial  # with the positions found but not expanded (see found_graph)
        self.depth: dict = {}  # every position found (key) -> turns from the start


def found_graph(e: Incomplete, board) -> nx.DiGraph:
    """Every position a stopped build found, for an export: the partial graph's positions
    (``expanded`` True, with their counts) and the keeping next positions they lead to that were
    not expanded yet (``expanded`` False, described as every node is, without counts), with the
    keeping turns between them.  Every node is a perfect-play position."""
    G = e.found
    for n, d in G.nodes(data=True):
        if "options" in d:
            d["expanded"] = True
        else:
            key = tuple(int(x, 16) for x in n.split(":"))
            d.update(g.node_attributes(board, key, e.depth[key]), expanded=False)
    return G


class CapReached(Incomplete):
    """The graph outgrew ``max_nodes``."""

    reason = "cap"


class OutOfTime(Incomplete):
    """The time limit ran out first."""

    reason = "time"


class Stopped(Incomplete):
    """Ctrl-C stopped the build (:class:`.interrupt.Interrupted` in the main thread): what it
    found is kept, as when the time runs out."""

    reason = "interrupt"


_loaded = threading.Event()


def load_kernels(notice=None) -> None:
    """Compile (first run) or load from numba's cache the kernels a build uses beyond a solve's,
    once per process, so that no build's seconds count a compile (see
    :func:`.bitboard.search.compiling` for ``notice``): the graph of a small position on two
    threads, and a map of settled positions made to grow."""
    from .cards import standard_cards
    from .position import parse_position_text

    def load():
        try:
            optimal_graph(parse_position_text(SMALL_LOADER_POSITION), standard_cards(), jobs=2)
        except Stopped:
            raise Interrupted from None
        rows = np.arange(1, 13, dtype=np.uint64).reshape(4, 3)
        KeyMap(bits=2).put(rows, np.zeros(4, np.int8))  # four keys in four slots: it grows

    load_once(_loaded, notice, load)


def optimal_graph(start: Position, cards: CardTable, max_nodes: int = 100_000, progress=None,
                  memory: int | None = None, jobs: int = 1, time_limit: float | None = None) -> nx.DiGraph:
    """The perfect-play graph of ``start``.

    Raises :class:`CapReached` as soon as more than ``max_nodes`` positions are found,
    :class:`OutOfTime` when ``time_limit`` seconds pass, and :class:`Stopped` on Ctrl-C once the
    start's minimum is proven, each with the partial graph and counts.  ``progress(settled,
    states)`` is told the next positions settled and the states searched so far, at least every
    :data:`PROGRESS_WAIT` seconds while a slice is settled.
    The graph is built turn by turn; the next positions of a turn's positions are settled in
    slices, each on ``jobs`` threads sharing one table (the graph does not depend on it) while
    the calling thread adds the slice before to the graph.
    """
    load_kernels()
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    eng = Engine(start.board, cards)
    # Kernel calls of CHUNK states: the first stores into a fresh table of the whole budget fault
    # in pages for seconds, and Ctrl-C is answered between calls.
    solver = BitboardSolver(cards, memory=memory, chunk=CHUNK)
    # Both orders of a double move, as before the solve listed one: the settling searches took
    # 9-13% longer with one (the expert puzzle: 199 -> 218 s; capped at 30,000: 106.5 -> 120.9 s)
    solver.once = False
    # The threads share a table that starts at the size a parallel solve shares and grows 4x
    # between two slices once it is half full, as one thread's table grows: a table of the whole
    # budget made up front cost every build 1-5 s of page faults (the OS's huge pages), most of a
    # small build's time, and a long build reaches the whole budget anyway.
    helpers = solver.helpers(jobs, entries=START_ENTRIES) if jobs > 1 else []
    # the settling threads have engines of their own: the build lists next positions with ``eng``
    # while they settle
    workers = list(zip([Engine(start.board, cards) for _ in helpers], helpers)) or [(eng.copy(), solver)]
    build = _Build(start, eng, solver, workers, max_nodes, progress, deadline)
    try:
        try:
            with paused_gc():
                G = build.run()
        finally:
            if helpers:
                solver.unshare(helpers)
    except Incomplete as e:
        e.stats = build.stats(time.perf_counter() - t0)
        raise
    G.graph.update(build.stats(time.perf_counter() - t0))
    return G


@contextmanager
def paused_gc():
    """Python's cycle collector off while a graph is built: the build makes millions of objects
    and no cycles, and the collector's full passes over them cost the expert puzzle's build 1.0-1.2
    s of its main thread (9 passes), the thread the settling threads wait for late in a deal."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass(frozen=True)
class SizeBound:
    """What :func:`size_at_least` proved: ``found`` positions are in the perfect-play graph (their
    number a lower bound on its size); ``exact`` when that is the whole graph, ``over_cap`` when
    they outnumber the cap; ``turn`` the deepest turn reached (along the first line that found
    each position), ``unresolved`` the next positions no search settled within the last budget,
    ``budget`` that budget."""

    minimum: int
    found: frozenset
    exact: bool
    over_cap: bool
    turn: int
    unresolved: int
    budget: int


def size_at_least(start: Position, cards: CardTable, cap: int, budget: int, max_budget: int | None = None,
                  deadline: float | None = None) -> SizeBound:
    """A lower bound on the size of the perfect-play graph, without its expensive part.

    The graph is explored as :func:`optimal_graph` builds it (but depth first), and each next
    position gets a search of at most ``budget`` states: one shown to reach the minimum is in the
    graph (it is reached by keeping turns and keeps the minimum itself); one not settled is left
    out with everything only it leads to.  A full build spends most of its time proving that next
    positions cannot keep the minimum; here those cost the budget.  When the exploration ends
    with positions unsettled, they are searched again with 4 times the budget, up to
    ``max_budget``, and what they add is explored.  Stops past ``cap`` positions or at
    ``deadline``.
    """
    return _Explore(start, cards, cap, deadline).run(budget, max_budget or budget)


class _Explore:
    """One run of :func:`size_at_least`."""

    def __init__(self, start: Position, cards: CardTable, cap: int, deadline: float | None):
        self.eng = Engine(start.board, cards)
        self.solver = BitboardSolver(cards, chunk=CHUNK)
        self.root = key_of(start)
        self.cap, self.deadline = cap, deadline
        self.depth = {self.root: 0}  # positions found (all in the graph) -> turns from the start
        self.keeps: dict = {}  # next position -> True, False, or None (not settled in the budget)
        self.under: dict = {}  # a next position not settled -> the depth of a position it follows

    def run(self, budget: int, max_budget: int) -> SizeBound:
        self.m = self.solver.minimum(self.eng, self.root, self.deadline)
        if self.m is None:
            raise FciError("the time limit ran out before the start's minimum was proven")
        frontier = [self.root]
        while True:
            if not self._explore(frontier, budget):
                return self._bound(budget, False)
            open_ = [c for c, v in self.keeps.items() if v is None]
            if not open_ or budget >= max_budget:
                return self._bound(budget, not open_)
            budget = min(4 * budget, max_budget)
            if not self._settle(open_, budget):
                return self._bound(budget, False)
            # each was a next position of a position found: those that keep are found too
            frontier = [c for c in open_ if self.keeps[c] and c not in self.depth]
            for c in frontier:
                self.depth[c] = self.under[c] + 1

    def _explore(self, frontier: list, budget: int) -> bool:
        """Depth first from ``frontier``; False when stopped by the cap or the clock.

        Not turn by turn as the build goes: late positions are settled by searches of a few
        states, early ones need the budget, so the count grows fastest from the bottom.  And a
        position's next positions are settled a batch at a time, those of a batch that keep the
        minimum explored before the next batch: a first turn with the Whale has about 470,000
        next positions, and what lies below the first few that keep outnumbers a cap long before
        the rest are settled.  Seeded deal 1 in 120 s: 543,193 positions against 300,442 when
        each position's next positions were all settled first (no sea animals), and 217,475
        against 1 (both).
        """
        stack = [[key, None, 0] for key in frontier]  # a position, its next positions, how many taken
        while stack:
            frame = stack[-1]
            key, kids, taken = frame
            if kids is None:
                kids = frame[1] = self.eng.sorted_next_states(key)
            part = kids[taken:taken + BATCH]
            frame[2] = taken + len(part)
            if frame[2] >= len(kids):
                stack.pop()
            if not self._settle([c for c in part if c not in self.keeps], budget):
                return False
            for c in part:
                if self.keeps[c] is None:
                    self.under.setdefault(c, self.depth[key])
                elif self.keeps[c] and c not in self.depth:
                    self.depth[c] = self.depth[key] + 1
                    stack.append([c, None, 0])
            if len(self.depth) > self.cap:
                return False
        return True

    def _settle(self, keys: list, budget: int) -> bool:
        """Whether each key keeps the minimum, into :attr:`keeps`; False when out of time."""
        for lo in range(0, len(keys), BATCH):
            check_interrupt()
            if self.deadline is not None and time.perf_counter() > self.deadline:
                return False
            part = keys[lo:lo + BATCH]
            rows = np.array(part, np.uint64).reshape(-1, 3)
            # every position here is reached from the start: none ends below its minimum; -2 (not
            # settled) where a search runs out of its budget
            values = self.solver.values(self.eng, rows, self.m + 1, self.deadline, floor=self.m, each=budget,
                                        known=self.solver.known(self.eng, rows, self.m + 1))
            if values is None:
                return False
            for c, v in zip(part, values.tolist()):
                self.keeps[c] = None if v == -2 else v <= self.m
        return True

    def _bound(self, budget: int, exact: bool) -> SizeBound:
        return SizeBound(self.m, frozenset(self.depth), exact, len(self.depth) > self.cap,
                         1 + max(self.depth.values()), sum(1 for v in self.keeps.values() if v is None), budget)


class _OutOfTime(Exception):
    """Raised inside a settling thread when the deadline passes."""


class _Build:
    """One build of the perfect-play graph, turn by turn, its counts kept for a partial answer."""

    def __init__(self, start, eng, solver, workers, max_nodes, progress, deadline):
        self.start, self.eng, self.solver, self.workers = start, eng, solver, workers
        self.max_nodes, self.progress, self.deadline = max_nodes, progress, deadline
        self.depth: dict = {}  # the graph's positions (key tuples) -> turns from the start
        # next positions settled -> 1 keeps the minimum, 0 not: millions of keys, so in arrays
        self.keeps = KeyMap()
        self.lister = TurnLister(eng)
        self.expanded = 0
        self.minimum_states = 0  # spent proving the start's minimum
        self.G = None
        # set when the build stops while a slice is being settled: its searches stop at their next chunk
        self.cancel = threading.Event()
        # the slice being settled: (its turns, the next positions asked, their answers so far, -1
        # where none yet), kept until its answers are taken, so that a stop loses none of them
        self.pending = None

    def run(self) -> nx.DiGraph:
        root = key_of(self.start)
        m = self._minimum(root)
        frontier = [root]
        for _, s in self.workers:
            s.cancel = self.cancel
        with thread_pool(1) as bg:
            try:
                while frontier:
                    frontier = self._turn(frontier, m, bg)
            except Interrupted:
                # hours of settling are kept: the graph holds every expansion that finished, and
                # the start's minimum is reported even when none has (with the Whale, the
                # start's first slice of next positions can take minutes)
                self._keep_settled(m)
                self._stop(Stopped, "stopped by Ctrl-C")
            finally:
                # a build stopped by the cap, the clock or Ctrl-C stops the slice being settled too
                # (the workers' solvers are this build's own: their cancel is left set)
                self.cancel.set()
        return self.G

    def _minimum(self, root: tuple) -> int:
        """The start's minimum, and the graph with the start in it (:class:`OutOfTime` when the
        clock runs out first)."""
        m = self.solver.minimum(self.eng, root, self.deadline)
        self.minimum_states = self.solver.states
        if m is None:
            self.G = nx.DiGraph(root=g.node_id(root), minimum=None, settle_states={})
            self._stop(OutOfTime, "the time limit ran out before the start's minimum was proven")
        b = self.start.board
        self.G = nx.DiGraph(root=g.node_id(root), margin=b.margin, height=b.height, width=b.width, minimum=m,
                            settle_states={})
        self.depth[root] = 0
        return m

    def _turn(self, frontier: list, m: int, bg) -> list:
        """Expand one turn's positions; returns the next turn's.

        The next positions of one slice are settled on the workers' threads (submitted to ``bg``)
        while this thread lists the slice after it and adds the one before to the graph: Python's
        part of a build then runs beside the searches instead of between them.  A slice at a time,
        so the cap and the clock are looked at well before a whole turn (millions of next
        positions late in a deal) is settled."""
        turn = self.depth[frontier[0]] + 1
        nxt = []
        ready = None  # the slice whose next positions are being settled
        for part in self.lister.runs(np.array(frontier, np.uint64).reshape(-1, 3), SLICE):
            check_interrupt()
            if ready is not None:
                self._collect(ready[1], m)
            self.solver.grow_half_full(self.workers)  # no slice is being settled now
            todo = self._todo(part)
            self.pending = (part, todo, np.full(len(todo), -1, np.int8))
            running = (part, bg.submit(self._settle_children, todo, self.pending[2], m, turn))
            if ready is not None:
                with held():  # a Ctrl-C is taken after the slice is in the graph
                    nxt += self._expand_all(ready[0], m)
            ready = running
            # the table the next growth needs is faulted in now, beside the searches
            self.solver.prepare_growth(self.workers)
        if ready is not None:
            self._collect(ready[1], m)
            with held():
                nxt += self._expand_all(ready[0], m)
        return nxt

    def _todo(self, part: Turns) -> np.ndarray:
        """The next positions of ``part`` not settled yet, in the order the positions list them."""
        return part.children[self.keeps.get(part.children) < 0]

    def _settle_children(self, todo: np.ndarray, answers: np.ndarray, m: int, turn: int) -> tuple:
        """Whether each of ``todo``, next positions of positions before ``turn``, keeps the
        minimum, written into ``answers`` as they come (run on a thread of its own); the states it
        took count for that turn."""
        base = len(self.keeps)
        tick = (lambda n: self.progress(base + n, self._worker_states())) if self.progress else None
        before = self._worker_states()
        try:
            return todo, _settle(self.workers, todo, m, tick, self.deadline, answers)
        finally:
            by_turn = self.G.graph["settle_states"]
            by_turn[turn] = by_turn.get(turn, 0) + self._worker_states() - before

    def _worker_states(self) -> int:
        return sum(s.states for _, s in self.workers)

    def stats(self, seconds: float) -> dict:
        """What the build cost: search states in all (the minimum's proof, then the settling, on
        every thread: call after the helpers' states are added), next positions settled, and
        wall-clock seconds."""
        return {"states": self.solver.states, "minimum_states": self.minimum_states,
                "settled": len(self.keeps), "seconds": round(seconds, 3)}

    def _collect(self, future, m: int) -> None:
        """Wait for a slice's settling and take its answers."""
        try:
            while True:
                try:
                    todo, keeps = future.result(timeout=PROGRESS_WAIT)
                    break
                except FutureTimeout:
                    # a run of next positions can take minutes (the Whale's, near the start)
                    if self.progress and self.pending is not None:
                        self.progress(len(self.keeps) + int(np.count_nonzero(self.pending[2] >= 0)),
                                      self._worker_states())
        except _OutOfTime:
            self._keep_settled(m)
            self._stop(OutOfTime, "the time limit ran out; raise --time-limit")
        self.pending = None
        self.keeps.put(todo, keeps)

    def _keep_settled(self, m: int) -> None:
        """When the build stops while a slice is settled (the clock, Ctrl-C): keep the next
        positions it had settled, and add to the graph its positions whose next positions are
        all settled.  A slice can be minutes of searches early in a deal."""
        if self.pending is None:
            return
        part, todo, answers = self.pending
        self.pending = None
        answers = answers.copy()  # Ctrl-C does not wait for the threads: a run may still come in
        done = answers >= 0
        self.keeps.put(todo[done], answers[done])
        try:
            self._expand_all(settled_positions(part, self.keeps.get(part.child) >= 0), m)
        except CapReached:
            pass  # the stop is the clock's or Ctrl-C's; the counts say how many were found

    def _expand_all(self, part: Turns, m: int) -> list:
        """Add the positions of ``part`` with their keeping edges; returns their next positions
        new to the graph."""
        keep = self.keeps.get(part.child) == 1
        n = part.positions.shape[0]
        options = np.bincount(part.parent, minlength=n).tolist()
        kept = np.flatnonzero(keep)
        # only the keeping pairs become Python objects: a few in a hundred
        k_child = [tuple(c) for c in part.child[kept].tolist()]
        k_turns = part.turns[kept].tolist()
        at = spans(part.parent[kept], n)
        new = []
        for i, key in enumerate(map(tuple, part.positions.tolist())):
            new += self._expand(key, options[i], k_child[at[i]:at[i + 1]], k_turns[at[i]:at[i + 1]], m)
        return new

    def _expand(self, key, options: int, kept: list, turns: list, m: int) -> list:
        """Add ``key`` with its keeping edges (``kept`` next positions, each reached by ``turns``
        ways to play); returns its children new to the graph."""
        G, depth = self.G, self.depth
        nid, d = g.node_id(key), depth[key]
        G.add_node(nid, **g.node_attributes(self.start.board, key, d), options=options, keeping=len(kept),
                   min_result=m)
        new = []
        for ch, t in zip(kept, turns):
            if ch not in depth:
                depth[ch] = d + 1
                new.append(ch)
            G.add_edge(nid, g.node_id(ch), turns=t)
        self.expanded += 1
        if len(depth) > self.max_nodes:
            self._stop(CapReached, f"the perfect-play graph has more than {self.max_nodes:,} positions; raise --max-nodes")
        return new

    def _stop(self, kind, why: str):
        # the partial graph keeps only expanded nodes: a child waiting for expansion has no counts
        # yet; the graph with them (and the keeping edges into them) is kept for an export
        found = self.G
        partial = found.subgraph([n for n, d in found.nodes(data=True) if "options" in d]).copy()
        counts = {"reason": kind.reason, "found": len(self.depth),
                  "expanded": self.expanded, "turn": 1 + max(self.depth.values(), default=0),
                  "settled": len(self.keeps)}
        e = kind(f"{why} ({plural(counts['expanded'], 'position')} expanded, {counts['found']:,} found, down to "
                 f"turn {counts['turn']}; {plural(counts['settled'], 'next position')} settled)", partial, counts)
        e.found, e.depth = found, self.depth
        raise e


def settled_positions(part: Turns, settled: np.ndarray) -> Turns:
    """The positions of ``part`` all of whose rows are ``settled`` (a bool per row), with their
    rows."""
    n = part.positions.shape[0]
    whole = np.bincount(part.parent[~settled], minlength=n) == 0
    rows = whole[part.parent]
    index = np.cumsum(whole) - 1
    return Turns(part.positions[whole], index[part.parent[rows]], part.child[rows], part.turns[rows],
                 part.children, part.first[rows])


def _settle(workers: list, keys: np.ndarray, m: int, tick=None, deadline: float | None = None,
            out: np.ndarray | None = None) -> np.ndarray:
    """Whether each of ``keys`` (rows of uint64 ``[k0, k1, meta]``) can still reach ``m`` stacks
    (int8, 1 or 0, written into ``out`` as each run is settled when it is given): an exact search
    each, shared among the (engine, solver) ``workers``, one thread each; ``tick(n)`` with the
    number settled so far.  Raises :class:`_OutOfTime` when ``deadline`` passes or a worker's
    ``cancel`` is set (the build stopped while these were settled).

    Each run of keys is first answered by one kernel call (the bound, the table, game ends), and
    those left are searched one after another by another: late in the game most next positions
    are answered so or take a few states, and a call each cost more than the search (turn 8 of an
    expert puzzle: 1.2 million positions, 2 states each).
    """
    lock = threading.Lock()
    done = [0]
    taken = [0]  # keys given out to the threads
    out = np.zeros(len(keys), np.int8) if out is None else out

    def run(e: Engine, s: BitboardSolver) -> None:
        # each thread takes the next run of keys when it is free: neighbouring keys share
        # subtrees in the table, and no thread waits on another's hard searches at the end
        while True:
            with lock:
                lo = taken[0]
                size = _run_size(len(keys) - lo, len(workers))
                taken[0] = lo + size
            if lo >= len(keys):
                return
            check_interrupt()
            if s.stopped(deadline):  # the deadline, or the build stopped while this was settled
                raise _OutOfTime
            rows = keys[lo:lo + size]
            # every position here is reached from the start: none ends below its minimum
            values = s.values(e, rows, m + 1, deadline, floor=m, known=s.known(e, rows, m + 1))
            if values is None:
                raise _OutOfTime
            out[lo:lo + len(rows)] = values <= m
            if tick:
                with lock:
                    done[0] += len(rows)
                    tick(done[0])

    if len(workers) == 1 or len(keys) <= 1:
        run(*workers[0])
    else:
        with thread_pool(len(workers)) as pool:
            list(pool.map(lambda w: run(*w), workers))
    return out


def _run_size(left: int, threads: int) -> int:
    """How many keys a thread takes next, of ``left`` not yet taken: :data:`BATCH`, or fewer
    as the end nears (a share of ``left``, as guided scheduling gives out loop iterations), so
    that the threads finish together: one hard refutation can take seconds."""
    if threads == 1:
        return BATCH
    return max(1, min(BATCH, -(-left // (threads * RUNS_EACH))))


# -- analyses ------------------------------------------------------------------------------

def minimum(G: nx.DiGraph) -> int:
    return G.graph["minimum"]


def perfect_lines(G: nx.DiGraph, layered: Layered | None = None) -> dict:
    """Perfect lines as position sequences and as turn sequences (every way to play them)."""
    p = g.path_counts(G, minimum(G), layered)
    return {"positions": p["winning_lines"], "turns": p["winning_turn_sequences"]}


def critical_positions(G: nx.DiGraph, layered: Layered | None = None) -> list[str]:
    """Positions every perfect line passes through (dominators of the perfect ends), start first."""
    return g.critical_states(G, minimum(G), layered)


def only_move_positions(G: nx.DiGraph) -> list[str]:
    """Positions where exactly one next position keeps the minimum."""
    return [n for n, k in G.nodes(data="keeping") if k == 1]


def width_by_turn(G: nx.DiGraph) -> list[dict]:
    """Per turn (fewest turns from the start): perfect-play positions, the options they offer, how
    many keep the minimum, and the search states spent settling those options."""
    rows: dict = {}
    for n, d in G.nodes(data=True):
        r = rows.setdefault(d["depth"], [0, 0, 0])
        r[0] += 1
        r[1] += d["options"]
        r[2] += d["keeping"]
    states = G.graph.get("settle_states", {})
    return [{"turn": t + 1, "positions": a, "options": b, "keeping": c, "states": states.get(t + 1, 0)}
            for t, (a, b, c) in sorted(rows.items())]


def narrowest_decision(G: nx.DiGraph) -> str | None:
    """The position (with a choice: more than one option) whose share of keeping options is smallest."""
    best = None
    for n, d in G.nodes(data=True):
        if d["options"] > 1 and (best is None or d["keeping"] * G.nodes[best]["options"] < G.nodes[best]["keeping"] * d["options"]):
            best = n
    return best


def partial_report(e: Incomplete) -> dict:
    """What a stopped build found, JSON-ready: why it stopped, how far it got, and the width of
    perfect play by turn over the positions it expanded (the last turn's row is a part)."""
    return {"complete": False, **e.counts, "minimum": e.partial.graph.get("minimum"),
            "width_by_turn": width_by_turn(e.partial), "stats": e.stats, "message": str(e)}


def analyse(G: nx.DiGraph) -> dict:
    """Every figure above, JSON-ready."""
    layered = Layered.of(G)  # the graph as arrays, for the two sweeps
    crit = critical_positions(G, layered)
    narrow = narrowest_decision(G)

    def node(n):
        d = G.nodes[n]
        return {"id": n, "turn": d["depth"] + 1, "options": d["options"], "keeping": d["keeping"],
                "label": d["label"], "position": d["position"]}

    return {
        "complete": True,
        "minimum": minimum(G),
        "positions": G.number_of_nodes(),
        "edges": int(layered.off[-1]),  # networkx counts them by summing every degree
        "perfect_lines": perfect_lines(G, layered),
        "critical_positions": [node(n) for n in crit],
        "only_move_positions": len(only_move_positions(G)),
        "width_by_turn": width_by_turn(G),
        "narrowest_decision": node(narrow) if narrow else None,
        "stats": {k: G.graph.get(k) for k in STATS},
    }
