"""Ctrl-C stops long work within a second, in every thread.

The command line installs :func:`install`: on SIGINT it sets :data:`STOP` and raises
:class:`Interrupted` in the main thread.  Worker threads and the search drivers check
:func:`check` between kernel calls (each a fraction of a second), so a pool of threads winds
down while the main thread unwinds.  :class:`Interrupted` is not a ``KeyboardInterrupt`` on
purpose: click turns that into exit status 1, and the command line answers 130.

Python runs a signal handler only between bytecodes of the main thread, so a main thread inside
compiled code (numba compiling a kernel on a first run: seconds in LLVM) would not hear Ctrl-C
until it came back.  A watchdog thread hears the signal at once, through the wakeup file that
the interpreter's C-level handler writes to.  It raises every :func:`flag` in use, which a
kernel that runs long in one call reads now and then (it returns, and the handler runs), and it
ends the process with 130 if the handler has still not run :data:`GRACE` seconds later.  A
handler that runs inside the compiler does not raise there (numba would report a half-compiled
kernel, llvmlite print a traceback from its callback and go on compiling), nor inside a block
marked :func:`held`: it leaves the interrupt to the next :func:`check` in the main thread, or to
the watchdog.  Otherwise the command unwinds as usual and saves what it finished, and the
watchdog does nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

STOP = threading.Event()
_flags: dict = {}  # id -> the one-byte array of each kernel call that reads one (see flag)
_flags_lock = threading.Lock()
GRACE = 0.5  # seconds the main thread has to take the signal before the watchdog ends the process
# more seconds when the handler found the main thread in a held block: it runs Python, and takes
# the Ctrl-C when the block ends (a build's slice added to the graph of perfect play took about
# GRACE on a loaded machine once, and the watchdog ended the process as it wrote the file)
HELD_GRACE = 1.0
_watching = False


class Interrupted(BaseException):
    """The user pressed Ctrl-C (a BaseException, so that no ``except Exception`` swallows it)."""


_deferred = threading.Event()  # the handler ran inside the compiler and did not raise
# Ctrl-Cs the main thread has taken (its handler raised, or a look took one the handler left):
# a count, since a command that goes on after one (fci play) clears STOP at once
_taken = [0]


# blocks of the main thread that a Ctrl-C must not cut in two (see held)
_holding = [0]


def _handler(signum, frame):
    STOP.set()
    # no flag is raised here: this runs in the main thread, which may hold the flags' lock, and
    # the watchdog raises them for every Ctrl-C
    if _holding[0] or _in_compiler(frame):
        _deferred.set()
        return
    _taken[0] += 1
    raise Interrupted


def _in_compiler(frame) -> bool:
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith(("numba.", "llvmlite.")):
            return True
        frame = frame.f_back
    return False


def install() -> None:
    """Route SIGINT to :data:`STOP` and :class:`Interrupted` (main thread only), and start the
    watchdog (once a process)."""
    global _watching
    resume()
    _deferred.clear()
    signal.signal(signal.SIGINT, _handler)
    if not _watching:
        r, w = os.pipe()
        os.set_blocking(w, False)  # the C-level handler must never block on it
        signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        threading.Thread(target=_watch, args=(r,), name="fci-ctrl-c-watchdog", daemon=True).start()
        _watching = True


def _watch(fd: int) -> None:
    seen = _taken[0]
    while True:
        if signal.SIGINT not in os.read(fd, 64):
            continue
        _raise_flags()  # a kernel in the main thread returns, and the handler runs
        heard = time.monotonic()
        while time.monotonic() - heard < GRACE + (HELD_GRACE if _held_off() else 0.0):
            if _taken[0] > seen:
                break
            time.sleep(0.02)
        else:
            # the main thread is still in compiled code or the compiler: nothing of the user's is
            # being written there (files are written from Python), and what finished is saved
            try:
                sys.stderr.write("fci: interrupted\n")
                sys.stderr.flush()
            finally:
                os._exit(130)
        seen = _taken[0]


def _held_off() -> bool:
    """Whether the handler left the Ctrl-C to the end of a held block that still runs."""
    return _deferred.is_set() and _holding[0] > 0


def resume() -> None:
    """The Ctrl-C is taken and the command goes on (a report to print, a prompt to show): the
    next look at Ctrl-C, in Python or in a kernel, sees none."""
    STOP.clear()


def check() -> None:
    """Raise :class:`Interrupted` once Ctrl-C was pressed (for worker threads and loops)."""
    if STOP.is_set():
        if _deferred.is_set() and threading.current_thread() is threading.main_thread():
            _deferred.clear()  # taken here: the command unwinds as usual
            _taken[0] += 1
        raise Interrupted


@contextmanager
def flag(seconds: float | None = None):
    """A one-byte array for a kernel that runs long in one call (the whole-DAG walk: seconds) and
    that only its arguments reach: 1 once Ctrl-C is pressed (the watchdog raises it while the
    main thread is in the kernel), 2 once ``seconds`` have passed."""
    f = np.zeros(1, np.uint8)
    timer = None
    if seconds is not None:
        timer = threading.Timer(max(0.0, seconds), f.__setitem__, (0, 2))
        timer.daemon = True
        timer.start()
    with _flags_lock:
        _flags[id(f)] = f
    if STOP.is_set():
        f[0] = 1
    try:
        yield f
    finally:
        with _flags_lock:
            del _flags[id(f)]
        if timer is not None:
            timer.cancel()


def _raise_flags() -> None:
    with _flags_lock:
        for f in _flags.values():
            f[0] = 1


@contextmanager
def held():
    """A block of the main thread that Ctrl-C does not cut in two: the interrupt is taken when it
    ends (it updates a structure that the command keeps when it stops, such as the graph of
    perfect play).  The block must be short: the watchdog ends the process if it takes more than
    :data:`GRACE` + :data:`HELD_GRACE` seconds after the Ctrl-C."""
    _holding[0] += 1
    try:
        yield
        # taken while still held: the watchdog never finds the block over and the Ctrl-C untaken
        check()
    finally:
        _holding[0] -= 1


@contextmanager
def pool(n: int):
    """A pool of ``n`` threads that Ctrl-C leaves without waiting for them.

    A ``with ThreadPoolExecutor`` left by Ctrl-C waits for its threads, and one of them may be in
    numba's compiler on a first run, seconds that no look at Ctrl-C interrupts (the graph of
    perfect play on a fresh install: 1.4-3.8 s after the signal).  Their work was not finished,
    so nothing is lost by not waiting; they stop at their next :func:`check`, and
    :func:`workers_running` lets the command line end the process without the join at exit.
    Left otherwise (an error, a cap), the pool waits for its threads as usual: the caller goes
    on, and their searches stop at their next look at what stopped them.
    """
    ex = ThreadPoolExecutor(n)
    try:
        yield ex
    finally:
        leave(ex)


def leave(ex: ThreadPoolExecutor, cancel: bool = False) -> None:
    """Shut ``ex`` down as :func:`pool` does: waiting for its threads unless Ctrl-C was pressed
    (then its queued work is dropped too); ``cancel`` drops queued work in any case."""
    stopped = STOP.is_set()
    ex.shutdown(wait=not stopped, cancel_futures=cancel or stopped)


def workers_running() -> bool:
    """Whether a thread that Python joins at exit (a pool's) is still running."""
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())
