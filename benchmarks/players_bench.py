"""Do the tiers order difficulty?  Simulated players of growing strength play graded deals.

    python benchmarks/players_bench.py --grades prof.jsonl --per-tier 15 --games 8 --budgets 100,1000,10000 --out players.jsonl
    python benchmarks/players_bench.py --summary players.jsonl --grades prof.jsonl

A player's strength is an effort budget B, as a person's is: at each position it gives every
next position at most B states of the project's own search ("can the minimum still be reached
from here?"), then plays uniformly among the positions proven to keep it, else among those not
proven lost, else among all.  Its table of what it has searched lasts one game (a person
remembers what they worked out earlier in the same game).  A game succeeds when it ends with the
deal's minimum.  These are samples (seeded, so reproducible): the summary gives each rate with a
Wilson 95% interval, the Spearman rank correlation between a deal's effort (and bits) and its
players' success, and per deal the least budget of the grid with which a player succeeds in at least half
its games (the effort figure).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from collections import defaultdict

import numpy as np

from fci_solver.bitboard import kernels as K
from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.engine import Engine
from fci_solver.bitboard.search import BitboardSolver
from fci_solver.cards import standard_cards
from fci_solver.census.report import wilson
from fci_solver.grade import TIERS, tier_of
from fci_solver.position import Deal, parse_sea


def play_game(eng: Engine, cards, root, minimum: int, budget: int, rng: random.Random) -> int:
    """One game of the budget-B player from ``root``; returns the stacks it ends with."""
    solver = BitboardSolver(cards, memory=256)
    solver.once = False  # the player models the effort: the search as the tiers were calibrated
    key = root
    while True:
        kids = sorted(eng.next_states(key))
        if not kids:
            return int(K.stack_count(np.uint64(key[0]), np.uint64(key[1])))
        keep, open_ = [], []
        for ch in kids:
            if eng.lower_bound(ch) > minimum:
                continue
            v = solver.value(eng, ch, minimum + 1, max_states=budget, near_first=True)
            if v is None:
                open_.append(ch)
            elif v <= minimum:
                keep.append(ch)
        key = rng.choice(keep or open_ or kids)


def spearman(xs, ys) -> float:
    def ranks(v):
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))
    return num / den if den else float("nan")


def bits_of(row) -> float:
    return row["bits"] if row.get("bits") is not None else sum(row["bits_bounds"]) / 2


def effort_of(row) -> float:
    return row["effort_bounds"][0]  # exact, or the proven floor when a decision needs more than the cap


def tier_of_row(row) -> str | None:
    """The deal's tier: from its effort (rows of benchmarks/effort_batch.py, which the tiers
    follow), or from its bits (rows of benchmarks/profile_batch.py: the tiers before the effort)."""
    if "effort_bounds" in row:
        lo, hi = row["effort_bounds"]
        a, b = tier_of(lo), tier_of(math.inf if hi is None else hi)
        return a if a == b else None
    if row.get("bits") is not None:
        return bits_tier(row["bits"])
    lo, hi = row["bits_bounds"]
    return bits_tier(lo) if bits_tier(lo) == bits_tier(hi) else None


# The tiers by bits, before the effort: how the 200 deals of players-200.jsonl were chosen.
BITS_FLOORS = (0.0, 26.0, 32.0, 38.0)


def bits_tier(bits: float) -> str:
    return TIERS[sum(bits >= f for f in BITS_FLOORS[1:])]


def pick_deals(grades: list[dict], per_tier: int | None, max_seed: int | None = None,
               count: int | None = None) -> list[dict]:
    """Deals of each proven tier, lowest seeds first (a fixed, fair choice): ``per_tier`` of each,
    or ``count`` in all shared as evenly as the tiers allow (a tier with fewer deals gives its
    share to the others)."""
    pools = {t: sorted((r for r in grades if r.get("bits_bounds") and tier_of_row(r) == t
                        and (max_seed is None or r["seed"] <= max_seed)), key=lambda r: r["seed"])
             for t in TIERS}
    take = {t: min(per_tier or 0, len(pools[t])) for t in TIERS}
    if count is not None:
        take = dict.fromkeys(TIERS, 0)
        while sum(take.values()) < count and any(take[t] < len(pools[t]) for t in TIERS):
            for t in TIERS:
                if take[t] < len(pools[t]) and sum(take.values()) < count:
                    take[t] += 1
    return [r for t in TIERS for r in pools[t][:take[t]]]


def summary(rows: list[dict], grades: dict) -> str:
    rows = list({(r["layout"], r["seed"], r["budget"], r["game"]): r for r in rows}.values())  # a game once
    by = defaultdict(lambda: [0, 0])
    per_deal = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for r in rows:
        g = grades[(r["layout"], r["seed"])]
        t = tier_of_row(g)
        by[(t, r["budget"])][0] += r["success"]
        by[(t, r["budget"])][1] += 1
        per_deal[(r["layout"], r["seed"])][r["budget"]][0] += r["success"]
        per_deal[(r["layout"], r["seed"])][r["budget"]][1] += 1
    budgets = sorted({r["budget"] for r in rows})
    out = ["| tier | deals | " + " | ".join(f"B = {b:,}" for b in budgets) + " |",
           "|---|---|" + "---|" * len(budgets)]
    for t in TIERS:
        deals = sum(1 for k in per_deal if tier_of_row(grades[k]) == t)
        cells = []
        for b in budgets:
            k, n = by[(t, b)]
            lo, hi = wilson(k, n)
            cells.append(f"{k}/{n} = {k / n:.0%} ({lo:.0%}-{hi:.0%})" if n else "-")
        out.append(f"| {t} | {deals} | " + " | ".join(cells) + " |")
    out.append("")
    measures = [("effort", effort_of)] if all("effort_bounds" in grades[k] for k in per_deal) else []
    if all(grades[k].get("bits_bounds") for k in per_deal):
        measures.append(("bits", bits_of))
    for name, measure in measures:
        for b in budgets:
            xs, ys = [], []
            for key, d in per_deal.items():
                if d[b][1]:
                    xs.append(measure(grades[key]))
                    ys.append(d[b][0] / d[b][1])
            rho = spearman(xs, ys)
            out.append(f"Spearman rank correlation, {name} against success at B = {b:,}: "
                       + (f"{rho:+.2f} over {len(xs)} deals" if rho == rho else f"none (every one of {len(xs)} deals has the same rate)"))
    effort = defaultdict(list)
    for key, d in per_deal.items():
        least = next((b for b in budgets if d[b][1] and d[b][0] * 2 >= d[b][1]), None)
        effort[tier_of_row(grades[key])].append(least)
    out.append("")
    out.append("Least budget of the grid with which the player succeeds in at least half its games, per deal:")
    for t in TIERS:
        vals = effort.get(t, [])
        text = ", ".join("-" if v is None else f"{v:,}" for v in sorted(vals, key=lambda v: v or math.inf))
        out.append(f"  {t}: {text or 'no deals'}  ('-': not within {budgets[-1]:,})")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grades", required=True, help="JSONL rows of benchmarks/effort_batch.py (the deals, their effort and bits), "
                    "or of benchmarks/profile_batch.py (bits only); several, comma-separated")
    ap.add_argument("--per-tier", type=int, default=10)
    ap.add_argument("--deals", type=int, help="this many deals in all, shared evenly among the tiers (instead of --per-tier)")
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--budgets", default="100,1000,10000")
    ap.add_argument("--sea", default="none")
    ap.add_argument("--max-seed", type=int, help="choose only among deals with seeds up to this")
    ap.add_argument("--part", default="0/1", help="K/N: play only every N-th deal from the K-th (run N processes)")
    ap.add_argument("--reverse", action="store_true", help="play the deals last first (a second process on the same part)")
    ap.add_argument("--seeds-from", help="play the deals of an earlier --out file (instead of choosing by tier)")
    ap.add_argument("--out")
    ap.add_argument("--summary", help="summarise an earlier --out file")
    a = ap.parse_args()
    grades = {}
    for path in a.grades.split(","):
        with open(path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    grades[(r["layout"], r["seed"])] = r
    if a.summary:
        with open(a.summary) as f:
            print(summary([json.loads(line) for line in f if line.strip()], grades))
        return
    k, n = (int(x) for x in a.part.split("/"))
    if a.seeds_from:
        with open(a.seeds_from) as f:
            chosen = {(r["layout"], r["seed"]) for r in map(json.loads, f) if r}
        deals = sorted((g for key, g in grades.items() if key in chosen), key=lambda g: g["seed"])[k::n]
    else:
        deals = pick_deals(list(grades.values()), a.per_tier, a.max_seed, a.deals)[k::n]
    if a.reverse:
        deals.reverse()
    done = set()
    if a.out and os.path.exists(a.out):
        with open(a.out) as f:
            done = {(r["layout"], r["seed"], r["budget"], r["game"]) for r in map(json.loads, f) if r}
    cards = standard_cards()
    for g in deals:
        pos = Deal.random(g["layout"], g["seed"]).position(2, *parse_sea(a.sea))
        eng = Engine(pos.board, cards)
        for budget in (int(b) for b in a.budgets.split(",")):
            for game in range(a.games):
                if (g["layout"], g["seed"], budget, game) in done:
                    continue
                t = time.perf_counter()
                rng = random.Random(f"{g['layout']}/{g['seed']}/{budget}/{game}")
                end = play_game(eng, cards, key_of(pos), g["minimum"], budget, rng)
                row = {"layout": g["layout"], "seed": g["seed"], "budget": budget, "game": game, "end": end,
                       "success": int(end == g["minimum"]), "seconds": round(time.perf_counter() - t, 2)}
                print(row, flush=True)
                if a.out:
                    with open(a.out, "a") as f:
                        f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
