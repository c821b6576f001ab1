"""The table of benchmarks/CENSUS.md from a census database, and the rows' export.

    python benchmarks/census_table.py census.sqlite [--rows benchmarks/census-rows.jsonl.gz]

Runs ``fci census report --json`` and prints one markdown row per layout and sea choice; with
``--rows``, also writes every stored row as compressed JSON lines (the database stays out of git).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from dataclasses import asdict


def pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def main(db: str) -> None:
    out = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "census", "report",
                          "--db", db, "--json"], check=True, capture_output=True, text=True).stdout
    print("| layout | sea | deals | exact | reach 1 (95% interval) | reach 2 | reach 3 | cannot reach 1 (seeds) "
          "| unresolved (seeds) | median s | p95 s | max s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for g in json.loads(out)["groups"]:
        r = g["reaches"]
        lo, hi = r["1"]["interval"]
        cannot = ", ".join(str(s["seed"]) if isinstance(s, dict) else str(s) for s in g["above_1"]) or "-"
        open_ = ", ".join(str(s) for s in g["unresolved_seeds"]) or "-"
        sec = g["seconds"]
        print(f"| {g['layout']} | {g['sea']} | {g['deals']:,} | {g['exact']:,} | {pct(r['1']['share'])} "
              f"({pct(lo)}-{pct(hi)}) | {pct(r['2']['share'])} | {pct(r['3']['share'])} | {cannot} | {open_} "
              f"| {sec['median']:.3f} | {sec['p95']:.2f} | {sec['max']:.1f} |")


def export(db: str, out: str) -> None:
    from fci_solver.census.store import Store

    store = Store(db)
    try:
        with gzip.open(out, "wt") as f:
            for row in store.rows():
                f.write(json.dumps(asdict(row)) + "\n")
    finally:
        store.close()


if __name__ == "__main__":
    main(sys.argv[1])
    if "--rows" in sys.argv:
        export(sys.argv[1], sys.argv[sys.argv.index("--rows") + 1])
