"""Output files written whole or not at all.

A large graph takes seconds to write, and a Ctrl-C, a full disk or an error halfway would leave
half a file where the user asked for one (or where an earlier, whole one was).  So the file is
written under a temporary name in the same folder and renamed over the target only once it is
whole; the rename replaces it in one step.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager


@contextmanager
def written_whole(path: str):
    """Yield a temporary path next to ``path``; once the block ends without an error, that file
    becomes ``path`` (through a symbolic link, its target), with the mode the file had, or the
    one a new file gets.  On any error or Ctrl-C the temporary file is removed and ``path`` is
    left as it was."""
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder or ".")
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _mode_for(target: str) -> int:
    try:
        return os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)  # read by setting it: there is no other way
        os.umask(umask)
        return 0o666 & ~umask
