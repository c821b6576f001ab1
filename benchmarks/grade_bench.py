"""Grade a seeded batch of deals and print the share of each tier (the calibration batch).

    python benchmarks/grade_bench.py --layout standard --sea none --first 1 --count 500 --time-limit 120 --out grades.jsonl
    python benchmarks/grade_bench.py --count 500 --time-limit 60 --tier-only --out calib.jsonl   # the tier alone
    python benchmarks/grade_bench.py --count 250 --state-limit 10000000 --tier-only --out calib.jsonl
    python benchmarks/grade_bench.py --seeds 39,73 --state-limit 40000000 --tier-only --out again.jsonl
    python benchmarks/grade_bench.py --count 50 --quick        # what `fci grade --quick` proves

Seeds are first..first+count-1 (``fci grade --random --seed N``).  Each grade is bounded by
--time-limit or --state-limit; a deal whose facts are not settled within it has no tier and is
counted as such.
With --out, one JSON line per deal is appended as it finishes (so a long batch can be resumed
with --first and summarised with --summary FILE).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections import Counter

from fci_solver.cards import standard_cards
from fci_solver.effort import LIMIT
from fci_solver.grade import TIERS, grade, tier_of
from fci_solver.position import Deal, parse_sea


def summary(rows) -> str:
    tiers = Counter(r["tier"] or "no tier" for r in rows)
    secs = [r["seconds"] for r in rows]
    order = list(TIERS) + sorted(k for k in tiers if k not in TIERS)
    p95 = sorted(secs)[max(0, math.ceil(0.95 * len(secs)) - 1)]
    out = ["| deals | " + " | ".join(order) + " | median s | mean s | p95 s | max s |",
           "|---|" + "---|" * len(order) + "---|---|---|---|",
           f"| {len(rows)} | " + " | ".join(f"{tiers[k]} ({tiers[k] / len(rows):.0%})" for k in order)
           + f" | {statistics.median(secs):.2f} | {statistics.mean(secs):.2f} | {p95:.2f} | {max(secs):.2f} |"]
    # a deal whose tier was not fixed still has its score bounded by the first turns settled
    unfixed = Counter(_span(r) for r in rows if r["tier"] is None)
    if unfixed:
        out.append("\nnot fixed, by the tiers the proven bounds still allow: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(unfixed.items(), key=lambda kv: -kv[1])))
    forg = [r["forgiveness"] for r in rows if r["forgiveness"] is not None]
    if forg:
        out.append(f"\nforgiveness: min {min(forg):.3f}, median {statistics.median(forg):.3f}, max {max(forg):.3f}")
    return "\n".join(out)


def _span(row) -> str:
    if row.get("score_range") is None:
        return "no puzzle (minimum above the target)" if (row["reason"] or "").startswith("the deal cannot") else "unknown"
    lo, hi = (tier_of(x) for x in row["score_range"])
    return lo if lo == hi else f"{lo} to {hi}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", default="none")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seeds", help="grade these seeds instead (comma-separated), e.g. the unfixed ones of an earlier batch again with more states")
    ap.add_argument("--target", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--state-limit", type=int, default=None,
                    help="bound each grade in search states instead (the same on every machine, and a paused run is unaffected)")
    ap.add_argument("--dag-states", type=int, default=200_000)
    ap.add_argument("--tier-only", action="store_true",
                    help="settle only what the tier needs (no Shark/Whale minima, no DAG walk; stop once the tier is fixed)")
    ap.add_argument("--quick", action="store_true", help="the tier's facts with the exact effort, as `fci grade --quick`")
    ap.add_argument("--out")
    ap.add_argument("--summary", help="only summarise an earlier --out file")
    a = ap.parse_args()
    if a.summary:
        with open(a.summary) as f:
            print(summary([json.loads(line) for line in f if line.strip()]))
        return
    cards = standard_cards()
    rows = []
    seeds = [int(s) for s in a.seeds.split(",")] if a.seeds else range(a.first, a.first + a.count)
    for seed in seeds:
        pos = Deal.random(a.layout, seed).position(2, *parse_sea(a.sea))
        t = time.perf_counter()
        g = grade(pos, cards, a.target, a.time_limit, a.dag_states, tier_only=a.tier_only or a.quick,
                  state_limit=a.state_limit, effort_limit=LIMIT if a.quick else None)
        row = {"seed": seed, **g.to_dict(), "seconds": round(time.perf_counter() - t, 2), "state_limit": a.state_limit}
        rows.append(row)
        print(seed, row["tier"], row["minimum"], row["first_turns"], row["keeping"], row["seconds"], flush=True)
        if a.out:
            with open(a.out, "a") as f:
                f.write(json.dumps(row) + "\n")
    print(summary(rows))


if __name__ == "__main__":
    main()
