"""Effort lines of a batch of deals: the raw material of the tier calibration.

    python benchmarks/effort_batch.py --grades benchmarks/calibration-bits-standard.jsonl --out benchmarks/calibration-effort-standard.jsonl
    python benchmarks/effort_batch.py --summary benchmarks/calibration-effort-*.jsonl

The deals (and their proven minima) are those of an earlier batch of decision profiles
(benchmarks/profile_batch.py), so each row carries both measures: the deal's effort (the search
states its hardest decision needs, fci_solver/effort.py) and its bits.  One JSON line per deal,
appended as it finishes; deals already in --out are skipped, so a batch resumes where it stopped.
A deal whose minimum is above the target is no puzzle: its row has no effort.  --part K/N takes every
N-th deal from the K-th (run N processes on one --out each).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from collections import Counter

from fci_solver.cards import standard_cards
from fci_solver.effort import effort
from fci_solver.grade import TIERS, tier_of
from fci_solver.position import Deal, parse_sea


def tier_of_row(row) -> str | None:
    if row["effort_bounds"] is None:
        return None
    lo, hi = row["effort_bounds"]
    a, b = tier_of(lo), tier_of(float("inf") if hi is None else hi)
    return a if a == b else None


def summary(paths: list[str]) -> str:
    """Per layout: the share of each tier, and the quartiles of the effort."""
    out = ["| layout | deals | easy | medium | hard | expert | no puzzle (cannot reach 1) | effort: quartiles |",
           "|---|---|---|---|---|---|---|---|"]
    for path in paths:
        rows = [json.loads(line) for line in open(path) if line.strip()]
        n = len(rows)
        tiers = Counter(tier_of_row(r) for r in rows)
        efforts = [r["effort_bounds"][0] for r in rows if r["effort_bounds"]]
        q = statistics.quantiles(efforts, n=4) if len(efforts) >= 4 else []
        out.append(f"| {rows[0]['layout']} | {n} | " + " | ".join(f"{tiers[t]} ({tiers[t] / n:.0%})" for t in TIERS)
                   + f" | {tiers[None]} | " + ", ".join(f"{x:,.0f}" for x in q) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grades", help="JSONL rows of benchmarks/profile_batch.py: the deals and their minima")
    ap.add_argument("--target", type=int, default=1)
    ap.add_argument("--limit", type=int, default=20_000, help="budget cap of a decision (above it: only bounded)")
    ap.add_argument("--part", default="0/1")
    ap.add_argument("--out")
    ap.add_argument("--summary", nargs="+", help="summarise earlier --out files")
    a = ap.parse_args()
    if a.summary:
        print(summary(a.summary))
        return
    k, n = (int(x) for x in a.part.split("/"))
    rows = [json.loads(line) for line in open(a.grades) if line.strip()]
    rows = [r for r in rows if r.get("minimum") is not None][k::n]
    done = set()
    if a.out and os.path.exists(a.out):
        done = {json.loads(line)["seed"] for line in open(a.out) if line.strip()}
    cards = standard_cards()
    for r in rows:
        if r["seed"] in done:
            continue
        if r["minimum"] > a.target:
            row = {"layout": r["layout"], "sea": r["sea"], "seed": r["seed"], "deal": r["deal"], "minimum": r["minimum"],
                   "effort": None, "effort_bounds": None}
        else:
            row = _effort_row(r, cards, a.limit)
        print(json.dumps(row), flush=True)
        if a.out:
            with open(a.out, "a") as f:
                f.write(json.dumps(row) + "\n")


def _effort_row(r: dict, cards, limit: int) -> dict:
    pos = Deal.random(r["layout"], r["seed"]).position(2, *parse_sea(r["sea"]))
    e = effort(pos, cards, r["minimum"], limit=limit)
    lo, hi = e.bounds
    return {"layout": r["layout"], "sea": r["sea"], "seed": r["seed"], "deal": r["deal"], "minimum": r["minimum"],
           "effort": e.hardest, "effort_bounds": [lo, None if hi == float("inf") else hi], "limit": limit,
           "steps": [[s.turn, s.options, s.effort, s.proven] for s in e.steps],
           "bits": r.get("bits"), "bits_bounds": r.get("bits_bounds"),
           "states": e.states, "seconds": round(e.seconds, 2)}


if __name__ == "__main__":
    main()
