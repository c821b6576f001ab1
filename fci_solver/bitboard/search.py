"""The exact search's driver: its transposition table, the resumable searches run a chunk of
states at a time, and a solve (null-window passes, both move orders and a beam in turn, one thread
or several sharing the table).

The kernels in :mod:`.kernels` work on packed keys (:mod:`.codec`) over an :class:`.engine.Engine`;
a solved key path goes to :mod:`.line`, which turns it into reference-engine turns.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager, nullcontext
from typing import NamedTuple

import numpy as np

from ..cards import CardTable
from ..errors import FciError
from ..position import Position
from ..result import SolveResult, Stopped
from .. import interrupt
from . import kernels as K, memory
from .codec import key_of
from .engine import Engine
from .line import keys_to_line
from .probe import BEAM_WIDTHS, Beam, Probe

INITIAL_ENTRIES = 1 << 18
# A shared table cannot grow while threads use it, so it starts large, but not at the whole
# budget: its first touches fault in a page each, and 2^26 entries cost 3 s on a solve of
# 68,000 states (2^24: 0.13 s).
SHARED_ENTRIES = 1 << 24
# A solve's threads share a table sized by what its head start used: 4 times the one-thread
# table, at least this (it grows between passes when it fills).  Its pages are fresh memory, which
# costs about 2 ms a megabyte here on a process's first touch: 2^22 entries (100 MB) were a fifth
# of a 1 s plain deal on two threads; 2^20 left the 3-5 s deals as they were (RESULTS.md).
SOLVE_SHARED_MIN = 1 << 20
# A solve with jobs > 1 starts with both move orders of a one-thread solve's passes at once, one on
# each thread, over the one-thread table that grows as it fills: most deals end within this head
# start, and sharing out the root's turns costs a shared table.  The head start is cut by states
# and by time: a long proof, shared out by the root's turns, goes nearly twice as fast, where the
# two orders repeat much of each other's work.
HEAD_START = 200_000
HEAD_SECONDS = 0.1
LAZY_SECONDS = 1.0  # jobs > 1, parallel "auto": Lazy SMP for this long, then the root's turns split
SLOW_RATE = 5000  # states a second a search is taken to run at before it has run (see fitted)
RACE_STEP = 250  # states per kernel call of a move order that runs beside the other (_steps_at_once)
SLICE = 2000  # states per turn of each move order in a one-thread solve (benchmarks/RESULTS.md)
DEFAULT_MEMORY_MIB = 2048
ENTRY_BYTES = 8 * K.FIELDS
# States per kernel call (between two looks for Ctrl-C and the clock) for searches that start from
# a fresh table near the start of a deal, where a state can cost 60-100 us (seeded deal 13 from
# the deal: 20,000 states in 1.6-1.9 s, left unanswered by the default chunk).  Smaller chunks
# cost time: each call resumes the walk (grade --quick on 50 deals: 1,000 states per call made
# the median 0.55 s -> 0.74 s).
SHORT_CHUNK = 5000


_loaded = threading.Event()
compile_seconds = 0.0  # time this process spent compiling or loading the search kernels


# a small position whose solve calls every kernel a solve uses
LOADER_POSITION = "sea: shark whale\npending: none\nmargin: 1\n5 3 . 2\n. 1 4 0"
# one without sea animals, whose grade and perfect-play graph call every kernel of theirs (its
# graph has 241 positions; the one above has hundreds of thousands, the Whale's moves)
SMALL_LOADER_POSITION = "sea: none\npending: none\nmargin: 1\n5 3 2\n. 1 4"


@contextmanager
def compiling(notice=None):
    """Time a block that compiles kernels (first run) or loads them from numba's cache, adding
    its seconds to :data:`compile_seconds`, which every search's own seconds leave out.
    ``notice()`` is called if it takes longer than 1.5 s (loading takes 0.2-0.3 s, a cold
    compile tens of seconds), so a person is told why the first command is slow."""
    global compile_seconds
    t0 = time.perf_counter()
    timer = threading.Timer(1.5, notice) if notice else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer:
            timer.cancel()
        compile_seconds += time.perf_counter() - t0


def load_once(loaded: threading.Event, notice, load) -> None:
    """Call ``load()`` (which compiles or loads kernels by using them on a small case) under
    :func:`compiling`, once per process: ``loaded`` is set first, so that the work ``load``
    calls, which loads the same kernels on its way in, does not come back here."""
    if loaded.is_set():
        return
    loaded.set()
    with compiling(notice):
        load()


def load_search_kernels(notice=None) -> float:
    """Compile (first run) or load from numba's cache every kernel a solve uses, once per process
    (see :func:`compiling` for ``notice``).  Returns the seconds spent now."""
    from ..cards import standard_cards
    from ..position import parse_position_text

    def load():
        cards = standard_cards()
        pos = parse_position_text(LOADER_POSITION)
        solver = BitboardSolver(cards)
        minimum = solver.solve(pos).min_remaining
        eng = Engine(pos.board, cards)
        solver.principal_keys(eng, key_of(pos), minimum)
        Beam(eng, key_of(pos), minimum).line(2)  # a solve this small ends before its beam starts
        K.tt_rehash(solver._new_table(4), solver._new_table(16))

    before = compile_seconds
    load_once(_loaded, notice, load)
    return compile_seconds - before


def max_table_entries(memory_mib: int) -> int:
    """The most entries a table gets within ``memory_mib`` MiB: a power of two, 2^10 at least."""
    entries = max(1 << 10, (memory_mib * 1024 * 1024) // ENTRY_BYTES)
    return 1 << (entries.bit_length() - 1)


def check_overflow(status: int) -> None:
    """After a search kernel's call: status 3 is a child buffer overflow, an error."""
    if status == 3:
        raise FciError("the child buffer overflowed (a node with too many turns)")


