"""The state key and the bit tricks every kernel shares.

A state is three integers.  ``k0`` holds cards 0..7 and ``k1`` cards 8..15, one byte per card:
0 when the card is not on top of a stack (eaten, buried, discarded or never dealt), else
``1 + 2 * cell + stacked``.  So a board has at most 127 cells.  ``meta`` holds the rest: bit 0
Shark available, bit 1 Whale available, bits 2-4 the pending effect (0 none, 1..7 = EFFECTS
order), bit 5 the *after-Whale* phase (:mod:`.movegen`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


NCARDS = 16
INF = 99
PHASE_BIT = 32


# pending effect codes (1 + index in cards.EFFECTS)
FOX, LYNX, TIGER, CAIMAN, LION, RACCOON, BEAR = 1, 2, 3, 4, 5, 6, 7


# ability kinds
AB_NONE, AB_MOVE, AB_DISCARD, AB_SWAP, AB_PENDING = 0, 1, 2, 3, 4
BIG = 1 << 20


# Kernels that allocate nothing are compiled without numba's reference counting (``_nrt=False``,
# the flag numba's own allocation-free helpers use).  With it, every call that passes arrays
# increments and decrements each array's count atomically wherever the callee has a loop it
# leaves early: NRT_decref alone took 29% of perf's samples over a batch of solves, and the
# batch ran in 44% less time without them (benchmarks/RESULTS.md, code of 0fb5e71).  Such a
# kernel cannot create arrays: it only reads and writes the ones it is given.
HOT = dict(cache=True, nogil=True, _nrt=False)
# A helper numba inlines into its callers itself (LLVM leaves calls with many array arguments
# as calls, and each array argument is seven words): kernels/bound.py and movegen.py say which.
# It also lets a long kernel read as a few named steps at no cost.  A call of an INLINED helper
# passes at most 30 arguments: CPython 3.11 passes more as one tuple, which numba cannot inline
# ("Calling a closure with *args is unsupported").
INLINED = dict(HOT, inline="always")


@njit(**HOT)
def _code(k0, k1, i):
    """Card ``i``'s byte of the key: 0 when it is on no top, else 1 + 2 * cell + stacked."""
    if i < 8:
        return np.int64((k0 >> np.uint64(8 * i)) & np.uint64(255))
    return np.int64((k1 >> np.uint64(8 * (i - 8))) & np.uint64(255))


@njit(**HOT)
def decode(k0, k1, pos, stk, board):
    """Key -> per-card cell (-1 when off top) and stacked flag, and the cell -> card mailbox."""
    board[:] = -1
    for i in range(NCARDS):
        code = _code(k0, k1, i)
        c = np.int64(code)
        if c == 0:
            pos[i] = -1
            stk[i] = 0
        else:
            pos[i] = (c - 1) >> 1
            stk[i] = (c - 1) & 1
            board[pos[i]] = i


@njit(**HOT)
def stack_count(k0, k1):
    """Stacks on the board: cards whose byte in the key is not 0."""
    return _popcount(_nonzero_bytes(k0) | (_nonzero_bytes(k1) << 8))


_LOW_BITS = np.uint64(0x0101010101010101)
_GATHER = np.uint64(0x0102040810204080)  # bit 8k of a word times this lands on bit 56 + k, alone


@njit(**HOT)
def _byte_bits(w):
    """The low bit of each of the word's 8 bytes, gathered into an 8-bit mask."""
    return np.int64(((w & _LOW_BITS) * _GATHER) >> np.uint64(56))


@njit(**HOT)
def _nonzero_bytes(w):
    """An 8-bit mask of the word's bytes that are not 0."""
    t = w | (w >> np.uint64(4))
    t |= t >> np.uint64(2)
    t |= t >> np.uint64(1)
    return _byte_bits(t)


@njit(**HOT)
def tops_of(k0, k1):
    """(cards on top of a stack, those of them stacked) as 16-bit masks, read from all bytes of
    the key at once: the bound asks this of every child it rates."""
    tops = _nonzero_bytes(k0) | (_nonzero_bytes(k1) << 8)
    odd = _byte_bits(k0) | (_byte_bits(k1) << 8)  # a code is 1 + 2 * cell + stacked: even when stacked
    return tops, tops & ~odd


@njit(**HOT)
def _popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], np.int64)


@njit(**HOT)
def _lowest(m):
    """Index of the lowest set bit of a non-zero mask below 2**32 (de Bruijn: no loop)."""
    return _DEBRUIJN[(((m & -m) * 0x077CB531) & 0xFFFFFFFF) >> 27]
