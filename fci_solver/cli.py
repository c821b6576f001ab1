"""The ``fci`` command line: a thin click layer over the library.

Every command that produces results has ``--json``.  Bad input gets one line
on stderr naming the problem and exit status 2.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from pathlib import Path

import click

from .cards import resolve_cards
from .generate import GRADE_STATES
from .errors import FciError, read_user_text
from .layouts import all_layouts
from .position import DEFAULT_MARGIN, Deal, Position, effect_label, parse_sea, rank_name, read_position, sea_list, sea_word
from . import interrupt, notation, rules, search
from .progress import Progress
from .text import plural
from .bitboard.memory import machine_bytes

# --memory beyond the machine's own is refused: tables grow as they fill, and past it the system
# would kill the process mid-search
MACHINE_MIB = machine_bytes() >> 20


def emit_json(obj) -> None:
    """JSON with one top-level key per line and one list item (a turn, a row) per line."""
    if not isinstance(obj, dict):
        click.echo(json.dumps(obj, indent=2))
        return
    parts = []
    for k, v in obj.items():
        if isinstance(v, list) and v and all(isinstance(x, (list, dict)) for x in v):
            inner = ",\n    ".join(json.dumps(x) for x in v)
            parts.append(f"  {json.dumps(k)}: [\n    {inner}\n  ]")
        else:
            parts.append(f"  {json.dumps(k)}: {json.dumps(v)}")
    click.echo("{\n" + ",\n".join(parts) + "\n}")


# -- shared options ------------------------------------------------------------

def jobs_option(why: str, cpus: bool = True, work: str = "grade"):
    """``--jobs``: threads that do ``work`` (the kernels release the GIL)."""
    default = (lambda: min(os.cpu_count() or 1, 4)) if cpus else 1
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=default,
                        show_default="CPUs, at most 4" if cpus else True, help=f"Threads that {work} ({why}).")


def deal_options(f=None, *, sea_default: str = "both"):
    """DEAL argument plus the options that choose a deal and its rules."""
    if f is None:
        return functools.partial(deal_options, sea_default=sea_default)

    @click.argument("deal", nargs=-1)
    @click.option("--layout", "-l", default="standard", show_default=True, help="Layout name or path to a layout file.")
    @click.option("--deal-file", type=click.Path(dir_okay=False), help="Read the deal from a file.")
    @click.option("--random", "random_deal", is_flag=True, help="Deal at random (reproducible with --seed).")
    @click.option("--seed", type=int, help="Seed for --random.")
    @click.option("--position", "position_file", type=str, help="Start from a mid-game position file (JSON or text; - for stdin).")
    @click.option("--margin", type=int, default=DEFAULT_MARGIN, show_default=True, help="Open cells around the layout.")
    @click.option("--sea", type=click.Choice(["both", "shark", "whale", "none"], case_sensitive=False), default=sea_default, show_default=True, help="Sea animals available.")
    @click.option("--cards", "cards_file", type=click.Path(dir_okay=False), help="Card table JSON file.")
    @click.option("--plain", is_flag=True, help="Turn every ability off.")
    @functools.wraps(f)
    def wrapper(*args, deal, layout, deal_file, random_deal, seed, position_file, margin, sea, cards_file, plain, **kw):
        if kw.get("load_file"):  # fci play --load: the saved game says what is played
            return f(*args, setup=None, cards_file=cards_file, plain=plain, **kw)
        setup = make_setup(" ".join(deal) if deal else None, layout, deal_file, random_deal, seed, position_file, margin, sea, cards_file, plain)
        return f(*args, setup=setup, **kw)

    return wrapper


class Setup:
    """What a command works on: a start position, its deal (if any), the cards and their name."""

    def __init__(self, start: Position, deal: Deal | None, cards, rules_name: str):
        self.start, self.deal, self.cards, self.rules_name = start, deal, cards, rules_name

    def header(self) -> str:
        s = self.start
        sea = ", ".join(sea_list(s.shark, s.whale)) or "none"
        if self.deal is not None:
            seed = f" (seed {self.deal.seed})" if self.deal.seed is not None else ""
            what = f"Deal {self.deal}{seed} on {self.deal.layout.name}"
        else:
            what = "Position"
        return f"{what}; margin {s.board.margin}; sea: {sea}; rules: {self.rules_name}; pending: {effect_label(s.pending)}"


def make_setup(deal, layout, deal_file, random_deal, seed, position_file, margin, sea, cards_file, plain) -> Setup:
    if margin < 0:
        raise FciError(f"--margin must be >= 0, got {margin}")
    cards = resolve_cards(cards_file, plain)
    rules_name = "plain" if plain else ("standard" if not cards_file else f"custom:{Path(cards_file).name}")
    sources = [x for x in (deal is not None, deal_file is not None, random_deal, position_file is not None) if x]
    if len(sources) > 1:
        raise FciError("give only one of: a DEAL, --deal-file, --random, --position")
    if seed is not None and not random_deal:
        if sources:
            raise FciError("--seed goes with --random")
        random_deal = True
    if position_file is not None:
        start = read_position(position_file)
        return Setup(start, None, cards, rules_name)
    shark, whale = parse_sea(sea)
    if deal is not None:
        d = Deal.parse(layout, deal)
    elif deal_file is not None:
        d = Deal.from_file(layout, deal_file)
    elif random_deal:
        d = Deal.random(layout, seed)
    else:
        raise FciError("no deal given: pass a DEAL string, --deal-file FILE, --random [--seed N] or --position FILE")
    return Setup(d.position(margin, shark, whale), d, cards, rules_name)


def load_kernels(quiet: bool = False, engine: str = "bitboard", more: str | None = None) -> None:
    """Load the numba kernels before any timed work; a cold compile is announced on stderr.
    ``more``: also those of ``"grade"`` (grade and generate) or ``"graph"`` (the perfect-play
    graph), which compile on their first run too."""
    if engine != "bitboard":
        return
    from .bitboard.search import load_search_kernels

    def notice(what: str):
        return None if quiet else lambda: click.echo(f"fci: compiling {what} (first run only)...", err=True)

    load_search_kernels(notice("the search kernels"))
    if more == "grade":
        from .grade import load_kernels as load_grade_kernels

        load_grade_kernels(notice("the grade's kernels"))
    elif more == "graph":
        from .optimal import load_kernels as load_graph_kernels

        load_graph_kernels(notice("the perfect-play graph's kernels"))


def write_page(path, start, line, positions, cards, title, facts, narrow=None) -> None:
    """Write the solution viewer page (see :mod:`.html`)."""
    from .html import solution_html

    text = solution_html(start, line, positions, notation.line_to_human(start, line, positions), cards, title,
                         facts, narrow)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise FciError(f"cannot write {path!r}: {e.strerror}") from None


def check_out_file(path: str, formats, what: str) -> None:
    """Before any work: the file's extension is one of ``formats`` and its folder exists."""
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in formats:
        raise FciError(f"unknown {what} format for {path!r}: use a " + " or ".join(f".{f}" for f in formats) + " file")
    folder = Path(path).parent
    if not folder.is_dir():
        raise FciError(f"cannot write {path!r}: the folder {str(folder)!r} does not exist")


