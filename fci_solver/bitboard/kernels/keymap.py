"""Keys to small values in open addressing over numpy arrays (perft's set with a value column).

The perfect-play graph remembers, for millions of next positions, whether each keeps the minimum:
as a dict of tuples that memory and the Python work per key were a large part of a build.  The
caller keeps the map under half full (it grows it with :func:`map_rehash`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import HOT
from .perft import find_slot


@njit(**HOT)
def map_get(sk0, sk1, stag, sval, k0s, k1s, metas, out):
    """``out[j]``: the value of key j, -1 where it is not in the map."""
    for j in range(k0s.shape[0]):
        h = find_slot(sk0, sk1, stag, k0s[j], k1s[j], metas[j])
        out[j] = sval[h] if stag[h] != 0 else -1


@njit(**HOT)
def map_put(sk0, sk1, stag, sval, k0s, k1s, metas, vals, start, count):
    """Set key j to ``vals[j]`` from ``start`` on (``count[0]`` keys held, updated); stops at the
    first new key that would leave the map more than half full and returns its index (the
    caller grows the map and goes on from there), the number of keys when done."""
    half = sk0.shape[0] // 2
    j = start
    while j < k0s.shape[0]:
        h = find_slot(sk0, sk1, stag, k0s[j], k1s[j], metas[j])
        if stag[h] == 0:
            if count[0] >= half:
                break
            sk0[h] = k0s[j]
            sk1[h] = k1s[j]
            stag[h] = np.uint8(metas[j] + 1)
            count[0] += 1
        sval[h] = vals[j]
        j += 1
    return j


@njit(**HOT)
def map_rehash(ok0, ok1, otag, oval, sk0, sk1, stag, sval):
    """Move every key of one map into a larger one."""
    for h in range(otag.shape[0]):
        if otag[h] != 0:
            s = find_slot(sk0, sk1, stag, ok0[h], ok1[h], np.int64(otag[h]) - 1)
            sk0[s] = ok0[h]
            sk1[s] = ok1[h]
            stag[s] = otag[h]
            sval[s] = oval[h]
