"""Decision profiles of a seeded batch of deals: the raw material of the tier calibration.

    python benchmarks/profile_batch.py --layout standard --first 1 --count 500 --state-limit 3000000 --out prof.jsonl

One JSON line per deal (appended as it finishes; seeds already in --out are skipped, so a batch
resumes where it stopped): the minimum, the proven bounds on the bits, and every decision's
options and keeping bounds.  --state-limit bounds the search states each profile may spend (the
same on every machine); bits are exact when every option was settled within it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter

from fci_solver.cards import standard_cards
from fci_solver.difficulty import profile
from fci_solver.grade import TIERS, tier_of
from fci_solver.position import Deal, parse_sea
from fci_solver.search import solve


def summary(paths: list[str]) -> str:
    """Per layout: the share of each tier (unresolved deals counted as the tiers their bounds span)."""
    out = ["| layout | deals | easy | medium | hard | expert | bounds span two tiers | no puzzle (cannot reach 1) | bits: quartiles |",
           "|---|---|---|---|---|---|---|---|---|"]
    for path in paths:
        rows = [json.loads(line) for line in open(path) if line.strip()]
        n = len(rows)
        tiers, span, mids = Counter(), Counter(), []
        for r in rows:
            if not r.get("bits_bounds"):
                tiers["none"] += 1
                continue
            lo, hi = r["bits_bounds"]
            mids.append((lo + hi) / 2)
            a, b = tier_of(lo), tier_of(hi)
            if a == b:
                tiers[a] += 1
            else:
                span[f"{a}/{b}"] += 1
        q = statistics.quantiles(mids, n=4) if len(mids) >= 4 else []
        cells = [f"{tiers[t]} ({tiers[t] / n:.0%})" for t in TIERS]
        out.append(f"| {rows[0]['layout']} | {n} | " + " | ".join(cells) + f" | {sum(span.values())} ("
                   + ", ".join(f"{k} {v}" for k, v in sorted(span.items())) + f") | {tiers['none']} | "
                   + ", ".join(f"{x:.1f}" for x in q) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="standard")
    ap.add_argument("--sea", default="none")
    ap.add_argument("--first", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--target", type=int, default=1)
    ap.add_argument("--state-limit", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--summary", nargs="+", help="summarise earlier --out files, one layout each")
    a = ap.parse_args()
    if a.summary:
        print(summary(a.summary))
        return
    cards = standard_cards()
    done = set()
    if os.path.exists(a.out):
        with open(a.out) as f:
            done = {json.loads(line)["seed"] for line in f if line.strip()}
    for seed in range(a.first, a.first + a.count):
        if seed in done:
            continue
        deal = Deal.random(a.layout, seed)
        pos = deal.position(2, *parse_sea(a.sea))
        t = time.perf_counter()
        r = solve(pos, cards)
        row = {"layout": a.layout, "sea": a.sea, "seed": seed, "deal": str(deal), "minimum": r.min_remaining,
               "solve_states": r.states, "state_limit": a.state_limit}
        if r.min_remaining <= a.target:
            p = profile(pos, cards, r.min_remaining, state_limit=a.state_limit, jobs=a.jobs)
            row.update({k: v for k, v in p.to_dict().items() if k != "decisions"})
            row["decisions"] = [[d.options, *d.keeping_bounds] for d in p.decisions]
        row["seconds"] = round(time.perf_counter() - t, 2)
        print(seed, row.get("bits_bounds"), row["seconds"], flush=True)
        with open(a.out, "a") as f:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
