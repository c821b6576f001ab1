"""Progress lines on stderr for long work (quiet for short work, ``--quiet`` and ``--json``)."""

from __future__ import annotations

import sys
import time


class Progress:
    """Call with ``(done, best)``; prints at most every ``every`` seconds, only after ``after`` seconds."""

    def __init__(self, label: str, enabled: bool = True, after: float = 1.0, every: float | None = None, stream=None):
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = getattr(self.stream, "isatty", lambda: False)()
        self.after = after
        self.every = every if every is not None else (0.5 if self.tty else 5.0)
        self.t0 = time.perf_counter()
        self.last = self.t0
        self.shown = False

    def __call__(self, done: int, best=None, unit: str = "states") -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.t0 < self.after or now - self.last < self.every:
            return
        self.last = now
        rate = done / max(now - self.t0, 1e-9)
        best_txt = f", best so far {best}" if best is not None else ""
        msg = f"{self.label}: {done:,} {unit}, {rate:,.0f}/s, {now - self.t0:.1f} s{best_txt}"
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