def fitted(step: int, seconds: float | None, rate: float, walks: int) -> int:
    """The states each of ``walks`` searches runs in its next turn: ``step``, or as many as fit in
    the ``seconds`` left before a deadline at ``rate`` (states a second, all the walks together:
    the last turn's, or at first :data:`SLOW_RATE`), at least :data:`RACE_STEP`.  Near a deal's
    root a state can cost 100-200 us: a search begun just before a one-second time limit, with a
    chunk of 5,000 states, held it for 0.6 s more."""
    if seconds is None:
        return step
    return max(RACE_STEP, min(step, int(rate * seconds / walks)))


def walk_arrays():
    """The frames, control words and incumbent path of one kernel search, zeroed."""
    return (memory.apart((K.MAXD, K.FRAME_FIELDS), np.int64), memory.apart(K.CTL_FIELDS, np.int64),
            memory.apart((K.MAXD, 3), np.int64))


class _Walk:
    """One resumable null-window search in the kernel: its frames, control words and the best
    line found so far (the incumbent), run a chunk of states at a time."""

    def __init__(self, eng: Engine, key, beta: int, stop_at: int, near_first: bool, floor: int, once: bool):
        self.eng = eng
        self.fr, self.ctl, self.inc = walk_arrays()
        K.start_walk(self.fr, self.ctl, np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2]), beta, stop_at,
                     1 if near_first else 0, floor, 1 if once else 0)

    @property
    def status(self) -> int:
        """0 running, 1 done (exact), 2 stopped at stop_at, 3 child buffer overflow."""
        return int(self.ctl[1])

    @property
    def incumbent(self) -> int | None:
        return int(self.ctl[5]) if self.ctl[5] < K.INF else None

    def step(self, table, budget: int) -> tuple[int, int]:
        """Run up to ``budget`` states; returns (states run, table entries added)."""
        e, ctl = self.eng, self.ctl
        ck0, ck1, cmeta, clb, cgrp = e.buffers()
        ctl[2] = ctl[8] = 0
        ctl[4] = budget
        K.search(self.fr, ck0, ck1, cmeta, clb, cgrp, table,
                 e.ab, e.prey, e.mid, e.reach, e.bydist, e.dstart, e.maxd, e.cmask, e.cellrc, ctl, self.inc, e.work)
        return int(ctl[2]), int(ctl[8])

    def result(self) -> "_Ran":
        done = self.status in (1, 2)
        return _Ran(self.status if done else 0, int(self.ctl[3]) if done else None, int(self.ctl[5]), self.inc)


class _Ran(NamedTuple):
    """How a search run ended: ``status`` 0 stopped (time, states or cancel), 1 done, 2 a line
    within stop_at; its ``value`` when done; the fewest stacks a line it met ended with
    (``incumbent``) and that line's frames (``path``); or, when a beam's line from the root ended
    it, that line's keys (``line``, with status 1)."""

    status: int
    value: int | None
    incumbent: int
    path: np.ndarray | None
    line: list | None = None


