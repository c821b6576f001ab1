"""What a census says: per layout, sea animals and rules, the shares of each minimum and of each
target reached, with Wilson 95% intervals in which unresolved deals count both ways."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from html import escape

from ..layouts import LAYOUT_NAMES
from ..position import DEFAULT_MARGIN
from .store import Row

TARGETS = (1, 2, 3)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def share(yes: int, unknown: int, n: int) -> dict:
    """A share whose ``unknown`` cases may go either way: the interval runs from the Wilson lower
    bound with them all failing to the upper bound with them all succeeding (as Solvitaire does)."""
    lo = wilson(yes, n)[0]
    hi = wilson(yes + unknown, n)[1]
    return {"count": yes, "unresolved": unknown, "share": yes / n if n else None, "interval": [round(lo, 4), round(hi, 4)]}


def groups(rows: list[Row]) -> dict:
    out = defaultdict(list)
    for r in rows:
        out[(r.layout, r.sea, r.margin, r.rules)].append(r)
    return dict(sorted(out.items()))


def summarise(rows: list[Row], slowest: int = 5) -> list[dict]:
    """One summary per (layout, sea, margin, rules)."""
    out = []
    for (layout, sea, margin, rules), rs in groups(rows).items():
        n = len(rs)
        exact = [r for r in rs if r.exact]
        by_min = defaultdict(int)
        for r in exact:
            by_min[r.minimum] += 1
        targets = {}
        for t in TARGETS:
            yes = sum(1 for r in rs if r.minimum <= t)  # a line reaching t is a proof even when not exact
            unknown = sum(1 for r in rs if r.minimum > t and not r.exact and r.lower_bound <= t)
            targets[str(t)] = share(yes, unknown, n)
        secs = sorted(r.seconds for r in rs)
        out.append({
            "layout": layout, "sea": sea, "margin": margin, "rules": rules, "deals": n,
            "exact": len(exact), "unresolved": n - len(exact),
            "minimum": {str(k): share(v, 0, n) for k, v in sorted(by_min.items())},
            "reaches": targets,
            "seconds": {"median": round(statistics.median(secs), 4), "mean": round(sum(secs) / n, 4),
                        "p95": round(secs[min(n - 1, int(0.95 * n))], 4), "max": round(secs[-1], 4),
                        "total": round(sum(secs), 2)},
            "states": sum(r.states for r in rs),
            "slowest": [{"seed": r.seed, "seconds": r.seconds, "states": r.states}
                        for r in sorted(rs, key=lambda r: -r.seconds)[:slowest]],
            "above_1": [r.seed for r in rs if r.exact and r.minimum > 1],
            "unresolved_seeds": [r.seed for r in rs if not r.exact],
        })
    return out


def text(summary: list[dict]) -> list[str]:
    lines = []
    for g in summary:
        lines.append(f"{g['layout']}, sea {g['sea']}, margin {g['margin']}, rules {g['rules']}: {g['deals']:,} deals "
                     f"({g['exact']:,} exact, {g['unresolved']:,} unresolved)")
        for t, s in g["reaches"].items():
            lo, hi = s["interval"]
            lines.append(f"  reach {t} or fewer: {s['count']:,} = {s['share']:.2%}  (95% interval {lo:.2%} to {hi:.2%})")
        lines.append("  minimum: " + ", ".join(f"{k}: {v['count']:,}" for k, v in g["minimum"].items()))
        sec = g["seconds"]
        lines.append(f"  seconds: median {sec['median']}, mean {sec['mean']}, p95 {sec['p95']}, max {sec['max']}; "
                     f"slowest seeds: " + ", ".join(f"{x['seed']} ({x['seconds']} s)" for x in g["slowest"]))
        if g["unresolved_seeds"]:
            lines.append(f"  unresolved (time limit): seeds {', '.join(map(str, g['unresolved_seeds'][:30]))}")
        above = g["above_1"]
        lines.append(f"  seeds that cannot reach 1: {', '.join(map(str, above[:30])) or 'none'}"
                     + (f" (and {len(above) - 30} more)" if len(above) > 30 else "")
                     + (f" (look at one: {_solve_command(g, above[0])})" if above else ""))
    return lines


def plot_svg(summary: list[dict], rows: list[Row]) -> str:
    """A chart a person would rather look at than the table: for each group the share that
    reaches 1 stack with its interval, and the distribution of solve times (log scale)."""
    w, bar_h, gap = 760, 22, 8
    top = 60
    h1 = top + len(summary) * (bar_h + gap) + 40
    lo_share = min([g["reaches"]["1"]["interval"][0] for g in summary] + [0.9])
    floor = math.floor(lo_share * 20) / 20  # the axis starts a little below the lowest interval
    x0, x1 = 230, w - 40

    def sx(v):
        return x0 + (v - floor) / (1 - floor) * (x1 - x0)

    body = ['<text x="20" y="28" font-size="18" font-weight="bold">Share of deals that can end with 1 stack</text>',
            '<text x="20" y="46" font-size="12" fill="#555">bars: the share; whiskers: Wilson 95% interval, '
            'unresolved deals counted both ways</text>']
    for i, g in enumerate(summary):
        y = top + i * (bar_h + gap)
        s = g["reaches"]["1"]
        lo, hi = s["interval"]
        body.append(f'<text x="{x0 - 8}" y="{y + bar_h * 0.7}" font-size="12" text-anchor="end">'
                    f'{escape(g["layout"])}, sea {escape(g["sea"])} ({g["deals"]:,})</text>')
        body.append(f'<rect x="{x0}" y="{y}" width="{max(0, sx(s["share"]) - x0):.1f}" height="{bar_h}" fill="#7aa6d8"/>')
        body.append(f'<line x1="{sx(lo):.1f}" x2="{sx(hi):.1f}" y1="{y + bar_h / 2}" y2="{y + bar_h / 2}" stroke="#123" stroke-width="2"/>')
        for v in (lo, hi):
            body.append(f'<line x1="{sx(v):.1f}" x2="{sx(v):.1f}" y1="{y + 4}" y2="{y + bar_h - 4}" stroke="#123" stroke-width="2"/>')
        body.append(f'<text x="{sx(s["share"]) + 4:.1f}" y="{y + bar_h * 0.7}" font-size="11">{s["share"]:.2%}</text>')
    for k in range(0, 11):
        v = floor + (1 - floor) * k / 10
        x = sx(v)
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{h1 - 36}" stroke="#ddd"/>')
        body.append(f'<text x="{x:.1f}" y="{h1 - 22}" font-size="10" text-anchor="middle">{v:.0%}</text>')
    # solve times, log-binned
    secs = [max(r.seconds, 1e-4) for r in rows]
    bins = list(range(-4, 3))  # 0.1 ms .. 100 s
    counts = [sum(1 for s in secs if 10 ** b <= s < 10 ** (b + 1)) for b in bins]
    y0, hh = h1 + 40, 160
    body.append(f'<text x="20" y="{y0 - 14}" font-size="16" font-weight="bold">Solve times ({len(secs):,} deals)</text>')
    most = max(counts) or 1
    bw = (x1 - x0) / len(bins)
    for i, (b, c) in enumerate(zip(bins, counts)):
        bh = hh * c / most
        x = x0 + i * bw
        body.append(f'<rect x="{x + 2:.1f}" y="{y0 + hh - bh:.1f}" width="{bw - 4:.1f}" height="{bh:.1f}" fill="#d89a7a"/>')
        body.append(f'<text x="{x + bw / 2:.1f}" y="{y0 + hh + 14}" font-size="10" text-anchor="middle">'
                    f'{_seconds(10 ** b)}-{_seconds(10 ** (b + 1))}</text>')
        body.append(f'<text x="{x + bw / 2:.1f}" y="{y0 + hh - bh - 4:.1f}" font-size="10" text-anchor="middle">{c:,}</text>')
    height = y0 + hh + 30
    return (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{height}" '
            f'viewBox="0 0 {w} {height}" font-family="Helvetica, Arial, sans-serif">\n'
            f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _seconds(v: float) -> str:
    return f"{v * 1000:g} ms" if v < 1 else f"{v:g} s"


def _solve_command(g: dict, seed: int) -> str:
    """The command that solves one deal of the group ``g``."""
    layout = g["layout"] if g["layout"] in LAYOUT_NAMES else "FILE"
    extra = "" if g["margin"] == DEFAULT_MARGIN else f" --margin {g['margin']}"
    extra += " --plain" if g["rules"] == "plain" else " --cards FILE" if g["rules"] != "standard" else ""
    return f"fci solve --layout {layout} --sea {g['sea']}{extra} --random --seed {seed}"
