"""Progress lines on stderr for long work (quiet for short work, ``--quiet`` and ``--json``)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Call with ``(done, best)``; prints at most every ``every`` seconds, only after ``after`` seconds.

    The rate is measured since ``unit`` last changed (a grade's phases count different things),
    and with a ``total`` the line also says about how long is left at that rate; a ``note`` is
    shown after the count.
    """

    def __init__(self, label: str, enabled: bool = True, after: float = 1.0, every: float | None = None, stream=None,
                 clock=time.perf_counter):
        self.label = label
        self.clock = clock
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.after = after
        self.every = every if every is not None else (0.5 if self.tty else 5.0)
        self.t0 = clock()
        self.last = self.t0
        self.shown = False
        self.unit = None
        self.since = (self.t0, 0)  # when and at what count the current unit began

    def __call__(self, done: int, best=None, unit: str = "states", total: int | None = None,
                 note: str | None = None) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if unit != self.unit:
            self.unit, self.since = unit, ((self.t0, 0) if self.unit is None else (now, done))
        if now - self.t0 < self.after or now - self.last < self.every:
            return
        self.last = now
        t, d = self.since
        rate = (done - d) / max(now - t, 1e-9)
        best_txt = f", best so far {best}" if best is not None else ""
        count = f"{done:,} of {total:,}" if total is not None else f"{done:,}"
        left = f", about {_duration((total - done) / rate)} left" if total is not None and rate > 0 else ""
        note = f" ({note})" if note else ""
        msg = f"{self.label}: {count} {unit}{note}, {rate:,.0f}/s, {now - self.t0:.1f} s{left}{best_txt}"
        if self.tty:
            self.stream.write("\r" + msg + "\x1b[K")
        else:
            self.stream.write(msg + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _duration(seconds: float) -> str:
    """``seconds`` rounded as a person reads a wait: 40 s, 7 min, 2.5 h."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