# -- the group ---------------------------------------------------------------------

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fci-solver", prog_name="fci")
def cli():
    """Exact solver, grader and puzzle generator for Food Chain Island, plus three other food games.

    \b
    Start with:
      fci solve --random --seed 1      solve a random deal
      fci cards                        the animals and what they do
      fci COMMAND --help               each command, with examples
    """


@cli.command("layouts", short_help="List the built-in layouts and draw each.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def layouts_cmd(as_json):
    """List the built-in layouts and draw each.

    \b
    Examples:
      fci layouts
      fci layouts --json
    """
    ls = all_layouts()
    if as_json:
        emit_json([{"name": L.name, "cells": [list(c) for c in L.cells], "grid": str(L).splitlines(), "about": L.about} for L in ls])
        return
    for L in ls:
        click.echo(f"{L.name} ({len(L)} cells, {L.height}x{L.width}): {L.about}")
        for row in str(L).splitlines():
            click.echo("    " + row)


@cli.command("cards", short_help="List the 16 animals, their numbers and abilities.")
@click.option("--cards", "cards_file", type=click.Path(dir_okay=False), help="A card table JSON file of your own.")
@click.option("--plain", is_flag=True, help="Every ability off.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cards_cmd(cards_file, plain, as_json):
    """List the 16 land animals with their numbers and abilities.

    A predator eats an animal 1 to 3 below it, next to it; then its ability happens.

    \b
    Examples:
      fci cards
      fci cards --cards examples/my-cards.json
    """
    table = resolve_cards(cards_file, plain)
    if as_json:
        emit_json([{"value": c.value, "name": c.name, "ability": c.ability, "text": c.describe(),
                    "eats": [q for q in range(c.value - 3, c.value) if q >= 0]} for c in table])
        return
    click.echo(f"Cards: {table.name}")
    for c in table:
        eats = ", ".join(str(q) for q in range(max(0, c.value - 3), c.value)) or "nothing"
        click.echo(f"{c.value:>3}  {c.name:<11} eats {eats:<11} {c.describe()}")


@cli.command("solve", short_help="Find the fewest animals a deal can end with, and how.")
@deal_options
@click.option("--target", type=click.IntRange(min=1), default=3, show_default=True, help="Win when at most this many stacks remain.")
@click.option("--engine", type=click.Choice(search.ENGINES, case_sensitive=False), default="bitboard", show_default=True, help="The numba engine, or the pure-Python reference (slow; the rules as code).")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), help="Stop after this many seconds (answer may be inexact).")
@click.option("--memory", type=click.IntRange(min=1, max=MACHINE_MIB), show_default="2048", help="Transposition-table budget in MiB (bitboard engine).")
@click.option("--can-win", is_flag=True, help="Only decide whether the target can be reached: stop at the first line that does.")
@click.option("--notation", "notation_kind", type=click.Choice(["human", "json"], case_sensitive=False), default="human", show_default=True, help="How turns are written in text output.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), help="Also write the solution as a web page that steps through it.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, help="Threads that share the search (numba engine).")
@click.option("--json", "as_json", is_flag=True, help="Print the solution as JSON (the line notation of RULES.md).")
def solve_cmd(setup: Setup, target, engine, time_limit, memory, can_win, notation_kind, quiet, html_file, jobs, as_json):
    """Find the minimum result of a deal and a line that reaches it.

    DEAL lists the cards in reading order of the layout's cells.  Exit status 3: the answer is
    not exact (--time-limit was hit).

    \b
    Examples:
      fci solve 5 12 0 7 3 15 9 1 14 2 8 11 6 13 4 10
      fci solve --random --seed 7 --sea none --json > line.json
    """
    if html_file:
        check_out_file(html_file, ("html", "htm"), "page")
    load_kernels(quiet, engine)
    progress = Progress("solve", enabled=not (quiet or as_json))
    stopped = False
    try:
        result = search.solve(setup.start, setup.cards, engine=engine, time_limit=time_limit, memory=memory,
                              progress=progress, stop_at=target if can_win else 0, jobs=jobs)
    except search.Stopped as e:
        # the best line found by then is printed as a time limit's would be, then status 130
        result, stopped = e.result, True
        interrupt.resume()
    progress.close()
    if stopped:
        _say("stopped by Ctrl-C; the best line found by then follows")
    if html_file:
        facts = [setup.header(), f"Best result: {result.min_remaining} ({rank_name(result.min_remaining)})"
                 + ("" if result.exact else ", not proven the minimum")]
        write_page(html_file, setup.start, result.line, result.positions, setup.cards, "Food Chain Island: a solution", facts)
    # --can-win is answered by a line within the target or a bound above it, exact or not
    answered = result.exact or (can_win and (result.min_remaining <= target or result.lower_bound > target))
    if as_json:
        emit_json(notation.solution_document(result, setup.deal, target, setup.rules_name))
    else:
        _print_solution(setup, result, target, can_win, notation_kind, stopped)
    if stopped:
        _interrupted()
    return _status(answered)


