"""Ctrl-C stops long work within a second, in every thread.

The command line installs :func:`install`: on SIGINT it sets :data:`STOP` and raises
:class:`Interrupted` in the main thread.  Worker threads and the search drivers check
:func:`check` between kernel calls (each a fraction of a second), so a pool of threads winds
down while the main thread unwinds.  :class:`Interrupted` is not a ``KeyboardInterrupt`` on
purpose: click turns that into exit status 1, and the command line answers 130.
"""

from __future__ import annotations

import signal
import threading

STOP = threading.Event()


class Interrupted(BaseException):
    """The user pressed Ctrl-C (a BaseException, so that no ``except Exception`` swallows it)."""


def _handler(signum, frame):
    STOP.set()
    raise Interrupted


def install() -> None:
    """Route SIGINT to :data:`STOP` and :class:`Interrupted` (main thread only)."""
    STOP.clear()
    signal.signal(signal.SIGINT, _handler)


def check() -> None:
    """Raise :class:`Interrupted` once Ctrl-C was pressed (for worker threads and loops)."""
    if STOP.is_set():
        raise Interrupted
