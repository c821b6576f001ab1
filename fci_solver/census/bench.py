"""``fci bench``: the user-facing benchmark of the search, on the census's batch machinery.

A fixed seeded suite per layout and sea choice, each deal solved exactly in this process (one
at a time, so the seconds mean something), and the two engines' states per second on the same
small positions.  ``--compare`` sets a run against an earlier ``--json`` one.
"""

from __future__ import annotations

import statistics

from ..cards import standard_cards
from ..layouts import load_layout
from ..position import Deal
from .work import Job, solve_seed

SUITES = {
    "quick": [("standard", "none", 10), ("standard", "both", 10), ("ten", "none", 10)],
    "full": [(L, sea, 50) for L in ("standard", "staircase", "cross", "comb", "gap", "tower", "ring")
             for sea in ("none", "both")],
}
RATIO_DEALS = (1, 2)  # seeded standard deals, no sea animals
RATIO_SECONDS = 3.0  # each engine's time on each (the reference engine does not finish them)


def run_suite(name: str, progress=None) -> dict:
    from ..bitboard.search import load_search_kernels

    load_search_kernels()
    cards = standard_cards()
    rows, done = [], 0
    for layout, sea, count in SUITES[name]:
        job = Job(load_layout(layout), sea, 2, "standard", cards)
        solved = []
        for seed in range(1, count + 1):
            solved.append(solve_seed(job, seed))
            done += 1
            if progress:
                progress(done, None)
        secs = sorted(r.seconds for r in solved)
        states = sum(r.states for r in solved)
        rows.append({"layout": layout, "sea": sea, "deals": count, "exact": sum(r.exact for r in solved),
                     "median": round(statistics.median(secs), 4), "p95": round(secs[min(count - 1, int(0.95 * count))], 4),
                     "max": round(secs[-1], 4), "states": states,
                     "states_per_second": round(states / max(sum(secs), 1e-9)), "seeds": [1, count]})
    return {"suite": name, "rows": rows, "engines": engine_ratio(cards)}


def engine_ratio(cards) -> dict:
    """States per second of each engine on the same deals, each search at most
    :data:`RATIO_SECONDS` (both count a state when they expand it)."""
    from ..search import solve

    out = {}
    for engine in ("bitboard", "reference"):
        states = secs = 0.0
        for seed in RATIO_DEALS:
            r = solve(Deal.random("standard", seed).position(2, False, False), cards, engine=engine,
                      time_limit=RATIO_SECONDS)
            secs += r.seconds
            states += r.states
        out[engine] = round(states / secs)
    out["ratio"] = round(out["bitboard"] / out["reference"], 1)
    return out


ROW_FIELDS = ("layout", "sea", "median", "p95", "max", "states_per_second")


def is_run(doc) -> bool:
    """Whether ``doc`` is what ``fci bench --json`` prints (before the suite runs: a wrong
    ``--compare`` file is an error then, not after minutes of solving)."""
    rows = doc.get("rows") if isinstance(doc, dict) else None
    return (isinstance(rows, list) and bool(rows)
            and all(isinstance(r, dict) and all(k in r for k in ROW_FIELDS) for r in rows))


def compare(now: dict, before: dict) -> list[str]:
    """Lines of change, row by row, against an earlier run (negative seconds are faster)."""
    old = {(r["layout"], r["sea"]): r for r in before.get("rows", [])}
    lines = []
    for r in now["rows"]:
        o = old.get((r["layout"], r["sea"]))
        if o is None:
            continue
        parts = [f"{k} {_pct(r[k], o[k])}" for k in ("median", "p95", "max", "states_per_second")]
        lines.append(f"{r['layout']:<10} {r['sea']:<5} " + ", ".join(parts))
    if "engines" in before:
        lines.append(f"engines ratio {before['engines']['ratio']} -> {now['engines']['ratio']}")
    return lines


def _pct(a, b) -> str:
    return "n/a" if not b else f"{(a - b) / b:+.0%}"
