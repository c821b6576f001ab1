"""The ``fci`` command's entry point: Ctrl-C is answered from the first instant.

Importing the command line (numpy, numba, click) takes about half a second, and a Ctrl-C in that
time would end in a traceback.  This module imports nothing heavy, so it takes SIGINT first; the
command line then installs its own handler (:mod:`.interrupt`).
"""

from __future__ import annotations

import signal
import sys


def _early(signum, frame):
    sys.stderr.write("fci: interrupted\n")
    raise SystemExit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _early)
    from .cli import main as run

    run()