def _print_solution(setup: Setup, result, target: int, can_win: bool, notation_kind: str, stopped: bool) -> None:
    click.echo(setup.header())
    click.echo(setup.start.grid())
    click.echo()
    n = result.min_remaining
    verdict = "win" if n <= target else "loss"
    if result.exact:
        click.echo(f"Minimum result: {n} ({rank_name(n)}; a {verdict} with target {target})")
    elif can_win and n <= target:
        click.echo(f"Winnable: this line ends with {n} ({rank_name(n)}); the minimum may be lower (--can-win stops here)")
    elif can_win and result.lower_bound > target:
        click.echo(f"Not winnable: no line ends with fewer than {result.lower_bound} stacks (target {target})")
    else:
        why = "stopped by Ctrl-C" if stopped else "time limit"
        click.echo(f"NOT EXACT ({why}): best found {n} ({rank_name(n)}), proven lower bound {result.lower_bound}")
    click.echo(f"Searched {result.states:,} states in {result.seconds:.2f} s with the {result.engine} engine.")
    print_line(setup.start, result.line, result.positions, notation_kind)


EXIT_INEXACT = 3  # the answer is real but not proven: a time or state limit was hit
OPTIMAL_TIME_LIMIT = 600.0  # graph --optimal: a full deal's graph can take days; stop with what was found


def _status(answered: bool) -> int:
    """The exit status of a command whose answer may be cut short by a limit."""
    return 0 if answered else EXIT_INEXACT


def print_line(start: Position, line, positions, kind: str = "human") -> None:
    if kind == "json":
        texts = [json.dumps([a.to_json() for a in turn]) for turn in line]
    else:
        texts = notation.line_to_human(start, line, positions)
    for i, (text, after) in enumerate(zip(texts, positions), 1):
        click.echo(f"\nTurn {i}: {text}")
        click.echo(after.grid())
        click.echo(f"   {after.status()}")