class BitboardSolver:
    """Exact minimum-result search with the numba kernels."""

    def __init__(self, cards: CardTable, time_limit: float | None = None, memory: int | None = None,
                 progress=None, stop_at: int = 0, chunk: int = 20000, jobs: int = 1):
        self.cards = cards
        self.jobs = jobs
        self.cancel: threading.Event | None = None  # set by another thread: stop at the next chunk
        self.time_limit = time_limit
        self.memory = memory or DEFAULT_MEMORY_MIB
        self.progress = progress
        self.stop_at = stop_at
        self.chunk = chunk
        self.table = None
        self._spare = None  # the next shared table, made ahead (prepare_growth)
        self._seen = 0  # the shared table's entries at the last prepare_growth
        self.shared = False  # the table is shared with other threads' solvers: it must not be replaced
        self.states = 0  # expanded states, since construction (solve() counts per solve)
        # Move ordering among children with the same bound.  Generation order (eats by low
        # predators first) finds a line from a deal fastest; from a position after an arbitrary
        # first turn, ordering each predator's turns by how near the tops are left to their eaters
        # finds one with 4x fewer states (1.4-33x per deal; benchmarks/RESULTS.md).  This is the
        # solver's default; value() takes it per call (grading's first-turn searches).
        self.near_first = False
        # How jobs > 1 share a solve after the head start: "lazy" runs every thread on the whole
        # tree in its own move order (Lazy SMP), "split" gives the root's turns out among the
        # threads, "auto" is Lazy SMP for lazy_seconds, then split.  Two move orders find lines
        # sooner, but the head start (both orders in turn, the beam on the other core) finds
        # nearly every line now, and what is left is long proofs, shared out faster by split:
        # plain deals 11-30 with both sea animals took 15-19% less time than with "auto", the
        # batches of every layout the same (benchmarks/RESULTS.md)
        self.parallel = "split"
        self.lazy_seconds = LAZY_SECONDS
        # solve() on one thread takes turns between both move orders in slices of this many states
        # (0: only the solver's own order; see _run_both_orders)
        self.slice = SLICE
        # jobs > 1: one thread alone first, for this many states or seconds, whichever comes first
        self.head_start = (HEAD_START, HEAD_SECONDS)
        # A double move by two stacks (the Spider) whose two orders reach one position is generated
        # in one order: the same positions and minima, up to half the children of such a node
        # (seeded deal 13: 1.7-2.1 s -> 1.0 s).  The states a search takes change a little, so the
        # effort, a calibrated count of states, keeps both orders (effort.option_effort), and so
        # does the perfect-play graph, whose searches were slower with one (optimal_graph).
        self.once = True
        # the widths of the beam that takes turns with a solve's searches (() for none)
        self.beam_widths = BEAM_WIDTHS
        self._last_probe = None  # ((root, beta), Probe) of the last pass
        # what a solve Ctrl-C stops has found: the searches from its root (their best lines so
        # far) and the bound proven by then
        self._root, self._walks, self._proven, self._t0 = None, [], 0, 0.0
        self._regrow = False  # a parallel pass was stopped to run again on a larger shared table
        # jobs > 1: during the head start the beam runs all its widths on a thread of its own, and
        # the head start lasts until it is done (gap seeds 348 and 848: the line at width 4,096,
        # 1.0-1.1 s on one thread, 0.45 s on two; RESULTS.md).  With the move orders at once that
        # is three threads on two cores, and still the faster: with the beam's turns among the
        # searches instead, gap seed 348 took 1.2 s against 0.7 s.
        self.aside_beam = True
        # jobs > 1: the head start's two move orders run at once, one on each of two threads
        # (plain deals of 1-2 s with both sea animals: about a fifth less time than with the
        # orders in turn on one thread and the other core left to the beam)
        self.orders_at_once = True
        # a thread on which the second move order of a pass runs beside the first (a solve's head
        # start with jobs > 1), or None: the orders take turns on one thread
        self._order_pool = None

    @property
    def max_entries(self) -> int:
        return max_table_entries(self.memory)

    @staticmethod
    def _new_table(size: int):
        # a table larger than a solve's shares is the whole budget, whose first kernel call would
        # touch most of its pages (see .memory); a smaller one's pages come with its stores
        return memory.zeros((size, K.FIELDS), np.uint64, touch_above=SHARED_ENTRIES * ENTRY_BYTES)

    def start_table(self, entries: int) -> None:
        """Start on a table of ``entries`` slots (a power of two, at most the memory budget's)
        instead of the default: a search of a few states needs few, and a fresh default table
        costs more than such a search (the effort line's options, :mod:`fci_solver.effort`)."""
        self.table = self._new_table(min(self.max_entries, entries))
        self.used = 0

    def _alloc_table(self):
        # Start small and grow: a table spread over the whole budget would fault in a page per store.
        self.table = self._new_table(min(self.max_entries, INITIAL_ENTRIES))
        self.used = 0

    def _maybe_grow(self):
        size = self.table.shape[0]
        if self.shared or self.used * 2 < size or size >= self.max_entries:
            return
        new = self._new_table(min(self.max_entries, size * 4))
        self.used = int(K.tt_rehash(self.table, new))
        self.table = new

    def helpers(self, n: int, entries: int = SHARED_ENTRIES) -> list["BitboardSolver"]:
        """``n`` solvers that search on other threads with this solver's table, grown first to
        ``entries`` (while they share it, only :meth:`_grow_shared` replaces it, between two
        passes).  Call :meth:`unshare` after."""
        size = min(self.max_entries, entries)
        if self.table is None:
            self.table = self._new_table(size)
            self.used = 0
        elif self.table.shape[0] < size:
            new = self._new_table(size)
            self.used = int(K.tt_rehash(self.table, new))
            self.table = new
        self.shared = True
        out = []
        for _ in range(n):
            h = BitboardSolver(self.cards, self.time_limit, self.memory, None, self.stop_at, self.chunk)
            h.table, h.shared, h.used, h.near_first, h.once = self.table, True, 0, self.near_first, self.once
            h._root, h._walks = self._root, self._walks  # a Ctrl-C takes the best line of every thread
            out.append(h)
        return out

    def unshare(self, helpers: list["BitboardSolver"]) -> None:
        """The helpers are done: their states and table entries count as this solver's."""
        self.shared = False
        self._spare = None
        self.states += sum(h.states for h in helpers)
        self.used += sum(h.used for h in helpers)

    def _start(self, eng: Engine, key, beta: int, near_first: bool | None, floor: int = 0) -> "_Walk":
        if self.table is None:
            self._alloc_table()
        walk = _Walk(eng, key, beta, self.stop_at, self.near_first if near_first is None else near_first, floor,
                     self.once)
        if key == self._root:
            self._walks.append(walk)
        return walk

    def _step(self, walk: "_Walk", budget: int) -> int:
        """Run ``walk`` for up to ``budget`` states on this solver's table; returns the states run."""
        self._maybe_grow()
        done, used = walk.step(self.table, budget)
        self._count(done, used, walk.status)
        return done

    def _turn(self, walks: list, step: int, left: int | None, until: float | None) -> int:
        """A turn of each walk, ``step`` states (fewer where the state budget has only ``left``):
        two at once when :attr:`_order_pool` is set, else one after the other up to the first
        that is done (as it leaves a line or a proof, the next need not run); the states run."""
        if self._order_pool is not None and len(walks) == 2:
            return self._steps_at_once(walks, step, left, until)
        ran = 0
        for walk in walks:
            # a state budget is kept to the state, not to the step (grading gives some searches 2,000)
            ran += self._step(walk, step if left is None else max(1, min(step, left - ran)))
            if walk.status in (1, 2):
                break
        return ran

    def _steps_at_once(self, walks: list, step: int, left: int | None, until: float | None) -> int:
        """One turn of each of two walks at the same time, the second on :attr:`_order_pool`'s
        thread, over this solver's table (which grows only between turns); the states run.  Each
        runs in runs of :data:`RACE_STEP` states, so that neither goes on long once the other is
        done (on one thread the first move order's slice would hold up the other's answer), nor
        after the time ``until``: near a deal's root a state can cost 100-200 us, and a turn of
        2,000 states held a head start of 0.1 s for 0.4 s."""
        self._maybe_grow()
        budget = step if left is None else max(1, min(step, (left + 1) // 2))
        done = threading.Event()

        def run(walk: _Walk) -> tuple[int, int]:
            ran = used = 0
            while ran < budget and not done.is_set() and not interrupt.STOP.is_set():
                n, u = walk.step(self.table, min(RACE_STEP, budget - ran))
                ran, used = ran + n, used + u
                if walk.status != 0 or n == 0:
                    done.set()
                if until is not None and time.perf_counter() > until:
                    break
            return ran, used

        later = self._order_pool.submit(run, walks[1])
        try:
            first = run(walks[0])
        except BaseException:
            done.set()
            raise
        finally:
            second = later.result()  # the other thread writes the table and its walk until then
        self._count(*first, walks[0].status)
        self._count(*second, walks[1].status)
        return first[0] + second[0]

    def _count(self, done: int, used: int, status: int) -> None:
        """After a kernel call: Ctrl-C answered, its states and table entries counted, a child
        buffer overflow (status 3) reported."""
        interrupt.check()
        self.states += done
        self.used += used
        check_overflow(status)

    def stopped(self, deadline: float | None) -> bool:
        """Whether ``deadline`` has passed or :attr:`cancel` is set."""
        return (deadline is not None and time.perf_counter() > deadline) or \
            (self.cancel is not None and self.cancel.is_set())

    def _run(self, eng: Engine, key, beta: int, deadline: float | None, max_states: int | None = None,
             near_first: bool | None = None, floor: int = 0, probe: Probe | None = None):
        """One null-window search (:class:`_Ran`); status 0 when it was stopped by the deadline,
        ``max_states`` or :attr:`cancel`.  ``probe``: a beam takes turns with it, and a line it
        finds ends the run."""
        walk = self._start(eng, key, beta, near_first, floor)
        return self._in_turn([walk], self.chunk, beta, deadline, max_states, probe)

    def _run_both_orders(self, eng: Engine, key, beta: int, deadline: float | None, max_states: int | None = None,
                         probe: Probe | None = None, until: float | None = None):
        """:meth:`_run` with both move orders on one thread, a slice of states each in turn, over
        one table: whichever order reaches the answer first gives it (the other's work stays in
        the table).  On the slowest deals one order is often 10-50 times faster than the other,
        and which one is not known in advance; taking turns costs about twice the states of the
        faster one alone, less where the other's entries help it.

        ``probe``: a beam looking for a line to ``beta - 1`` stacks or fewer also takes turns
        (:class:`Probe`); a line it finds ends the run (:attr:`_Ran.line`).  ``until``: as
        :meth:`_in_turn` says."""
        walks = [self._start(eng, key, beta, False), self._start(eng.twin(), key, beta, True)]
        return self._in_turn(walks, self.slice, beta, deadline, max_states, probe, until)

    def _in_turn(self, walks: list, step: int, beta: int, deadline: float | None, max_states: int | None,
                 probe: Probe | None, until: float | None = None) -> "_Ran":
        """Run the walks in turn, ``step`` states each, then the beam's turn if it is due, until
        one is done (its result), the beam finds a line, or the deadline, :attr:`cancel`,
        ``max_states`` or the time ``until`` stops them (the result of the walk with the best line
        so far); the last two wait for a beam that runs aside."""
        ran = told = 0
        ends = [t for t in (until, deadline) if t is not None]
        end, rate = (min(ends) if ends else None), SLOW_RATE
        try:
            if probe is not None and probe.aside:
                self._probe_turn(probe, 0, 0, max_states, beta, deadline)  # the beam's thread starts now
            while True:
                t = time.perf_counter()
                n = self._turn(walks, fitted(step, None if end is None else end - t, rate, len(walks)),
                               None if max_states is None else max_states - ran, end)
                rate = n / max(time.perf_counter() - t, 1e-6)
                ran += n
                for walk in walks:
                    if walk.status in (1, 2):
                        return walk.result()
                found = self._probe_turn(probe, ran - told, ran, max_states, beta, deadline)
                told = ran
                if found is not None:
                    return found
                if self.progress:
                    found = [w.incumbent for w in walks if w.incumbent is not None]
                    self.progress(self.states, min(found) if found else None)
                spent = (max_states is not None and ran >= max_states) or (until is not None and time.perf_counter() > until)
                if self.stopped(deadline) or (spent and not (probe is not None and probe.busy)):
                    return min(walks, key=lambda w: w.ctl[5]).result()
        finally:
            if probe is not None:
                probe.pause()

    def _probe_turn(self, probe: Probe | None, new: int, searched: int, max_states: int | None, beta: int,
                    deadline: float | None) -> _Ran | None:
        """The beam's turn, if there is a beam and its turn is due within the state budget (looked
        at before a turn, not during it), after ``new`` more states of a run that has spent
        ``searched``: its positions count as states; the run's end when it found a line."""
        if probe is None or (max_states is not None and searched >= max_states and not probe.aside):
            return None
        expanded, line = probe.turn(new, lambda: self.stopped(deadline))
        self.states += expanded
        return None if line is None else _Ran(1, beta - 1, beta - 1, None, line)

    def known(self, eng: Engine, keys: np.ndarray, beta: int) -> np.ndarray:
        """For each key (rows of uint64 ``[k0, k1, meta]``): its value (exact, or a bound >= beta)
        where the bound, the table or the key alone tells it, else -1; one kernel call for all."""
        if self.table is None:
            self._alloc_table()
        n = keys.shape[0]
        out = np.empty(n, np.int64)
        k0 = np.ascontiguousarray(keys[:, 0])
        k1 = np.ascontiguousarray(keys[:, 1])
        meta = keys[:, 2].astype(np.int64)
        K.known_values(k0, k1, meta, n, beta, self.table, eng.cmask, eng.cellrc, eng.reach, eng._wk, out)
        return out

    def values(self, eng: Engine, keys: np.ndarray, beta: int, deadline=None, floor: int = 0,
               known: np.ndarray | None = None, each: int = 0) -> np.ndarray | None:
        """:meth:`value` of each key (rows of uint64 ``[k0, k1, meta]``) whose ``known`` entry is
        -1 (default: all), the searches run one after another in the kernel, a chunk of states per
        call; None when ``deadline`` passes or :attr:`cancel` is set first.  ``each`` > 0: -2 for
        a key whose search was not done within that many states."""
        if self.table is None:
            self._alloc_table()
        n = keys.shape[0]
        out = np.full(n, -1, np.int64) if known is None else known.copy()
        k0 = np.ascontiguousarray(keys[:, 0])
        k1 = np.ascontiguousarray(keys[:, 1])
        meta = keys[:, 2].astype(np.int64)
        fr, ctl, inc = walk_arrays()
        ctl[1] = 1  # no search under way: search_each starts one
        ck0, ck1, cmeta, clb, cgrp = eng.buffers()
        i = 0
        while i < n:
            self._maybe_grow()
            ctl[2] = ctl[8] = 0
            ctl[4] = self.chunk
            i = K.search_each(k0, k1, meta, out, i, beta, floor, 1 if self.near_first else 0, 1 if self.once else 0,
                              each, fr, ck0, ck1, cmeta, clb, cgrp, self.table, eng.ab, eng.prey, eng.mid, eng.reach,
                              eng.bydist, eng.dstart, eng.maxd, eng.cmask, eng.cellrc, ctl, inc, eng.work)
            self._count(int(ctl[2]), int(ctl[8]), int(ctl[1]))
            if i < n and self.stopped(deadline):
                return None
        return out

    def value(self, eng: Engine, key, beta: int, deadline=None, max_states: int | None = None,
              near_first: bool | None = None, floor: int = 0) -> int | None:
        """The minimum if it is < beta, else a bound >= beta; None when out of time or states.

        The table is kept between calls, so calling again resumes with everything learned so far.
        ``near_first`` chooses the move ordering for this call (None: the solver's ``near_first``).
        One order, not both in turn as :meth:`solve` does: a grade's searches are mostly proofs
        that a next position cannot keep the minimum, which both orders must finish (seeded deal 2's
        profile: 8.9M states with both against 7.9M near-first).
        ``floor``: a number of stacks that no position reachable from ``key`` can end below (the
        minimum of a position it is reached from): a node stops at its first turn that reaches it,
        so showing that ``key`` still reaches such a minimum takes one line, not also the proof
        that nothing does better.
        """
        ran = self._run(eng, key, beta, deadline, max_states, near_first, floor)
        return ran.value if ran.status == 1 else None

    def minimum(self, eng: Engine, key, deadline=None, max_states: int | None = None) -> int | None:
        """The exact minimum from ``key``, proven as :meth:`solve` proves it (null-window passes,
        both move orders and the beam in turn, over this solver's table); None when ``deadline``
        or ``max_states`` comes first."""
        try:
            status, value, *_ = self._passes(eng, key, deadline, max_states)
        finally:
            self._last_probe = None
        return value if status == 1 else None

    def _tt(self, key):
        """(value, exact) stored for ``key``, or None: a value that is not exact is a lower bound."""
        if self.table is None:
            return None
        w = K.tt_lookup(self.table, np.uint64(key[0]), np.uint64(key[1]), np.int64(key[2]))
        return (int(w & 255), (w >> 8) == 1) if w >= 0 else None

    def solve(self, pos: Position) -> SolveResult:
        """The minimum result from ``pos`` and a line to it (see :func:`fci_solver.search.solve`).
        Ctrl-C raises :class:`~fci_solver.result.Stopped` with the best line found by then."""
        self._root, self._walks, self._proven = key_of(pos), [], 0
        try:
            return self._solve(pos)
        except interrupt.Interrupted:
            raise Stopped(self._stopped_result(pos)) from None
        finally:
            self._last_probe = None  # its beam's buffers (up to a few hundred MB) go with it
            self._root, self._walks = None, []

    def _stopped_result(self, pos: Position) -> SolveResult:
        """What a solve stopped by Ctrl-C has found: the best line of its searches from the root
        (played out to the end of the game), and the bound proven by then.  Like a time limit's,
        the result is exact only when that line reaches the bound."""
        keys = self._best_line(Engine(pos.board, self.cards), self._root)
        return self._result(pos, self._t0, keys, None, self._proven, False,
                            {"jobs": self.jobs, "interrupted": True})

    def _best_line(self, eng: Engine, root) -> list:
        """The best line so far of the searches from ``root``, played out to the end of the game."""
        found = [w for w in self._walks if w.incumbent is not None]
        best = min(found, key=lambda w: w.incumbent, default=None)
        return self._incumbent_line(eng, root, best.inc if best is not None else None)

    def _solve(self, pos: Position) -> SolveResult:
        load_search_kernels()
        t0 = self._t0 = time.perf_counter()
        eng = Engine(pos.board, self.cards)
        self.states = 0
        root = key_of(pos)
        deadline = t0 + self.time_limit if self.time_limit else None
        if self.jobs > 1:
            # what the head start proved stays in the table; its two move orders run at once, and
            # the beam on a thread of its own, which the head start waits for
            states, seconds = self.head_start
            try:
                with interrupt.pool(1) if self.orders_at_once else nullcontext() as self._order_pool:
                    status, value, proven, beta, best_inc, best_path, line = self._passes(
                        eng, root, deadline, states, t0 + seconds, self.aside_beam)
            finally:
                self._order_pool = None
            if status == 0 and not self.stopped(deadline):
                found = self._threads(eng, root, deadline, proven)
                if found is not None:
                    return self._result(pos, t0, *found)
        else:
            status, value, proven, beta, best_inc, best_path, line = self._passes(eng, root, deadline)
        if status == 0 and best_inc > beta:
            # Out of time in a pass that only looked for lines reaching the bound: spend a little more
            # on an open search, which dives to game ends and so finds a decent line to show.
            extra = min(1.0, 0.1 * (self.time_limit or 0))
            ran = self._run(eng, root, len(pos) + 1, time.perf_counter() + extra)
            if ran.incumbent < best_inc:
                best_inc, best_path = ran.incumbent, ran.path.copy()
        if line is not None:
            # a beam's line: down to the proven bound (a proof), or within stop_at (played out to an end)
            _, keys = self._ended(eng, line)
            exact, low = status == 1, proven
        elif status == 1:
            keys = self.principal_keys(eng, root, value)
            exact, low = True, value
        else:
            # timed out (status 0) or reached stop_at (status 2): the incumbent line is real, the value a bound
            keys = self._incumbent_line(eng, root, best_path)
            exact = False
            low = max(proven, self._proven)  # the threads may have proven more than the head start
        return self._result(pos, t0, keys, value if exact else None, low, exact,
                            {"table_entries": int(self.table.shape[0]), "table_used": self.used})

    def _passes(self, eng: Engine, root, deadline, max_states: int | None = None, until: float | None = None,
                aside: bool = False):
        """Null-window passes: first ask "can the lower bound be reached?", then one more stack, ...
        A pass that fails proves a lower bound; most deals reach their bound, so the first pass
        searches with the tightest pruning and stops at the first line that gets there.
        Returns (status, value, proven bound, last beta, best incumbent, its path, a line's keys
        that a beam found, or None); status 0 when the deadline, or ``max_states`` (over all
        passes) or the time ``until`` stopped it.  ``aside``: the beam runs on a thread of its
        own, and the last two wait for it (see :class:`Probe`)."""
        proven = self._proven = eng.lower_bound(root)  # no line ends with fewer stacks
        beta = self._first_beta(proven)
        best_inc, best_path = K.INF, None
        start = self.states
        while True:
            left = None if max_states is None else max(1, max_states - (self.states - start))
            if self.slice:
                ran = self._run_both_orders(eng, root, beta, deadline, left, self._probe(eng, root, beta, aside), until)
                if ran.line is not None:
                    # down to the proven bound the line proves the minimum, else it answers stop_at
                    return (1 if ran.value == proven else 2), ran.value, proven, beta, ran.value, None, ran.line
            else:
                ran = self._run(eng, root, beta, deadline, left)
            status, value, incumbent, inc = ran[:4]
            if incumbent < best_inc:
                best_inc, best_path = incumbent, inc.copy()
            if status != 1 or value < beta:
                break
            proven = self._proven = value  # the pass failed: value is a proven lower bound
            beta = value + 1
            if self.stop_at and value > self.stop_at:
                status = 2  # "can it be won?" is answered: no, and the minimum is not needed
                break
        return status, value, proven, beta, best_inc, best_path, None

    def _probe(self, eng: Engine, root, beta: int, aside: bool = False) -> Probe | None:
        """A beam for a line from ``root`` to ``beta - 1`` stacks or fewer, unless switched off:
        the one the last pass on the same question used, if any (a solve's head start, its
        threads' passes, Lazy SMP's and then the split's, go on with one beam); ``aside``: on a
        thread of its own (with an engine of its own)."""
        if not self.beam_widths:
            return None
        last = self._last_probe
        if last is not None and last[0] == (root, beta):
            probe = last[1].rejoin()
        else:
            probe = Probe(Beam(eng.copy() if aside else eng, root, beta - 1), self.beam_widths)
            self._last_probe = ((root, beta), probe)
        probe.aside = aside
        return probe

    def _first_beta(self, proven: int) -> int:
        """The first pass's window: one above the proven bound, or with ``stop_at`` one above it,
        since "can it end with stop_at or fewer?" is one question, asked at once rather than after
        proving each smaller result impossible (tower seed 21, target 2: 5.7M states before)."""
        return max(proven, self.stop_at) + 1 if self.stop_at else proven + 1

    def _result(self, pos: Position, t0: float, keys: list, value: int | None, low: int, exact: bool,
                extra: dict | None = None) -> SolveResult:
        """The result of a solve from its line's keys; ``value`` None: the line's own end (a line
        cut short, exact only if it reaches the proven bound ``low``)."""
        line, positions = keys_to_line(pos, keys, self.cards)
        if value is None:
            value = len(positions[-1]) if positions else len(pos)
            exact = value == low  # a line that reaches the proven bound is a proof
        return SolveResult(pos, value, low, line, positions, exact, self.states, time.perf_counter() - t0, "bitboard",
                           {**(extra or {"jobs": self.jobs}), "compile_seconds": round(compile_seconds, 3)})

    def _threads(self, eng: Engine, root, deadline, proven: int):
        """The null-window passes of :meth:`solve` on ``jobs`` threads, each with its own engine,
        all sharing this solver's table (the kernels release the GIL): what one thread proves, the
        others find when they reach it.  A pass is shared out as :attr:`parallel` says
        (:meth:`_split_pass`, :meth:`_lazy_pass`, or "auto": the one for :attr:`lazy_seconds`,
        then the other), from the bound ``proven`` (the head start's).  Returns (keys, value, lower
        bound, exact), or None when the root has no turn or the time is up (the caller then shows
        the best line it finds: the head start's, or an open search's)."""
        kids = eng.children(root)
        if not kids:
            return None
        if self.parallel != "lazy":
            kids.sort(key=eng.lower_bound)
        grown = 4 * (self.table.shape[0] if self.table is not None else INITIAL_ENTRIES)
        helpers = self.helpers(self.jobs, entries=max(SOLVE_SHARED_MIN, grown))
        for h in helpers:
            # a pass asks "fewer than beta?", and with stop_at beta is stop_at + 1: a search
            # stopped at stop_at would read as one out of time
            h.stop_at = 0
            # once a thread has its line the others stop at their next chunk: 20,000 states held
            # plain seed 4's last pass for 0.17 s after its line was found
            h.chunk = min(h.chunk, SHORT_CHUNK)
        workers = list(zip([Engine(eng.board, self.cards) for _ in range(self.jobs)], helpers))
        split = self.parallel == "split"
        lazy_until = time.perf_counter() + self.lazy_seconds if self.parallel == "auto" else None
        try:
            beta = self._first_beta(proven)
            while True:
                if split:
                    v, keys = self._split_pass(root, kids, workers, beta, deadline)
                else:
                    until = deadline if lazy_until is None else min(deadline or lazy_until, lazy_until)
                    v, keys = self._lazy_pass(root, kids, workers, beta, until)
                stopped_to_grow, self._regrow = self._regrow, False
                if (stopped_to_grow or self._table_full(workers)) and not self.stopped(deadline):
                    self._grow_shared(workers)
                    if v is None and stopped_to_grow:
                        continue  # the same pass again: what it proved is in the table
                if not split and v is None and lazy_until is not None and not self.stopped(deadline):
                    split = True  # "auto": Lazy SMP's time is up, the root's turns are shared out
                    continue
                if v is None:
                    return None  # out of time: the caller shows the best line it can find
                if keys is not None:
                    if self.stop_at and v <= self.stop_at and v > proven:
                        return keys, v, proven, False  # a line within the target; the minimum is not asked
                    return keys, v, v, True
                proven = self._proven = v  # the pass failed: a proven bound
                if self.stop_at and proven > self.stop_at:
                    return self._play_out(eng, root, []), None, proven, False  # "can it be won?": no
                beta = proven + 1
        finally:
            self.shared = False

    def _table_full(self, workers: list) -> bool:
        """Whether the shared table is half full, has taken twice as many states as it has entries,
        and may grow.  One thread's table grows at half full; a shared one only once it would
        thrash: a growth costs the threads a pass begun again, the rehash and the new pages
        (plain seeds 3 and 6 on two threads, 4-5 million states in 2^22 entries: 7.2-7.4 s
        without, 8.1-8.2 s growing at half full)."""
        return self._half_full(workers) and \
            self.states + sum(s.states for _, s in workers) >= 2 * self.table.shape[0]

    def _half_full(self, workers: list) -> bool:
        """Whether the table shared with ``workers`` is half full and may grow."""
        size = self.table.shape[0]
        return size < self.max_entries and 2 * self._shared_used(workers) >= size

    def _shared_used(self, workers: list) -> int:
        """The entries this solver and ``workers`` have stored in the table they share."""
        return self.used + sum(s.used for _, s in workers)

    def grow_half_full(self, workers: list) -> bool:
        """Grow the table shared with ``workers`` ((engine, solver) pairs, none searching now) 4x
        when it is half full, up to the memory budget, as one thread's own table grows; whether
        it grew.  (A solve's passes wait longer, see :meth:`_table_full`; a graph's settling
        returns to what it stored, so it grows at half full.)  The growth waits for the table
        :meth:`prepare_growth` makes while the threads search: a run more in the half-full table
        costs them less than waiting for its pages."""
        if not (self.shared and self._half_full(workers) and self._spare is not None):
            return False
        self._grow_shared(workers)
        return True

    def prepare_growth(self, workers: list) -> None:
        """Make the table :meth:`grow_half_full` will move to while ``workers`` still search the
        old one, once two more runs of searches like the last (the entries they added since the
        last call) would fill it half.  Faulting in the pages of a fresh table of 2^26 entries
        took 1.3-5 s (the kernel compacting memory for 2 MB pages), all of it time in which the
        threads, waiting for the growth, searched nothing."""
        size = self.table.shape[0]
        used = self._shared_used(workers)
        added, self._seen = used - self._seen, used
        if self.shared and self._spare is None and size < self.max_entries and 2 * (used + 2 * added) >= size:
            self._spare = self._new_table(min(self.max_entries, 4 * size))

    def _grow_shared(self, workers: list) -> None:
        """A shared table 4x larger, between two passes (no thread uses it): a long parallel solve
        in a table sized for its start spent twice the states of one thread (plain seed 4: 37.8
        against 17.6 million)."""
        size = min(self.max_entries, 4 * self.table.shape[0])
        new, self._spare = self._spare, None
        if new is None or new.shape[0] != size:
            new = self._new_table(size)
        self.used = self._seen = int(K.tt_rehash(self.table, new))
        self.table = new
        for _, s in workers:
            s.table, s.used = new, 0

    def _split_pass(self, root, kids: list, workers: list, beta: int, deadline):
        """One pass with the root's turns shared out: each asks "can you reach less than beta?";
        the first that can ends the pass for all, and when none can the least of their bounds is
        the root's.  Returns (value, line keys) for a line below beta, (bound, None) when there is
        none, (None, None) out of time."""
        stop, lock = threading.Event(), threading.Lock()
        todo = iter(range(len(kids)))
        bounds, found, timed_out, lines = [], [], [], []

        def work(w: int) -> None:
            e, s = workers[w]
            s.cancel = stop
            # the first thread also gives a beam from the root its turns, as a one-thread solve does
            probe = self._probe_of_threads(e, root, beta, workers) if w == 0 else None
            while not stop.is_set():
                with lock:
                    i = next(todo, None)
                if i is None:
                    return
                lb = e.lower_bound(kids[i])
                status, v, line = 1, lb, None  # the bound alone answers
                if lb < beta:
                    ran = s._run(e, kids[i], beta, deadline, probe=probe)
                    status, v, line = ran.status, ran.value, ran.line
                if line is not None:  # the beam's line from the root ends the pass
                    lines.append(line)
                    stop.set()
                    return
                if status != 1:
                    if not stop.is_set():
                        timed_out.append(i)
                        stop.set()
                    return
                with lock:
                    if v < beta:
                        found.append((v, i, w))
                        stop.set()
                    else:
                        bounds.append(v)

        self._join(work, workers)
        return self._split_answer(kids, workers, lines, found, timed_out, bounds)

    def _split_answer(self, kids: list, workers: list, lines: list, found: list, timed_out: list, bounds: list):
        """What a pass with the root's turns shared out proved, from what its threads met: a line
        of the beam's, the least value found below beta with its line, or the least bound when
        every turn was refuted (as :meth:`_split_pass` returns)."""
        if lines:
            return self._ended(workers[0][0], lines[0])
        if self._regrow and not found:
            return None, None  # stopped for a larger table: the bounds so far prove nothing
        if found:
            v, i, w = min(found)
            e, s = workers[w]
            s.cancel = None
            return v, [kids[i]] + s.principal_keys(e, kids[i], v)
        if timed_out:
            return None, None
        return min(bounds), None

    def _lazy_pass(self, root, kids: list, workers: list, beta: int, deadline):
        """One pass with every thread on the whole tree (Lazy SMP), each in its own move order
        (generation order, near-first), so each meets in the table what the other proved in the
        subtrees it has not reached yet; the first to finish answers for all.  Returns as
        :meth:`_split_pass`."""
        stop = threading.Event()
        first: list = []

        def work(w: int) -> None:
            e, s = workers[w]
            s.cancel = stop
            # the generation-order thread also gives a beam its turns, as a one-thread solve does
            probe = self._probe_of_threads(e, root, beta, workers) if w == 0 else None
            ran = s._run(e, root, beta, deadline, near_first=w % 2 == 1, probe=probe)
            if ran.status == 1 and not stop.is_set():
                first.append((ran.value, w, ran.line))
            stop.set()

        self._join(work, workers)
        if not first:
            return None, None
        v, w, line = first[0]
        e, s = workers[w]
        if line is not None:
            return self._ended(e, line)
        if v >= beta:
            return v, None
        s.cancel = None
        return v, s.principal_keys(e, root, v)

    def _ended(self, eng: Engine, line: list) -> tuple[int, list]:
        """A beam's line played out to the end of the game: (the stacks it ends with, its keys)."""
        keys = self._play_out(eng, line[-1], line)
        return K.stack_count(np.uint64(keys[-1][0]), np.uint64(keys[-1][1])), keys

    def _probe_of_threads(self, eng: Engine, root, beta: int, workers: list) -> Probe | None:
        """A beam for the first thread of a pass, its share counted against every thread's states."""
        probe = self._probe(eng, root, beta)
        if probe is not None:
            probe.others = lambda: sum(o.states for _, o in workers[1:])
        return probe

    def _join(self, work, workers: list) -> None:
        """Run ``work(w)`` for every worker on a thread of its own to the end, the main thread
        free for Ctrl-C; their states count as ours.  An error in one thread stops the others
        and is raised here (a child buffer overflow is an error, not a pass out of time)."""
        errors: list = []

        def guarded(w: int) -> None:
            try:
                work(w)
            except BaseException as e:  # noqa: BLE001 - raised in the main thread below
                errors.append(e)
                _stop_all(workers)

        threads = [threading.Thread(target=guarded, args=(w,), daemon=True) for w in range(self.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            while t.is_alive():
                t.join(0.1)
                if self.progress:
                    self.progress(self.states + sum(s.states for _, s in workers), None)
                if not self._regrow and self._table_full(workers):
                    self._regrow = True  # the pass stops, to run again on a larger table
                    _stop_all(workers)
        if self._last_probe is not None:
            self._last_probe[1].rejoin()  # the other threads' states still count for the beam's next turn
        self.states += sum(s.states for _, s in workers)
        for _, s in workers:
            s.states = 0
        if errors:
            raise errors[0]

    @staticmethod
    def _play_out(eng: Engine, key, keys: list) -> list:
        """Extend a path to the end of the game by always taking the first full turn (a real, if poor, line)."""
        keys = list(keys)
        while True:
            kids = eng.children(key)
            if not kids:
                return keys
            key = kids[0]
            keys.append(key)

    def _incumbent_line(self, eng: Engine, root, path) -> list:
        """The keys of a search's best line so far (``path``, its incumbent frames, or None),
        played out to the end of the game: a real line, if not the best."""
        keys = self._incumbent_keys(path) if path is not None else []
        return self._play_out(eng, keys[-1] if keys else root, keys)

    @staticmethod
    def _incumbent_keys(inc):
        keys = []
        for row in inc[1:]:
            if row[2] < 0:
                break
            keys.append((int(np.int64(row[0]).astype(np.uint64)), int(np.int64(row[1]).astype(np.uint64)), int(row[2])))
        return keys

    def principal_keys(self, eng: Engine, key, value: int, canonical: bool = False) -> list:
        """A line from ``key`` to the end of the game that keeps ``value``.

        ``canonical``: from each position the first child in turn order that keeps the value, a
        line that depends on nothing but the position (the grade's solution line); children before
        the first one the table knows to keep it are searched, which can cost as much as a search
        in turn order.  Otherwise the first child the table knows to keep the value: the line the
        search that proved it found (the same for the same solve on one thread).
        """
        keys = []
        while True:
            n = eng.generate(key)
            if n == 0:
                return keys
            known = self._known_child(eng, n, value)
            if known >= 0 and not canonical:
                # the usual step: one child made a Python value, not the hundreds a node may have
                key = eng.child(known)
                keys.append(key)
                continue
            kids = eng.written(n)
            nxt = None
            for j, ch in enumerate(kids):
                if j == known:
                    nxt = ch
                    break
                if eng.lower_bound(ch) > value:
                    continue
                t = self._tt(ch)
                if t is not None and (t[1] or t[0] > value):
                    continue  # proven other than the value
                if eng.game_over(ch):  # ends are not all stored
                    if K.stack_count(np.uint64(ch[0]), np.uint64(ch[1])) == value:
                        nxt = ch
                        break
                    continue
                if self.value(eng, ch, value + 1) == value:  # evicted or only bounded: settle it
                    nxt = ch
                    break
            if nxt is None:
                raise RuntimeError("principal line lost: no child keeps the value")
            keys.append(nxt)
            key = nxt

    def _known_child(self, eng: Engine, n: int, value: int) -> int:
        """The index of the first of the ``n`` children just generated into ``eng``'s buffers
        stored with exactly ``value``, or -1."""
        if self.table is None:
            return -1
        ck0, ck1, cmeta = eng.buffers()[:3]
        return int(K.tt_first_exact(self.table, ck0, ck1, cmeta, n, value))


def _stop_all(workers: list) -> None:
    """Ask every worker of a parallel pass to stop at its next kernel call."""
    for _, s in workers:
        if s.cancel is not None:
            s.cancel.set()
