"""The transposition table: open addressing over numpy arrays, a few probes per lookup.

Threads may share one table (a parallel solve, a grade's next positions): an entry is five
stores, so a reader can meet one half-written.  As in Stockfish and Hyatt's lockless hashing, the
second key word is stored mixed with the value and the tag (``tk1 = k1 ^ _mix(value, tag)``): a
torn entry fails the key check and reads as a miss, never as another position's value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import HOT


@njit(**HOT)
def _hash(k0, k1, meta):
    h = k0 * np.uint64(0x9E3779B97F4A7C15)
    h ^= (k1 + np.uint64(meta)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= h >> np.uint64(29)
    h *= np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(32)
    return h


PROBES = 8


@njit(**HOT)
def _mix(word, tag):
    return (np.uint64(word) * np.uint64(256) + np.uint64(tag) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)


@njit(**HOT)
def tt_lookup(tk0, tk1, tmeta, tval, k0, k1, meta):
    """Return the stored value word (value | exact << 8), or -1."""
    mask = np.uint64(tk0.shape[0] - 1)
    i = _hash(k0, k1, meta) & mask
    tag = np.uint8(meta + 1)
    for _ in range(PROBES):
        if tmeta[i] == 0:
            return -1
        t = tmeta[i]
        w = tval[i]
        if t == tag and tk0[i] == k0 and tk1[i] == k1 ^ _mix(w, t):
            return np.int64(w)
        i = (i + np.uint64(1)) & mask
    return -1


@njit(**HOT)
def tt_store(tk0, tk1, tmeta, tval, twork, k0, k1, meta, word, work):
    """Store; when the probe window is full, replace the entry with the least work below it."""
    mask = np.uint64(tk0.shape[0] - 1)
    i = _hash(k0, k1, meta) & mask
    tag = np.uint8(meta + 1)
    victim = i
    least = 1 << 30
    fresh = 0
    for _ in range(PROBES):
        if tmeta[i] == 0 or (tmeta[i] == tag and tk0[i] == k0 and tk1[i] == k1 ^ _mix(tval[i], tag)):
            victim = i
            fresh = 1 if tmeta[i] == 0 else 0
            break
        if twork[i] < least:
            least = twork[i]
            victim = i
        i = (i + np.uint64(1)) & mask
    tk0[victim] = k0
    tk1[victim] = k1 ^ _mix(np.int16(word), tag)
    tmeta[victim] = tag
    tval[victim] = word
    twork[victim] = work
    return fresh


@njit(**HOT)
def tt_rehash(ok0, ok1, ometa, oval, owork, tk0, tk1, tmeta, tval, twork):
    """Move every entry of the old table into a larger one; returns the number of entries."""
    used = 0
    for i in range(ok0.shape[0]):
        if ometa[i] != 0:
            k1 = ok1[i] ^ _mix(oval[i], ometa[i])
            used += tt_store(tk0, tk1, tmeta, tval, twork, ok0[i], k1, np.int64(ometa[i]) - 1, oval[i], owork[i])
    return used


@njit(**HOT)
def tt_first_exact(tk0, tk1, tmeta, tval, ck0, ck1, cmeta, n, value):
    """The first of the ``n`` keys whose stored value is exactly ``value``, or -1 (the principal
    line's next step, read in one call: a node can have thousands of children)."""
    for j in range(n):
        w = tt_lookup(tk0, tk1, tmeta, tval, ck0[j], ck1[j], cmeta[j])
        if w >= 0 and (w >> 8) == 1 and (w & 255) == value:
            return j
    return -1
