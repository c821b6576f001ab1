"""``fci census run`` and ``fci census report``: a thin click layer over :mod:`fci_solver.census`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..cards import resolve_cards
from ..errors import FciError
from ..layouts import load_layout
from ..progress import Progress
from ..text import plural
from .store import DEFAULT_DB, Store, digest


def parse_range(text: str) -> list[int]:
    """``A-B`` (inclusive) or ``N``, or several joined by commas."""
    out = []
    for part in text.split(","):
        a, dash, b = part.strip().partition("-")
        try:
            lo, hi = int(a), int(b) if dash else int(a)
        except ValueError:
            raise FciError(f"--deals {text!r}: write seeds as A-B, e.g. 1-2000") from None
        if lo < 0 or hi < lo:
            raise FciError(f"--deals {text!r}: a range runs from a seed up to a larger one")
        out += range(lo, hi + 1)
    return sorted(set(out))


@click.group("census", short_help="Exact answers over many deals, stored in SQLite.")
def census():
    """Solve ranges of seeded deals exactly and report how winnable the game is."""


@census.command("run", short_help="Solve a range of seeded deals into the database.")
@click.option("--layout", "-l", default="standard", show_default=True, help="Layout name or path to a layout file.")
@click.option("--sea", type=click.Choice(["both", "shark", "whale", "none"], case_sensitive=False), default="both",
              show_default=True, help="Sea animals available.")
@click.option("--deals", "deals", required=True, help="Seeds to solve, e.g. 1-2000 (the deals of fci solve --random --seed N).")
@click.option("--margin", type=click.IntRange(min=0), default=2, show_default=True, help="Open cells around the layout.")
@click.option("--cards", "cards_file", type=click.Path(dir_okay=False), help="Card table JSON file.")
@click.option("--plain", is_flag=True, help="Turn every ability off.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Worker processes (local backend) or Dask workers (--scheduler local).")
@click.option("--db", default=DEFAULT_DB, show_default=True, help="The census database (SQLite; created when missing).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), help="Seconds per deal; a deal cut short is stored as unresolved.")
@click.option("--backend", type=click.Choice(["local", "dask"], case_sensitive=False), default="local", show_default=True,
              help="Where the deals are solved.")
@click.option("--scheduler", default="local", show_default=True, help="With --backend dask: the scheduler's address, or local for a LocalCluster here.")
@click.option("--retry-unresolved", "retry", is_flag=True,
              help="Solve again the deals stored unresolved (a time limit cut them short); their rows are replaced.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
def census_run(layout, sea, deals, margin, cards_file, plain, jobs, db, time_limit, backend, scheduler, retry, quiet,
               as_json):
    """Solve deal seeds exactly and store one row per deal.  Running the same command again
    skips the deals already stored; Ctrl-C stops at once with everything finished saved.

    \b
    Examples:
      fci census run --layout six --sea none --deals 1-200 --db six.sqlite
      fci census run --layout standard --sea both --deals 1-100 --jobs 2 --db std.sqlite
      fci census run --layout six --sea none --deals 1-200 --db six.sqlite --retry-unresolved
    """
    from .work import Job, run_dask, run_local

    L = load_layout(layout)
    cards = resolve_cards(cards_file, plain)
    rules = "plain" if plain else ("standard" if not cards_file else f"custom-{digest(Path(cards_file).read_text())}")
    seeds = parse_range(deals)
    store = Store(db)
    try:
        store.bind("layout", L.name, str(L))
        store.bind("rules", rules, repr(cards))
        stored = store.done(L.name, sea, margin, rules)
        again = store.unresolved(L.name, sea, margin, rules) if retry else set()
        todo = [s for s in seeds if s not in stored or s in again]
        progress = Progress("census", enabled=not (quiet or as_json))
        done = [0]

        def on_row(row):
            store.add(row, replace=row.seed in again)
            done[0] += 1
            progress(done[0], None, f"of {len(todo):,} deals solved")

        job = Job(L, sea, margin, rules, cards, time_limit)
        if backend == "dask":
            run_dask(job, todo, scheduler, on_row, workers=jobs)
        else:
            run_local(job, todo, jobs, on_row)
        progress.close()
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"db": db, "asked": len(seeds), "already_stored": len(seeds) - len(todo),
                                "retried": len(again & set(seeds)), "solved": done[0]}))
    else:
        retried = f" ({len(again & set(seeds)):,} of them retried)" if retry else ""
        stored = len(seeds) - len(todo)
        click.echo(f"{db}: {plural(done[0], 'deal')} solved now{retried}, {stored:,} "
                   f"{'was' if stored == 1 else 'were'} already stored.")


@census.command("report", short_help="Shares of each result, with 95% intervals.")
@click.option("--db", default=DEFAULT_DB, show_default=True, help="The census database.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), help="Also draw the shares and the solve times as an SVG chart.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def census_report(db, plot_file, as_json):
    """Per layout, sea animals and rules: the deals, the share with each minimum, the share that
    reaches each target with a Wilson 95% interval (unresolved deals counted both ways), the
    slowest deals, and the seeds that cannot end with 1 stack.

    \b
    Examples:
      fci census run --layout six --sea none --deals 1-100 --db six.sqlite -q && fci census report --db six.sqlite
      fci census run -l six --deals 1-50 --db six.sqlite -q && fci census report --db six.sqlite --plot six.svg --json
    """
    from .report import plot_svg, summarise, text

    if not Path(db).exists():
        raise FciError(f"no census database at {db!r} (fci census run makes one)")
    if plot_file and Path(plot_file).suffix.lower() != ".svg":
        raise FciError(f"--plot {plot_file!r}: the chart is an .svg file")
    store = Store(db)
    try:
        rows = store.rows()
    finally:
        store.close()
    if not rows:
        raise FciError(f"the census database {db!r} holds no deals yet")
    summary = summarise(rows)
    if plot_file:
        try:
            Path(plot_file).write_text(plot_svg(summary, rows), encoding="utf-8")
        except OSError as e:
            raise FciError(f"cannot write {plot_file!r}: {e.strerror}") from None
    if as_json:
        click.echo(json.dumps({"db": db, "groups": summary}, indent=1))
        return
    for line in text(summary):
        click.echo(line)
    if plot_file:
        click.echo(f"Wrote {plot_file}.")


@click.command("bench", short_help="Benchmark the search on a fixed suite of deals.")
@click.option("--suite", type=click.Choice(["quick", "full"], case_sensitive=False), default="quick", show_default=True,
              help="quick: 30 deals; full: 50 deals of each layout with and without sea animals.")
@click.option("--compare", "compare_file", type=click.Path(dir_okay=False), help="An earlier --json run to compare with.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (keep it for a later --compare).")
def bench(suite, compare_file, as_json):
    """Solve a fixed seeded suite one deal at a time and report median, p95 and max seconds,
    states per second, and the numba/reference engines' states per second on the same deals.
    Time it on an idle machine.

    \b
    Examples:
      fci bench --json > before.json && fci bench --compare before.json
    """
    from .bench import compare, is_run, run_suite

    before = None
    if compare_file:
        try:
            before = json.loads(Path(compare_file).read_text())
        except (OSError, ValueError) as e:
            raise FciError(f"cannot read --compare {compare_file!r}: {e}") from None
        if not is_run(before):
            raise FciError(f"--compare {compare_file!r} is not a run of fci bench --json (no rows of layout, sea and seconds)")
    progress = Progress("bench", enabled=not as_json)
    result = run_suite(suite, progress=lambda n, _: progress(n, None, "deals"))
    progress.close()
    if before is not None:
        result["compare"] = compare(result, before)
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(f"{'layout':<10} {'sea':<5} {'deals':>5} {'exact':>5} {'median s':>9} {'p95 s':>8} {'max s':>8} {'states/s':>11}")
    for r in result["rows"]:
        click.echo(f"{r['layout']:<10} {r['sea']:<5} {r['deals']:>5} {r['exact']:>5} {r['median']:>9.4f} {r['p95']:>8.3f} "
                   f"{r['max']:>8.3f} {r['states_per_second']:>11,}")
    e = result["engines"]
    click.echo(f"states/s on the same small deals: numba {e['bitboard']:,}, reference {e['reference']:,}: {e['ratio']}x")
    for line in result.get("compare", []):
        click.echo("  " + line)
