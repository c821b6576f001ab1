"""What one transposition-table probe costs, by table size.

    python benchmarks/table_bench.py [--sizes 16,20,24,26] [--ops 2000000]

A table of 2^s entries is filled to half with random keys (as the search leaves it before it
grows), then timed in one compiled loop: lookups of stored keys in random order (hits), of keys
never stored (misses) and stores of new keys.  Keys land on random slots, as a search's children
do, so on a table larger than the caches each probe costs a memory access: that is the figure
the table's layout decides.  Nanoseconds per operation, the least of three runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from fci_solver.bitboard import kernels as K
from fci_solver.bitboard.search import BitboardSolver


@njit
def _fill(table, k0, k1, meta):
    for i in range(k0.shape[0]):
        K.tt_store(table, k0[i], k1[i], meta[i], np.int64(i & 255), 1)


@njit
def _lookups(table, k0, k1, meta):
    found = 0
    for i in range(k0.shape[0]):
        if K.tt_lookup(table, k0[i], k1[i], meta[i]) >= 0:
            found += 1
    return found


def keys(rng, n):
    return (rng.integers(0, 2**63, n, dtype=np.uint64), rng.integers(0, 2**63, n, dtype=np.uint64),
            rng.integers(0, 64, n).astype(np.int64))


def best_of(f, *args, repeat=3):
    out, least = None, float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        out = f(*args)
        least = min(least, time.perf_counter() - t)
    return out, least


def measure(bits: int, ops: int, rng) -> dict:
    size = 1 << bits
    table = BitboardSolver._new_table(size)
    stored = keys(rng, size // 2)
    _fill(table, *stored)
    pick = rng.integers(0, size // 2, ops)
    hits = tuple(a[pick] for a in stored)
    misses = keys(rng, ops)
    found, t_hit = best_of(_lookups, table, *hits)
    kept = found / ops  # a full probe window replaces an entry, so a few stored keys are gone
    found, t_miss = best_of(_lookups, table, *misses)
    fresh = keys(rng, min(ops, size // 4))
    t0 = time.perf_counter()
    _fill(table, *fresh)
    t_store = time.perf_counter() - t0
    return {"entries": size, "hit_ns": t_hit / ops * 1e9, "miss_ns": t_miss / ops * 1e9,
            "store_ns": t_store / fresh[0].shape[0] * 1e9, "kept": kept}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="16,20,24,26", help="log2 of the table sizes")
    ap.add_argument("--ops", type=int, default=2_000_000)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    small = keys(rng, 1024)
    _fill(BitboardSolver._new_table(1 << 12), *small)  # compile outside the timings
    _lookups(BitboardSolver._new_table(1 << 12), *small)
    print("| entries | hit ns | miss ns | store ns | stored keys found |")
    print("|---|---|---|---|---|")
    for b in (int(s) for s in args.sizes.split(",")):
        r = measure(b, args.ops, rng)
        print(f"| 2^{b} | {r['hit_ns']:.1f} | {r['miss_ns']:.1f} | {r['store_ns']:.1f} | {r['kept']:.2%} |", flush=True)


if __name__ == "__main__":
    main()
