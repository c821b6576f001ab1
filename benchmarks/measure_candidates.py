"""Which whole-game measure orders the budget players' success?  Candidates computed from profiles.

    python benchmarks/measure_candidates.py --grades benchmarks/calibration-bits-standard.jsonl \
        --players benchmarks/players-200.jsonl

Every candidate is a function of a deal's decision profile alone (each decision's options and
keeping counts, and its turn), so it is exact by its definition and costs nothing beyond the
profile.  For each budget B of the player rows it prints the Spearman rank correlation between the
candidate and the players' success rate per deal (more negative: the measure orders difficulty
better), over all deals and over the odd and the even seeds apart (a candidate chosen for one half
should hold on the other).  A profile whose counts are only bounded counts at its midpoint.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict

from players_bench import spearman


def decision_bits(d) -> float:
    """The bits of one decision ``[options, keeping_lo, keeping_hi]``, at the midpoint of its bounds."""
    options, lo, hi = d
    return (math.log2(options / hi) + math.log2(options / lo)) / 2


def candidates(row) -> dict:
    """Each candidate measure of one profile row: name -> value."""
    b = [decision_bits(d) for d in row["decisions"]]
    out = {"bits (the tier's measure)": sum(b), "first decision's bits": b[0] if b else 0.0}
    for turns in (3, 6, 9):
        out[f"bits of the first {turns} decisions"] = sum(b[:turns])
    for p in (1, 2, 4):
        # each decision weighted by the share of the game still ahead of it, to the power p
        n = max(len(b), 1)
        out[f"bits weighted by the game ahead^{p}"] = sum(x * ((n - i) / n) ** p for i, x in enumerate(b))
    out["narrow decisions"] = sum(1 for d in row["decisions"] if d[2] * 20 < d[0])
    return out


def success(rows: list[dict]) -> dict:
    """(seed, budget) -> [successes, games]."""
    out = defaultdict(lambda: [0, 0])
    seen = set()
    for r in rows:
        k = (r["seed"], r["budget"], r["game"])
        if k in seen:
            continue
        seen.add(k)
        out[(r["seed"], r["budget"])][0] += r["success"]
        out[(r["seed"], r["budget"])][1] += 1
    return out


def table(grades: dict, rates: dict) -> list[str]:
    budgets = sorted({b for _, b in rates})
    names = list(candidates(next(iter(grades.values()))))
    head = "| measure | " + " | ".join(f"B = {b:,} (all / odd / even seeds)" for b in budgets) + " |"
    lines = [head, "|---|" + "---|" * len(budgets)]
    for name in names:
        cells = []
        for b in budgets:
            parts = []
            for keep in (lambda s: True, lambda s: s % 2 == 1, lambda s: s % 2 == 0):
                seeds = [s for (s, bb) in rates if bb == b and keep(s) and s in grades]
                xs = [candidates(grades[s])[name] for s in seeds]
                ys = [rates[(s, b)][0] / rates[(s, b)][1] for s in seeds]
                rho = spearman(xs, ys) if len(seeds) > 2 else math.nan
                parts.append(f"{rho:+.2f}" if rho == rho else "-")  # '-': too few deals, or every rate the same
            n = sum(1 for (s, bb) in rates if bb == b and s in grades)
            cells.append(f"{parts[0]} / {parts[1]} / {parts[2]} ({n})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grades", required=True, help="JSONL rows of benchmarks/profile_batch.py")
    ap.add_argument("--players", required=True, help="JSONL rows of benchmarks/players_bench.py (comma-separated files)")
    a = ap.parse_args()
    grades = {}
    with open(a.grades) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                if r.get("bits_bounds"):
                    grades[r["seed"]] = r
    rows = []
    for path in a.players.split(","):
        with open(path) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    print("\n".join(table(grades, success(rows))))


if __name__ == "__main__":
    main()
