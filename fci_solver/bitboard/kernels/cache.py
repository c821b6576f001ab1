"""Keep numba's on-disk cache of the kernels in step with their source.

numba checks a cached function against its own file's time stamp only, not against the files of
the functions it calls and inlines: after an edit to ``table.py`` the cached ``dfs.search`` still
carries the old table code, while Python calls into ``table`` get the new one (measured here: a
search's entries then read as misses from Python, and every principal line was searched again).
So the cache is stamped with a digest of every kernel source and dropped when that changes.
An installed release never meets this (its files are new); a working tree does after each edit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

STAMP = "fci-kernels.sha1"


def digest(folder: Path) -> str:
    h = hashlib.sha1()
    for src in sorted(folder.glob("*.py")):
        h.update(src.name.encode())
        h.update(src.read_bytes())
    return h.hexdigest()


def cache_folder(folder: Path) -> Path:
    """Where numba keeps the compiled kernels of the sources in ``folder``: beside them, or under
    ``NUMBA_CACHE_DIR`` when it is set (in a subfolder named after their folder's path)."""
    from numba.core import config
    from numba.core.caching import UserProvidedCacheLocator

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / UserProvidedCacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))
    return folder / "__pycache__"


def drop_stale_cache(folder: Path) -> bool:
    """Delete the compiled kernels of ``folder`` (see :func:`cache_folder`) if the sources changed
    since they were compiled; returns whether it did.  Errors (a read-only install) leave the
    cache alone."""
    cache = cache_folder(folder)
    stamp = cache / STAMP
    now = digest(folder)
    try:
        if stamp.read_text() == now:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(now)
    except OSError:
        return False
    return True
