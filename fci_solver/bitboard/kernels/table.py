"""The transposition table: open addressing over one uint64[n, 3] array, a few probes per lookup.

An entry is three words side by side, so a probe reads one cache line (rarely two) where a table
of one array per field read four: on a table larger than the caches a probe is one memory access
(``benchmarks/table_bench.py``).  Word 2 is the data: tag (meta + 1; 0 = empty) in bits 0-7,
the value word (value | exact << 8) in bits 8-23, the work below the entry in bits 24-31.

Threads may share one table (a parallel solve, a grade's next positions): an entry is three
stores, so a reader can meet one half-written.  As in Stockfish and Hyatt's lockless hashing,
both key words are stored mixed with the data word (and the second with the first key word too):
an entry whose words come from two different stores fails the key check and reads as a miss,
never as another position's value.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

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
FIELDS = 3  # words per entry: k0 mixed, k1 mixed, data


@njit(**HOT)
def _mix(word):
    return (word + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)


@njit(**HOT)
def _data(tag, word, work):
    return np.uint64(tag) | (np.uint64(word & 0xFFFF) << np.uint64(8)) | (np.uint64(work & 255) << np.uint64(24))


@njit(**HOT)
def _holds(tt, i, k0, k1, tag):
    """Whether slot ``i`` holds the key (whole: a torn entry does not)."""
    d = tt[i, 2]
    return ((d & np.uint64(255)) == tag and tt[i, 0] == k0 ^ _mix(d)
            and tt[i, 1] == k1 ^ _mix(d ^ k0))


@intrinsic
def _prefetch(typingctx, arr, i):
    """Ask the CPU to bring the cache line holding word ``i`` of a C-contiguous array (a hint:
    no fault, no wait)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0i8")
        # read, keep in all cache levels, data
        builder.call(fn, [builder.bitcast(builder.gep(data, [args[1]]), i8p), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(arr, i), codegen


@njit(**HOT)
def tt_prefetch(tt, k0, k1, meta):
    """Start loading the first slot a lookup of the key reads: on a table larger than the caches
    a lookup waits about as long as the rest of a node's work, and a search that knows which
    children it will look up can have the loads overlap (Stockfish prefetches the same way)."""
    i = np.int64(_hash(k0, k1, meta) & np.uint64(tt.shape[0] - 1))
    _prefetch(tt, i * FIELDS + 2)


@njit(**HOT)
def tt_lookup(tt, k0, k1, meta):
    """Return the stored value word (value | exact << 8), or -1."""
    mask = np.uint64(tt.shape[0] - 1)
    i = _hash(k0, k1, meta) & mask
    tag = np.uint64(meta + 1)
    for _ in range(PROBES):
        d = tt[i, 2]
        if d == 0:
            return -1
        if _holds(tt, i, k0, k1, tag):
            return np.int64((d >> np.uint64(8)) & np.uint64(0xFFFF))
        i = (i + np.uint64(1)) & mask
    return -1


@njit(**HOT)
def tt_store(tt, k0, k1, meta, word, work):
    """Store; when the probe window is full, replace the entry with the least work below it.
    Returns 1 when the entry took an empty slot."""
    mask = np.uint64(tt.shape[0] - 1)
    i = _hash(k0, k1, meta) & mask
    tag = np.uint64(meta + 1)
    victim = i
    least = np.uint64(1 << 30)
    fresh = 0
    for _ in range(PROBES):
        d = tt[i, 2]
        if d == 0 or _holds(tt, i, k0, k1, tag):
            victim = i
            fresh = 1 if d == 0 else 0
            break
        w = d >> np.uint64(24)
        if w < least:
            least = w
            victim = i
        i = (i + np.uint64(1)) & mask
    d = _data(tag, np.int64(word), np.int64(work))
    tt[victim, 0] = k0 ^ _mix(d)
    tt[victim, 1] = k1 ^ _mix(d ^ k0)
    tt[victim, 2] = d
    return fresh


@njit(**HOT)
def tt_rehash(old, tt):
    """Move every entry of the old table into a larger one; returns the number of entries."""
    used = 0
    for i in range(old.shape[0]):
        d = old[i, 2]
        if d != 0:
            k0 = old[i, 0] ^ _mix(d)
            k1 = old[i, 1] ^ _mix(d ^ k0)
            meta = np.int64(d & np.uint64(255)) - 1
            word = np.int64((d >> np.uint64(8)) & np.uint64(0xFFFF))
            used += tt_store(tt, k0, k1, meta, word, np.int64(d >> np.uint64(24)))
    return used


@njit(**HOT)
def tt_first_exact(tt, ck0, ck1, cmeta, n, value):
    """The first of the ``n`` keys whose stored value is exactly ``value``, or -1 (the principal
    line's next step, read in one call: a node can have thousands of children)."""
    for j in range(n):
        w = tt_lookup(tt, ck0[j], ck1[j], cmeta[j])
        if w >= 0 and (w >> 8) == 1 and (w & 255) == value:
            return j
    return -1
