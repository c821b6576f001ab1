"""perft with the fast engine, on one thread or several: each level is the set of full-turn
states one turn after the level before (RULES.md, "Perft").

Making a level is two jobs (see :mod:`.kernels.perft`): listing the children of the level's
states into buffers, and adding the listed children to the level's set.  On one thread they
take turns.  On more, one thread adds while the others list: buffers go round between them, so
the adding (which waits on memory) overlaps the listing (which works the CPU).
"""

from __future__ import annotations

import queue
import threading
import time
from contextlib import nullcontext

import numpy as np

from ..cards import CardTable
from ..errors import FciError
from ..interrupt import check as check_interrupt, pool as thread_pool
from ..position import Position
from . import kernels as K, memory
from .codec import key_of
from .engine import Engine

LIST_SLICE = 512  # level states a lister takes at a time
# children a buffer holds at first (100 MB); one state's turns that do not fit double it: with
# the Whale, a state one turn into a standard deal lists up to 5.1 million
BUFFER = 1 << 22
# children listed before a buffer is added: a few hundredths of a second of work, and 24 MB that
# the adds read back from the cache
HANDOFF = 1 << 20
BUFFERS_PER_LISTER = 2  # one being filled while the adder empties the other
MAX_SET_BITS = 27  # a first guess of at most 2^27 slots (2.3 GB); past it the set grows as it fills
WAIT = 0.05  # seconds between looks at Ctrl-C and a failed thread while waiting for a buffer
ADD_SLICE = 1 << 16  # children added, or slots of a set rehashed, by one kernel call (Ctrl-C between)
TOUCH_ABOVE = 64 << 20  # bytes: a set array larger than this is faulted in before its adds
SLOT_BYTES = 17  # a set's slot: two key words and a tag
STATE_BYTES = 24  # a listed state (a level's, or a buffer's): two key words and the meta word
MIN_SET = 1 << 12  # slots
WHALE_BIT = 2  # in a key's meta: the Whale can still be played


def default_memory_mib() -> int:
    """Half of this machine's memory: a perft that outgrows it stops with a message instead of
    being killed by the system, and leaves room."""
    return memory.machine_bytes() // 2 >> 20


class TooLarge(FciError):
    """perft(depth) needs more memory than its budget: ``found`` positions of the level were
    counted when its set could grow no further."""

    def __init__(self, depth: int, mib: int, found: int):
        super().__init__(f"perft({depth}) needs more than the {mib:,} MiB that --memory allows "
                         f"({found:,} positions found when it stopped)")
        self.depth, self.mib, self.found = depth, mib, found


class _NoRoom(Exception):
    """The set of a level cannot grow within the budget (perft raises :class:`TooLarge`)."""


class _Budget:
    """What a perft holds at once, against ``mib``: the level it lists, the set it fills (twice
    over while the set grows), the next level while it is read out of the set, and the buffers."""

    def __init__(self, mib: int, buffers: int):
        self.mib = mib
        self.free = (mib << 20) - buffers * BUFFER * STATE_BYTES
        self._lock = threading.Lock()  # listers take room for larger buffers on their own threads

    def take(self, nbytes: int) -> None:
        """Hold ``nbytes`` more for the rest of the count, or raise :class:`_NoRoom`."""
        with self._lock:
            if nbytes > self.free:
                raise _NoRoom
            self.free -= nbytes

    def fits(self, *states_and_slots: tuple[int, int]) -> bool:
        return sum(n * STATE_BYTES + m * SLOT_BYTES for n, m in states_and_slots) <= self.free

    def first_size(self, level: int, guess: int) -> int:
        """The set's first size: the guess, halved until the set fits beside the level."""
        size = guess
        while size > MIN_SET and not self.fits((level, size)):
            size //= 2
        if not self.fits((level, size)):
            raise _NoRoom
        return size