@cli.command("replay", short_help="Check a solution line and draw every board.")
@click.argument("file", default="-", required=False)
@click.option("--cards", "cards_file", type=click.Path(dir_okay=False), help="Card table JSON file (for 'custom' rules).")
@click.option("--plain", is_flag=True, help="Replay with every ability off.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), help="Also write the line as a web page that steps through it.")
@click.option("--json", "as_json", is_flag=True, help="Print the positions as JSON.")
def replay_cmd(file, cards_file, plain, html_file, as_json):
    """Check a JSON line (what `fci solve --json` writes; FILE, or - for stdin) and print each board.

    \b
    Examples:
      fci solve --random --seed 7 --json > line.json && fci replay line.json
    """
    text = read_user_text(file, "line file")
    doc = notation.read_line_document(text, where=f"line file {file!r}" if file != "-" else "line on stdin")
    if doc.rules_name == "plain":
        plain = True
    elif doc.rules_name.startswith("custom") and not cards_file:
        raise FciError(f"the line was played with {doc.rules_name} rules: pass --cards FILE")
    cards = resolve_cards(cards_file, plain)
    if html_file:
        check_out_file(html_file, ("html", "htm"), "page")
    positions = notation.replay(doc.start, doc.line, cards)
    final = positions[-1] if positions else doc.start
    if html_file:
        write_page(html_file, doc.start, doc.line, positions, cards, "Food Chain Island: a line",
                   [f"{len(doc.line)} turns, {len(final)} stacks left ({rank_name(len(final))})"])
    over = rules.is_over(final, cards)
    if as_json:
        emit_json({
            "legal": True,
            "turns": len(doc.line),
            "remaining": len(final),
            "game_over": over,
            "rank": rank_name(len(final)),
            "positions": [p.to_dict() for p in positions],
        })
        return
    click.echo(doc.start.grid())
    print_line(doc.start, doc.line, positions)
    state = "the game is over" if over else "the game is not over: a turn is still possible"
    n = len(final)
    click.echo(f"\nLegal line of {len(doc.line)} turns; {n} stack{'s remain' if n != 1 else ' remains'} ({rank_name(n)}); {state}.")


@cli.command("perft", short_help="Count the distinct positions 1..depth turns ahead.")
@deal_options
@click.option("--depth", type=click.IntRange(min=1), default=2, show_default=True, help="Count levels 1..depth.")
@click.option("--engine", type=click.Choice(search.ENGINES, case_sensitive=False), default="bitboard", show_default=True, help="The numba engine, or the pure-Python reference (slow; the rules as code).")
@jobs_option("numba engine; the count does not depend on it", cpus=False, work="list and count the states")
@click.option("--memory", type=click.IntRange(min=256, max=MACHINE_MIB), show_default="half of this machine's memory", help="MiB the numba engine may hold; a level that needs more stops the count.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def perft_cmd(setup: Setup, depth, engine, jobs, memory, quiet, as_json):
    """Count distinct states after exactly 1..depth turns (the perft of RULES.md).

    Each level holds every position it counts: with both sea animals a standard deal's second
    level has 60-200 million, which takes 5-14 GB, and the third would need hundreds of gigabytes.

    Exit status 3: --memory stopped it before the last level was counted.

    \b
    Examples:
      fci perft --random --seed 7 --sea none --depth 2
      fci perft --random --seed 7 --sea none --depth 2 --engine reference
      fci perft --random --seed 7 --sea none --depth 3 --jobs 2
    """
    levels = _PerftLevels(as_json, quiet)
    stopped = _count_levels(setup, depth, engine, jobs, memory, levels)
    if as_json:
        emit_json({"deal": str(setup.deal) if setup.deal else None, "engine": engine, "sea": sea_list(setup.start.shark, setup.start.whale), "margin": setup.start.board.margin, "jobs": jobs if engine == "bitboard" else 1, "perft": levels.rows,
                   **({"complete": False, "stopped": str(stopped)} if stopped else {})})
    if stopped:
        click.echo(f"fci: {stopped}", err=True)
        return EXIT_INEXACT
    return 0


class _PerftLevels:
    """perft's rows as its levels are counted: a line each (unless JSON), and a progress line
    while a level is being counted."""

    def __init__(self, as_json: bool, quiet: bool):
        self.as_json, self.quiet = as_json, quiet
        self.rows: list[dict] = []
        self.bar = None  # the progress line of the level being counted

    def progress(self, d: int, found: int) -> None:
        if self.bar is None:
            self.bar = Progress(f"perft({d})", enabled=not (self.quiet or self.as_json))
        self.bar(found, unit="positions found")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def row(self, d: int, count: int, dt: float) -> None:
        self.close()
        self.rows.append({"depth": d, "count": count, "seconds": round(dt, 4),
                          "states_per_second": round(count / dt) if dt > 0 else None})
        if not self.as_json:
            click.echo(f"perft({d}) = {count:>12,}   {dt:8.3f} s   {count / max(dt, 1e-9):>12,.0f} states/s")


def _count_levels(setup: Setup, depth: int, engine: str, jobs: int, memory, levels: _PerftLevels):
    """Count levels 1..depth into ``levels``; returns the :class:`TooLarge` that stopped the count
    (the numba engine's --memory), or None."""
    from .bitboard.perft import TooLarge, load_perft_kernels, perft as bb_perft

    if engine == "reference":
        for d in range(1, depth + 1):
            t0 = time.perf_counter()
            count = search.perft_levels(setup.start, d, setup.cards)[-1]
            levels.row(d, count, time.perf_counter() - t0)
        return None
    load_perft_kernels(setup.start, setup.cards)  # before anything is timed
    # one run counts every level (each level was counted again from the start before, and
    # perft(2) with the Whale takes seconds); perft(d)'s seconds are those from the start to
    # level d, what a run of depth d alone takes
    t0 = time.perf_counter()
    try:
        bb_perft(setup.start, depth, setup.cards, jobs, memory, progress=levels.progress,
                 each=lambda d, count: levels.row(d, count, time.perf_counter() - t0))
    except TooLarge as e:
        return e
    finally:
        levels.close()
    return None


GRAPH_STATE_BYTES = 2048  # a state of a networkx graph with its edges: 1.6 GB at 1,000,000 states (ten, seed 3)


def _graph_fits(n: int) -> int:
    """``--max-nodes``: a graph that large must fit in half of this machine's memory (past it the
    system would kill the process after minutes of building)."""
    need, have = n * GRAPH_STATE_BYTES, machine_bytes()
    if need > have // 2:
        raise click.BadParameter(f"{n:,} states would take about {need / 2**30:,.0f} GiB (about 2 KiB a state), "
                                 f"more than half of this machine's memory ({have / 2**30:,.1f} GiB)")
    return n


@cli.command("graph", short_help="Build and analyse the state graph of a small deal.")
@deal_options
@click.option("--target", type=click.IntRange(min=1), default=3, show_default=True, help="Win when at most this many stacks remain.")
@click.option("--max-nodes", type=click.IntRange(min=1), default=1_000_000, show_default=True, callback=lambda ctx, param, n: _graph_fits(n), help="Stop with an error past this many states.")
@click.option("--out", "out", type=click.Path(dir_okay=False), help="Write the graph: .graphml, .gexf or .dot.")
@click.option("--labels/--no-labels", default=True, show_default=True, help="In the --out file, label each edge with one turn (JSON notation).")
@click.option("--optimal", is_flag=True, help="Only the graph of perfect play: positions on some line that reaches the minimum.")
@jobs_option("with --optimal; the graph does not depend on it", work="settle the next positions")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), show_default=f"{OPTIMAL_TIME_LIMIT:g} with --optimal",
              help="With --optimal: stop after this many seconds with the partial counts, and the positions found so far in --out (exit 3); a full standard deal's graph takes hours or more.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def graph_cmd(setup: Setup, target, max_nodes, out, labels, optimal, jobs, time_limit, quiet, as_json):
    """Build the state graph of a deal, analyse it, and optionally write it out.

    \b
    Examples:
      fci graph --layout six 9 8 7 6 5 4 --margin 1 --sea none
      fci graph --layout six 9 8 7 6 5 4 --margin 1 --sea none --out g.graphml
    """
    from . import graph as g

    if out is not None:
        check_out_file(out, g.FORMATS, "graph")
    if time_limit is not None and not optimal:
        raise FciError("--time-limit goes with --optimal (the full graph stops at --max-nodes)")
    load_kernels(quiet, more="graph" if optimal else None)
    if optimal:
        limit = OPTIMAL_TIME_LIMIT if time_limit is None else time_limit
        return _optimal_graph(setup, max_nodes, out, labels, quiet, as_json, jobs, limit)
    progress = Progress("graph", enabled=not (quiet or as_json))
    G = g.build_graph(setup.start, setup.cards, max_nodes=max_nodes, progress=lambda n, _: progress(n, unit=f"of at most {max_nodes:,} states found"))
    if out and labels:
        g.label_edges(G, setup.start.board, setup.cards, progress=lambda n, _: progress(n, unit="states labelled"))
    progress.close()
    report = g.analyse(G, target)
    if out:
        g.write_graph(G, out)
        report["written"] = out
    if as_json:
        emit_json(report)
        return
    c, p = report["counts"], report["paths"]
    click.echo(setup.header())
    click.echo(setup.start.grid())
    click.echo(f"\n{c['states']:,} states, {c['edges']:,} edges; minimum result {c['min_result']}; "
               f"{c['winnable_states']:,} states can still reach {target} or fewer.")
    click.echo("Games ending with n stacks: " + ", ".join(f"{k}: {v:,}" for k, v in c["terminal_by_result"].items()))
    click.echo(f"Winning lines (state sequences): {p['winning_lines']:,} of {p['complete_games']:,} complete games; "
               f"as turn sequences {p['winning_turn_sequences']:,} of {p['turn_sequences']:,}.")
    ch = report["random_play_win_chance"]
    click.echo(f"A player choosing uniformly among legal turns wins with chance {ch['fraction']} ~ {ch['decimal']:.4g}.")
    if report["winning_line_lengths"]:
        click.echo("Winning lines take {} to {} turns.".format(*report["winning_line_lengths"]))
    click.echo(f"States with only one move that keeps the win: {report['only_move_states']:,}.")
    click.echo("Critical states (every winning line passes through them): "
               + ("; ".join(f"depth {x['depth']}: {x['stacks']}" for x in report["critical_states"]) or "none (no win)"))
    click.echo("\n depth   states  branching  winnable")
    for row in report["by_depth"]:
        click.echo(f"{row['depth']:>6} {row['states']:>8,} {row['branching']:>10.2f} {row['winnable_share']:>9.1%}")
    if out:
        click.echo(f"\nWrote {out}.")


def _optimal_graph(setup: Setup, max_nodes, out, labels, quiet, as_json, jobs=1, time_limit=None):
    """fci graph --optimal: build, analyse, print and write the graph of perfect play."""
    from . import optimal as o

    progress = Progress("graph --optimal", enabled=not (quiet or as_json))
    try:
        G = o.optimal_graph(setup.start, setup.cards, max_nodes, jobs=jobs, time_limit=time_limit,
                            progress=lambda n, states: progress(n, unit="next positions settled",
                                                                note=f"{states:,} states searched"))
    except o.Incomplete as e:
        progress.close()
        return _unfinished_optimal(e, setup, out, labels, as_json)
    report = o.analyse(G)
    if out:
        _write_optimal(G, setup, out, labels, report)
    progress.close()
    if as_json:
        emit_json(report)
    else:
        _optimal_text(report, setup, out)
    return 0


def _unfinished_optimal(e, setup: Setup, out, labels, as_json) -> int:
    """A build stopped by the node cap, the time limit or Ctrl-C: what it found, reported and
    written (hours of settling are not thrown away), then exit status 3, or 130 after a Ctrl-C."""
    from . import optimal as o

    stopped = isinstance(e, o.Stopped)
    if stopped:
        # the Ctrl-C is taken: the report and the file come next, and a second Ctrl-C ends them
        interrupt.resume()
    click.echo(f"fci: {e}" + (f"; writing what it found to {out} (Ctrl-C again to skip that)"
                              if stopped and out and e.partial.number_of_nodes() else ""), err=True)
    report = o.partial_report(e)
    # every position found so far, expanded or not, is written with the keeping turns between
    # them, as a whole graph's would be
    if out and e.partial.number_of_nodes():
        try:
            _write_optimal(o.found_graph(e, setup.start.board), setup, out, labels, report)
        except interrupt.Interrupted:
            # a Ctrl-C while writing skips the file (left as it was), not the report
            stopped = True
            click.echo(f"fci: {out} not written", err=True)
    _partial_graph_report(setup, report, as_json)
    if stopped:
        _interrupted()
    return EXIT_INEXACT


def _optimal_text(report: dict, setup: Setup, out) -> None:
    """The perfect-play graph's report as text, its critical positions drawn as grids."""
    from .position import parse_position_text

    lines = report["perfect_lines"]
    click.echo(setup.header())
    click.echo(setup.start.grid())
    click.echo(f"\nMinimum {report['minimum']}. Perfect play: {report['positions']:,} positions, "
               f"{lines['positions']:,} perfect lines as position sequences ({lines['turns']:,} as turn sequences).")
    click.echo(f"Positions with only one move that keeps the minimum: {report['only_move_positions']:,}.")
    click.echo(_build_cost(report["stats"]))
    _width_table(report["width_by_turn"])
    nd = report["narrowest_decision"]
    if nd:
        click.echo(f"\nNarrowest decision: turn {nd['turn']}, {nd['keeping']} of {nd['options']} options keep the minimum.")
    click.echo(f"\nCritical positions (every perfect line passes through them): {len(report['critical_positions'])}")
    for c in report["critical_positions"]:
        click.echo(f"\nBefore turn {c['turn']} ({c['keeping']} of {c['options']} options keep the minimum):")
        click.echo(parse_position_text(c["position"]).grid())
    if out:
        click.echo(f"\nWrote {out}.")


def _write_optimal(G, setup: Setup, out: str, labels: bool, report: dict) -> None:
    """Write a perfect-play graph (whole or partial) to ``out``, its edges labelled if asked."""
    from . import graph as g

    if labels:
        g.label_edges(G, setup.start.board, setup.cards)
    g.write_graph(G, out)
    report["written"] = out


def _partial_graph_report(setup: Setup, report: dict, as_json: bool) -> None:
    """What a stopped ``graph --optimal`` found: its counts, and perfect play's width so far."""
    if as_json:
        emit_json(report)
        return
    click.echo(setup.header())
    click.echo(setup.start.grid())
    if report["minimum"] is None:
        click.echo("\nNot finished: the start's minimum was not proven in time.")
        return
    click.echo(f"\nMinimum {report['minimum']}. Not finished: {plural(report['found'], 'perfect-play position')} "
               f"found, {report['expanded']:,} of them expanded, down to turn {report['turn']}; "
               f"{plural(report['settled'], 'next position')} settled.")
    click.echo(_build_cost(report["stats"], settled=False))
    if report["width_by_turn"]:  # none before the start is expanded
        _width_table(report["width_by_turn"], "   (expanded so far)")
    if "written" in report:
        click.echo(f"\nWrote {report['written']}: the {report['found']:,} positions found so far, {report['expanded']:,} "
                   "of them expanded, with the keeping turns between them.")


def _build_cost(stats: dict, settled: bool = True) -> str:
    """What a build cost; ``settled``: also how many next positions it settled (a stopped build
    says so in its own line)."""
    text = f"Searched {stats['states']:,} states in {stats['seconds']:.1f} s ({stats['minimum_states']:,} to prove the minimum)"
    return text + (f"; {stats['settled']:,} next positions settled." if settled else ".")


def _width_table(rows: list, note: str = "") -> None:
    """Perfect play's width turn by turn, with the states spent settling each turn's options."""
    click.echo(f"\n turn  positions   options  keeping       states{note}")
    for row in rows:
        click.echo(f"{row['turn']:>5} {row['positions']:>10,} {row['options']:>9,} {row['keeping']:>8,} {row['states']:>12,}")


def _grade_lines(g) -> list[str]:
    """The facts of a grade as short lines of text."""
    m = g.minimum
    skipped = g.details.get("not_computed", [])
    if skipped:
        # a generator's grade: only the facts its tier rests on
        mins = ", ".join(f"{k} {v}" for k, v in m.items() if v is not None)
        out = [f"Minimum by sea animals: {mins} (the others: fci grade DEAL)"]
    else:
        mins = ", ".join(f"{k} {'?' if v is None else v}" for k, v in m.items())
        out = [f"Minimum by sea animals: {mins}; needed for the best: {g.needs or 'unknown'}"]
    if not g.first_turns:
        out.append("First turns: none (the game is over)")
    elif g.profile is None:
        out.append(f"First turns: {g.first_turns:,}")
    elif g.keeping is not None:
        out.append(f"First turns: {g.first_turns:,}; {g.keeping:,} keep the minimum ({g.keeping / g.first_turns:.0%})")
    else:
        lo, hi = g.keeping_bounds
        why = "not settled when Ctrl-C stopped it" if g.interrupted else "not settled within the limits"
        out.append(f"First turns: {g.first_turns:,}; between {lo:,} and {hi:,} keep the minimum ({why})")
    if g.chance is not None:
        out.append(f"Random player ends with <= {g.target}: chance {g.chance:.4g} (exact, {g.dag_states:,} states walked)")
        if g.shortest is not None:
            out.append(f"Winning lines take {g.shortest} to {g.longest} turns")
    elif not skipped:
        out.append(f"Random player's chance: not computed ({g.details.get('chance_not_computed', 'unknown')})")
    if g.profile is not None and g.profile.decisions:
        from .difficulty import profile_table

        out += profile_table(g.profile)
    if g.effort is not None and g.effort.steps:
        from .effort import effort_table

        out += effort_table(g.effort, all_rows=g.profile is None)
        hard = g.effort.hardest_step()
        if hard is not None and not hard.forced and hard.position is not None and hard.turn > 1:
            out.append(f"The hardest decision, before turn {hard.turn}:")
            out += hard.position.grid().splitlines()
    if g.tier and g.score is not None:
        out.append(f"Tier: {g.tier} (effort {g.score:,.0f})")
    elif g.tier:
        out.append(f"Tier: {g.tier} (effort more than {g.score_range[0] - 1:,.0f}: proven by the capped search)")
    else:
        out.append(f"Tier: none: {g.reason}")
    return out


@cli.command("grade", short_help="Prove how hard a deal is: its decisions, effort, bits and tier.")
@deal_options(sea_default="none")
@click.option("--target", type=click.IntRange(min=1), default=1, show_default=True, help="Grade against ending with at most this many stacks.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), help="Stop after this many seconds; facts not settled are reported as unknown.")
@click.option("--state-limit", type=click.IntRange(min=1), help="Stop after this many search states (the same on every machine).")
@click.option("--dag-states", type=click.IntRange(min=0), default=1_000_000, show_default=True, help="Largest state DAG to walk for the random player's chance (0: skip).")
@click.option("--quick", is_flag=True, help="Only what the tier rests on: the minimum and the effort line (about a second on a standard deal; no decision profile, other sea choices or random player).")
@click.option("--memory", type=click.IntRange(min=16, max=MACHINE_MIB), show_default="2048, shared by the threads", help="Transposition-table budget in MiB.")
@jobs_option("the facts do not depend on it")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def grade_cmd(setup: Setup, target, time_limit, state_limit, dag_states, quick, memory, jobs, quiet, as_json):
    """Prove how hard a deal is: minima by sea animals, the decisions on its solution line
    (how many turns keep the perfect result at each) and the bits they add up to, the effort
    line (how much search each decision needs to see a turn that keeps it), and a tier from
    the effort of the hardest decision.

    Exit status 3: a limit stopped it before every fact was proven.

    \b
    Examples:
      fci grade --random --seed 8
      fci grade --random --seed 8 --quick
      fci grade --layout ten 14 7 9 2 0 11 6 15 4 10 --json
    """
    from .effort import LIMIT as EFFORT_LIMIT
    from .grade import Stopped, grade

    load_kernels(quiet, more="grade")
    progress = Progress("grade", enabled=not (quiet or as_json))
    stopped = False
    try:
        g = grade(setup.start, setup.cards, target, time_limit, dag_states, memory,
                  progress=progress, state_limit=state_limit, jobs=jobs,
                  tier_only=quick, effort_limit=EFFORT_LIMIT if quick else None)
    except Stopped as e:
        # what was proven is printed as a limit's grade would be, then status 130
        g, stopped = e.grade, True
        interrupt.resume()
    progress.close()
    if stopped:
        click.echo("fci: stopped by Ctrl-C; the facts not proven by then are unknown", err=True)
    if as_json:
        d = {"layout": setup.deal.layout.name if setup.deal else None, "deal": str(setup.deal) if setup.deal else None,
             "seed": setup.deal.seed if setup.deal else None}
        d.update(g.to_dict())
        emit_json(d)
    else:
        click.echo(setup.header())
        click.echo(setup.start.grid())
        click.echo("")
        for line in _grade_lines(g):
            click.echo(line)
    if stopped:
        _interrupted()
    return _status(g.reason is None or not g.reason.startswith("not every fact"))


@cli.command("generate", short_help="Make puzzles of a chosen difficulty, proven exactly.")
@click.option("--difficulty", "-d", required=True, help="easy, medium, hard or expert, or a band of effort (search states of the hardest decision) such as 50-200.")
@click.option("--layout", "-l", default="standard", show_default=True, help="Layout name or path to a layout file.")
@click.option("--count", "-n", type=click.IntRange(min=1), default=1, show_default=True, help="How many puzzles.")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same puzzles.")
@click.option("--sea", type=click.Choice(["both", "shark", "whale", "none"], case_sensitive=False), default="none", show_default=True, help="Sea animals the puzzles are served with.")
@click.option("--target", type=click.IntRange(min=1), default=1, show_default=True, help="Grade against ending with at most this many stacks.")
@click.option("--margin", type=click.IntRange(min=0), default=DEFAULT_MARGIN, show_default=True, help="Open cells around the layout.")
@click.option("--cards", "cards_file", type=click.Path(dir_okay=False), help="Card table JSON file.")
@click.option("--plain", is_flag=True, help="Turn every ability off.")
@click.option("--max-candidates", type=click.IntRange(min=1), default=2000, show_default=True, help="Give up after grading this many deals.")
@click.option("--grade-states", type=click.IntRange(min=1), default=GRADE_STATES, show_default=True, help="Search states allowed for each candidate's minimum (a deal not settled is skipped; states, not seconds, keep seeds reproducible); the effort line is bounded by the tier's cap.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True, help="Stop looking after this many seconds (between two grades); the puzzles found by then are the ones a longer run finds first.")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), help="Write each puzzle and its solution as SVG files into this folder.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False), help="Write each puzzle's solution as a web page (puzzle-N.html) into this folder.")
@click.option("--spread", type=click.IntRange(min=1), default=None, show_default="6, or every cell of a smaller layout", help="Cells in which any two puzzles must differ.")
@click.option("--full-grade", is_flag=True, help="Grade each puzzle found for every fact (minima with each sea choice, the exact effort, the decision profile and its bits, random play); much slower than the tier.")
@jobs_option("the puzzles do not depend on it; a second thread grades the climb's next guess, "
             "which paid off on small layouts only, see benchmarks/RESULTS.md", cpus=False)
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def generate_cmd(difficulty, layout, count, seed, sea, target, margin, cards_file, plain, max_candidates, grade_states,
                 time_limit, svg_dir, html_dir, spread, full_grade, jobs, quiet, as_json):
    """Find COUNT distinct deals of a difficulty tier (or a band of effort), each proven to be in it,
    the same for the same --seed.  Each puzzle is served with the facts that prove its tier
    (--full-grade for all of them).

    \b
    Examples:
      fci generate --difficulty medium --layout ten --count 2 --seed 1
      fci generate -d 20-40 --layout ten --count 5 --svg out/
    """
    from .generate import Stopped, generate
    from .grade import difficulty_band
    from .layouts import load_layout

    difficulty = difficulty_band(difficulty).name
    cards = resolve_cards(cards_file, plain)
    L = load_layout(layout)
    shark, whale = parse_sea(sea)
    load_kernels(quiet, more="grade")
    progress = Progress("generate", enabled=not (quiet or as_json))
    stopped = None
    try:
        puzzles = generate(L, difficulty, count, seed, cards, shark, whale, target, margin, max_candidates,
                           grade_states, progress=lambda n, best: progress(n, None, f"deals graded ({best})"),
                           jobs=jobs, full_grade=full_grade, spread=spread, time_limit=time_limit)
    except Stopped as e:
        # the puzzles found are kept: printed as usual (their files, which take a solve each, are
        # not made), then status 130
        stopped, puzzles = e, e.puzzles
        interrupt.resume()
    progress.close()
    if stopped:
        click.echo(f"fci: stopped by Ctrl-C with {len(puzzles)} of {plural(count, 'puzzle')} found"
                   + ("; no files written" if svg_dir or html_dir else ""), err=True)
        svg_dir = html_dir = None
    files = _write_svgs(puzzles, cards, svg_dir, difficulty, seed, margin, shark, whale, target) if svg_dir else []
    if html_dir:
        files += _write_pages(puzzles, cards, html_dir, difficulty, seed, margin, shark, whale)
    if as_json:
        emit_json({"difficulty": difficulty, "layout": L.name, "seed": seed, "sea": sea_list(shark, whale),
                   "target": target, "margin": margin,
                   "puzzles": [{"deal": str(p.deal), "candidates": p.candidates, **p.grade.to_dict()} for p in puzzles],
                   "svg": files, **({"complete": False} if stopped else {})})
    else:
        _puzzles_text(puzzles, L.name, sea, margin, files)
    if stopped:
        _interrupted()


def _puzzles_text(puzzles: list, layout: str, sea: str, margin: int, files: list[str]) -> None:
    """Each puzzle drawn with the facts of its grade, then the files written."""
    for i, p in enumerate(puzzles, 1):
        pos = p.deal.position(margin, *parse_sea(sea))
        click.echo(f"Puzzle {i}: {p.deal}  ({layout}, sea: {sea}, found after {plural(p.candidates, 'deal')} graded)")
        click.echo(pos.grid())
        for line in _grade_lines(p.grade):
            click.echo("  " + line)
        click.echo("")
    if files:
        click.echo(f"Wrote {plural(len(files), 'file')}: " + ", ".join(files[:2]) + (", ..." if len(files) > 2 else ""))


def _narrow_turns(p, pos, cards) -> dict:
    """Turn number -> "k of n" for the narrow decisions of a puzzle's decision profile (computed
    here when the generator's grade, which needs only the effort, has none)."""
    from .difficulty import profile

    prof = p.grade.profile
    if prof is None and p.grade.tier is not None:
        prof = profile(pos, cards, p.grade.minimum[sea_word(pos.shark, pos.whale)])
    return {d.turn: f"{d.keeping_bounds[1]} of {d.options}" for d in prof.decisions if d.narrow} if prof else {}


def _make_folder(folder: str, what: str) -> Path:
    out = Path(folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FciError(f"cannot create {what} folder {folder!r}: {e.strerror}") from None
    return out


def _write_pages(puzzles, cards, folder, difficulty, seed, margin, shark, whale) -> list[str]:
    out = _make_folder(folder, "--html")
    files = []
    for i, p in enumerate(puzzles, 1):
        pos = p.deal.position(margin, shark, whale)
        result = search.solve(pos, cards)
        path = out / f"puzzle-{i}.html"
        lo, _ = p.grade.score_range or (p.grade.score, p.grade.score)
        effort = f"effort {lo:,.0f}" if p.grade.score is not None else f"effort more than {lo - 1:,.0f}"
        write_page(path, pos, result.line, result.positions, cards, f"Puzzle {i}: {difficulty} ({p.deal.layout.name})",
                   [f"Deal {p.deal}; {effort}", f"Generated with fci generate --difficulty {difficulty} --seed {seed}"],
                   _narrow_turns(p, pos, cards))
        files.append(str(path))
    return files


def _write_svgs(puzzles, cards, svg_dir, difficulty, seed, margin, shark, whale, target) -> list[str]:
    from .svg import puzzle_svg, solution_svg

    out = _make_folder(svg_dir, "--svg")
    files = []
    for i, p in enumerate(puzzles, 1):
        pos = p.deal.position(margin, shark, whale)
        result = search.solve(pos, cards)
        sea = ", ".join(sea_list(shark, whale)) or "none"
        title = f"Puzzle {i}: {difficulty} ({p.deal.layout.name})"
        facts = [f"Deal {p.deal}; sea animals: {sea}; margin {margin}",
                 f"Goal: end with {target} stack{'s' if target > 1 else ''} or fewer (best possible: {result.min_remaining})",
                 f"Generated with fci generate --difficulty {difficulty} --seed {seed}"]
        turns = notation.line_to_human(pos, result.line, result.positions)
        narrow = {t: tuple(int(x) for x in kn.split(" of ")) for t, kn in _narrow_turns(p, pos, cards).items()}
        for name, text in ((f"puzzle-{i}.svg", puzzle_svg(pos, cards, title, facts)),
                           (f"puzzle-{i}-solution.svg", solution_svg(pos, result.positions, turns, f"Solution to puzzle {i}",
                                                                     narrow=narrow))):
            path = out / name
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as e:
                raise FciError(f"cannot write {path}: {e.strerror}") from None
            files.append(str(path))
    return files


@cli.command("hint", short_help="The best next turn, and what it keeps reachable.")
@deal_options
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), help="Answer within this many seconds (may be inexact).")
@click.option("--engine", type=click.Choice(search.ENGINES, case_sensitive=False), default="bitboard", show_default=True, help="The numba engine, or the pure-Python reference (slow; the rules as code).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def hint_cmd(setup: Setup, time_limit, engine, as_json):
    """The best next turn from a deal or position, and what it keeps reachable.

    Exit status 3: the answer is not exact (--time-limit was hit).

    \b
    Examples:
      fci hint --position examples/table.txt
      fci hint --random --seed 3 --time-limit 2
    """
    from .play import HintStopped, hint

    load_kernels(as_json, engine)
    progress = Progress("hint", enabled=not as_json)
    stopped = False
    try:
        h = hint(setup.start, setup.cards, time_limit, engine, progress=progress)
    except HintStopped as e:
        h, stopped = e.hint, True
        interrupt.resume()
    progress.close()
    if stopped:
        _say("stopped by Ctrl-C; the best turn found by then follows")
    _print_hint(setup, h, stopped, as_json)
    if stopped:
        _interrupted()
    return _status(h.exact)


def _print_hint(setup: Setup, h, stopped: bool, as_json: bool) -> None:
    if as_json:
        emit_json({
            "turn": [a.to_json() for a in h.turn] if h.turn else None,
            "human": h.text or None,
            "min_remaining": h.min_remaining,
            "exact": h.exact,
            "lower_bound": h.lower_bound,
            "rank": rank_name(h.min_remaining),
            "game_over": h.turn is None,
            "interrupted": stopped,
        })
        return
    click.echo(setup.start.grid())
    if h.turn is None:
        click.echo(f"The game is over: {len(setup.start)} stacks ({rank_name(len(setup.start))}).")
        return
    why = "stopped by Ctrl-C" if stopped else "time limit"
    note = "" if h.exact else f" (NOT EXACT: {why}; proven at least {h.lower_bound})"
    click.echo(f"\nBest turn: {h.text}")
    click.echo(f"It keeps {h.min_remaining} reachable ({rank_name(h.min_remaining)}){note}.")
    click.echo(h.after.grid())


@cli.command("play", short_help="Play a deal in the terminal, with hints.")
@deal_options
@click.option("--target", type=click.IntRange(min=1), default=3, show_default=True, help="Win when at most this many stacks remain.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True, help="Time for each hint.")
@click.option("--load", "load_file", type=click.Path(dir_okay=False), help="Go on with a game saved by 'save FILE' (or any line fci solve --json wrote).")
def play_cmd(setup: Setup | None, target, time_limit, load_file, cards_file=None, plain=False):
    """Play a deal or position in the terminal: turns in human notation (or the eat first, then
    the ability when asked), hints, undo and redo, save and --load.  Reads the turns from
    standard input when it is not a terminal.

    \b
    Examples:
      fci play --random --seed 3 --sea none
      fci play --position examples/table.txt < examples/table-turns.txt
    """
    from .play import Session, TerminalInput

    line = []
    if load_file:
        doc = notation.read_line_document(read_user_text(load_file, "saved game"), where=f"saved game {load_file!r}")
        cards = resolve_cards(cards_file, plain or doc.rules_name == "plain")
        start, line = doc.start, doc.line
    else:
        start, cards = setup.start, setup.cards
    if sys.stdin is None:
        raise FciError("standard input is closed: fci play reads its turns from it")
    load_kernels()
    if sys.stdin.isatty():
        source = TerminalInput()
        prompt = source.set_prompt
    else:
        source, prompt = sys.stdin, None
    try:
        session = Session(start, cards, click.echo, target, time_limit, prompt, line=line,
                          progress_factory=lambda: Progress("hint"))
    except FciError as e:
        raise FciError(f"the saved game does not replay: {e}") from None
    session.run(source)


def _add_game_groups():
    from .census.cli import bench, census
    from .games.cli import aye, fattest, foodfighters

    for group in (aye, fattest, foodfighters, census, bench):
        cli.add_command(group)


_add_game_groups()


# -- entry point ---------------------------------------------------------------

def main(argv=None) -> None:
    """Run the CLI; every user error becomes one line on stderr and exit status 2."""
    interrupt.install()
    if sys.stdout is None:
        _fail("standard output is closed: nowhere to write the results")
    try:
        rv = cli.main(args=argv, prog_name="fci", standalone_mode=False)
        sys.stdout.flush()
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help())
        sys.exit(0)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        click.echo("fci: aborted", err=True)
        sys.exit(1)
    except click.NoSuchOption as e:
        if e.option_name.lstrip("-").isdigit():  # "-1" in a deal is read as an option
            _fail(f"error: cards are numbered 0 to 15; {e.option_name} is not a card")
        _fail(f"error: {' '.join(e.format_message().split())}", prog=e.ctx.command_path if e.ctx else "fci")
    except click.ClickException as e:
        msg = " ".join(e.format_message().split())
        ctx = getattr(e, "ctx", None)
        _fail(f"error: {msg}", prog=ctx.command_path if ctx is not None and ctx.parent is not None else "fci")
    except FciError as e:
        _fail(f"error: {e}")
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(0)
    except OSError as e:
        if e.filename is None:  # writing the output, not reading a file (those are FciErrors)
            _quiet_stdout()
            _fail(f"error: cannot write the output: {e.strerror}")
        raise
    except (interrupt.Interrupted, KeyboardInterrupt):
        interrupt.STOP.set()
        _interrupted()
    except Exception:
        # a Ctrl-C that landed inside a library comes back as its error: numba's compiler, caught
        # mid-compile on a first run, raises "RuntimeError: no compiled object yet"
        if interrupt.STOP.is_set():
            _interrupted()
        raise
    sys.exit(rv if isinstance(rv, int) else 0)


def _interrupted() -> None:
    """Exit 130 after Ctrl-C.  What finished is written by now (the command unwound); a pool's
    thread may still be in numba's compiler, and Python would join it at exit for seconds, so
    then the process ends at once."""
    if interrupt.workers_running():
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        _say("interrupted")
        os._exit(130)
    _fail("interrupted", 130)


def _say(message: str, prog: str = "fci") -> None:
    if sys.stderr is not None:
        try:
            sys.stderr.write(f"{prog}: {message}\n")
            sys.stderr.flush()
        except OSError:
            pass


def _fail(message: str, status: int = 2, prog: str = "fci") -> None:
    """One line on stderr (if there is one) and the exit status."""
    _say(message, prog)
    sys.exit(status)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