def load_perft_kernels(pos: Position, cards: CardTable) -> None:
    """Load (or compile) the kernels perft uses, so that timings do not include it."""
    perft(pos, 1, cards)
    tiny = _LevelSet(16)
    tiny.grow()
    tiny.states()


def perft(pos: Position, depth: int, cards: CardTable, jobs: int = 1, memory: int | None = None,
          progress=None, each=None) -> int:
    """perft(depth): the number of distinct full-turn states exactly ``depth`` turns after
    ``pos``, counted on ``jobs`` threads (the same count on any number).

    ``memory`` (MiB, by default :func:`default_memory_mib`) bounds the arrays it holds; a level
    that outgrows it raises :class:`TooLarge`.  ``progress(d, found)`` is called now and then
    with the positions of level ``d`` found so far, ``each(d, count)`` once level ``d`` is
    counted (perft(1) .. perft(depth) in one run)."""
    if jobs < 1:
        raise FciError("--jobs must be at least 1")
    k = key_of(pos)
    level = (np.array([k[0]], np.uint64), np.array([k[1]], np.uint64), np.array([k[2]], np.int64))
    n_listers = max(1, jobs - 1)
    n_buffers = 1 if jobs == 1 else BUFFERS_PER_LISTER * n_listers
    budget = _Budget(memory or default_memory_mib(), n_buffers)
    listers = [_Lister(Engine(pos.board, cards), room=budget.take) for _ in range(n_listers)]
    buffers = [_Buffer() for _ in range(n_buffers)]  # kept over the levels, as the budget holds a grown one
    with thread_pool(jobs) if jobs > 1 else nullcontext() as pool:
        before = 1
        for d in range(depth):
            n = level[0].shape[0]
            last = d == depth - 1
            s = None
            try:
                # while the set grows, the old slots and the new (twice as many) are held
                s = _LevelSet(budget.first_size(n, _set_size(n, before)),
                              lambda size, n=n: budget.fits((n, size + size // 2)),
                              progress and (lambda found, d=d: progress(d + 1, found)))
                if pool is None:
                    _one_thread(level, listers[0], s, buffers[0])
                else:
                    _Pipeline(level, listers, s, buffers).run(pool)
            except _NoRoom:
                raise TooLarge(d + 1, budget.mib, s.count if s is not None else 0) from None
            if each:
                each(d + 1, s.count)
            if last:
                return s.count  # the last level is counted, never listed
            if not budget.fits((n + s.count, s.k0.shape[0])):
                raise TooLarge(d + 2, budget.mib, 0)  # the level cannot be listed beside its set
            level, before = s.states(), n
    return 1


def count_within(pos: Position, cards: CardTable, target: int, depth: int, above: int,
                 deadline: float | None = None, eng: Engine | None = None) -> int | None:
    """The distinct positions within ``depth`` turns of ``pos`` (itself included) reached by
    lines on which every position's lower bound is at most ``target``, counted until more than
    ``above`` are found.

    These are positions the whole-DAG walk (:func:`.dag.dag_walk`) visits, since it enters
    every child whose bound allows the target, so a count above its cap proves that the walk
    cannot finish, in a fraction of the walk's seconds.  The walk enters a turn with the Whale
    through its half-step, only when the half-step's own bound allows the target, which a turn
    listed whole cannot tell: with the Whale, only turns that leave it unplayed are counted (they
    are the turns without a half-step).  None when ``deadline`` (a ``time.perf_counter()``
    value) passes first.  ``eng``: an engine of ``pos``'s board to list with (as
    :func:`.dag.dag_walk` takes one)."""
    eng = eng or Engine(pos.board, cards)
    k = key_of(pos)
    if eng.lower_bound(k) > target:
        return 0
    need = WHALE_BIT if pos.whale else 0
    level = (np.array([k[0]], np.uint64), np.array([k[1]], np.uint64), np.array([k[2]], np.int64))
    # the half-steps' own turns are not counted: not listed
    lister, buf, wk = _Lister(eng, whole=False), _Buffer(), np.empty(K.WORK, np.int64)
    total, before = 1, 1
    for d in range(depth):
        n = level[0].shape[0]
        # the set need not outgrow the count it stops at
        s = _LevelSet(min(_set_size(n, before), 1 << max(12, (2 * above).bit_length())))
        take = _runs(n)
        lister.at = lister.stop = 0
        while True:
            lister.fill(level, take, buf)
            if not buf.listed:
                break
            buf.got[0] = K.keep_within(buf.k0, buf.k1, buf.meta, buf.listed, target, need, eng.cmask, eng.cellrc, wk)
            s.add(buf)
            if total + s.count > above:
                return total + s.count
            if deadline is not None and time.perf_counter() > deadline:
                return None
        total += s.count
        if not s.count:
            break
        if d < depth - 1:
            level, before = s.states(), n
    return total


def _set_size(n: int, before: int) -> int:
    """A first size for the set of the level after one of ``n`` states (``before`` states in
    the level before that), a power of two.  A turn multiplies the positions by about half what
    the turn before did (standard layout, no sea: 561, 198, 106), and the set is kept at most
    half full, so: ``n`` times the last turn's growth.  Growing costs a rehash (standard perft(3)
    with the Shark: 2.6 s of 12.4 s)."""
    guess = n * max(1, n // max(1, before))
    return 1 << min(MAX_SET_BITS, max(12, guess.bit_length()))


class _Buffer:
    """Listed children: keys, meta, and how many."""

    def __init__(self):
        self._arrays(BUFFER)
        self.got = np.zeros(1, np.int64)

    def _arrays(self, size: int) -> None:
        self.k0, self.k1, self.meta = np.zeros(size, np.uint64), np.zeros(size, np.uint64), np.zeros(size, np.int64)

    @property
    def size(self) -> int:
        return self.k0.shape[0]

    def grow(self) -> None:
        """Twice the room, empty."""
        self._arrays(2 * self.size)

    @property
    def listed(self) -> int:
        return int(self.got[0])


class _Lister:
    """One listing thread's engine (its scratch arrays) and its place in the level; ``whole``
    False lists an after-Whale half-step without the turns after it.  ``room(nbytes)`` holds the
    bytes a larger buffer adds (it raises :class:`_NoRoom` when they do not fit)."""

    def __init__(self, eng: Engine, whole: bool = True, room=lambda nbytes: None):
        self.eng, self.whole, self.room = eng, int(whole), room
        self.at = self.stop = 0

    def fill(self, level, take, buf: _Buffer) -> None:
        """List children into ``buf`` until it is full or ``take()`` has no run of the level left."""
        e = self.eng
        buf.got[0] = 0
        while True:
            check_interrupt()
            if self.at >= self.stop:
                self.at, self.stop = take()
                if self.at >= self.stop:
                    return
            i = K.level_children(*level, self.at, self.stop, e.ab, e.prey, e.mid, e.bydist, e.dstart, e.maxd,
                                 buf.k0, buf.k1, buf.meta, e.work, buf.got, self.whole)
            if i < 0:  # the state's turns alone overflow the empty buffer: list it again in a larger one
                self.room(buf.size * STATE_BYTES)
                buf.grow()
                continue
            full = i < self.stop
            self.at = i
            if full or buf.listed >= HANDOFF:
                return


def _set_arrays(size: int):
    # a set's adds land anywhere in it: its pages are faulted in first (see .memory)
    return tuple(memory.zeros(size, t, touch_above=TOUCH_ABOVE) for t in (np.uint64, np.uint64, np.uint8))


class _LevelSet:
    """An open-addressing set of states, kept at most half full.  ``room(size)``: whether it may
    grow to ``size`` slots (it raises :class:`_NoRoom` when not); ``progress(count)`` is told
    after each buffer."""

    def __init__(self, size: int, room=lambda size: True, progress=None):
        self.k0, self.k1, self.tag = _set_arrays(size)
        self._count = np.zeros(1, np.int64)
        self.room, self.progress = room, progress

    @property
    def count(self) -> int:
        return int(self._count[0])

    def add(self, buf: _Buffer) -> None:
        j, n = 0, buf.listed
        while j < n:
            check_interrupt()
            stop = min(n, j + ADD_SLICE)
            j = K.add_children(buf.k0, buf.k1, buf.meta, j, stop, self.k0, self.k1, self.tag, self._count)
            if j < stop:
                self.grow()
        if self.progress:
            self.progress(self.count)

    def grow(self) -> None:
        # twice, not four times: past the first guess a set is large (2^28 slots are 4.6 GB)
        if not self.room(2 * self.k0.shape[0]):
            raise _NoRoom
        bigger = _set_arrays(2 * self.k0.shape[0])
        for lo in range(0, self.k0.shape[0], ADD_SLICE):
            check_interrupt()
            K.set_rehash(self.k0, self.k1, self.tag, lo, min(self.k0.shape[0], lo + ADD_SLICE), *bigger)
        self.k0, self.k1, self.tag = bigger

    def states(self):
        """The set as a level: (k0, k1, meta) arrays."""
        n = self.count
        level = (np.empty(n, np.uint64), np.empty(n, np.uint64), np.empty(n, np.int64))
        K.collect(self.k0, self.k1, self.tag, *level)
        return level


def _runs(n: int):
    """``take()``: the next run of a level of ``n`` states, (n, n) when none is left; thread-safe."""
    lock = threading.Lock()
    cursor = [0]

    def take():
        with lock:
            lo = cursor[0]
            cursor[0] = min(n, lo + LIST_SLICE)
            return lo, cursor[0]
    return take


def _one_thread(level, lister: _Lister, s: _LevelSet, buf: _Buffer) -> None:
    take = _runs(level[0].shape[0])
    lister.at = lister.stop = 0
    while True:
        lister.fill(level, take, buf)
        if not buf.listed:
            return
        s.add(buf)


class _Pipeline:
    """One level on several threads: listers fill buffers, one adder empties them."""

    def __init__(self, level, listers: list, s: _LevelSet, buffers: list):
        self.level, self.listers, self.set = level, listers, s
        self.take = _runs(level[0].shape[0])
        self.free: queue.Queue = queue.Queue()
        self.full: queue.Queue = queue.Queue()
        for buf in buffers:
            self.free.put(buf)
        self.failed = threading.Event()  # a thread raised: the others stop waiting
        self.left = len(listers)
        self.lock = threading.Lock()

    def run(self, pool) -> None:
        futures = [pool.submit(self._adder)] + [pool.submit(self._lister, w) for w in self.listers]
        for f in futures:
            f.result()

    def _get(self, q: queue.Queue):
        while True:
            check_interrupt()
            if self.failed.is_set():
                raise _Abandoned
            try:
                return q.get(timeout=WAIT)
            except queue.Empty:
                pass

    def _lister(self, w: _Lister) -> None:
        w.at = w.stop = 0
        try:
            while True:
                buf = self._get(self.free)
                w.fill(self.level, self.take, buf)
                if not buf.listed:
                    return
                self.full.put(buf)
        except BaseException as e:
            self.failed.set()
            if not isinstance(e, _Abandoned):
                raise
        finally:
            with self.lock:
                self.left -= 1
                if self.left == 0:
                    self.full.put(None)  # the adder's signal that every lister is done

    def _adder(self) -> None:
        try:
            while True:
                buf = self._get(self.full)
                if buf is None:
                    return
                self.set.add(buf)
                self.free.put(buf)
        except BaseException as e:
            self.failed.set()
            if not isinstance(e, _Abandoned):
                raise


class _Abandoned(Exception):
    """A thread stops because another failed (that one's error is the one raised)."""
