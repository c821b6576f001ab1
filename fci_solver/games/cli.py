"""Click groups for the thin game modules: ``fci aye``, ``fci fattest``, ``fci foodfighters``."""

from __future__ import annotations

import json
from fractions import Fraction

import click

from ..errors import FciError
from . import aye as A
from . import fattest as S
from . import foodfighters as F


def frac(x) -> str:
    x = Fraction(x)
    return f"{x} ({float(x):.6g})" if x.denominator != 1 else str(x)


def jfrac(x) -> dict:
    x = Fraction(x)
    return {"fraction": str(x), "decimal": float(x)}


def out_json(obj) -> None:
    click.echo(json.dumps(obj, indent=2))


# -- All You Can Eat --------------------------------------------------------------------

@click.group("aye", short_help="All You Can Eat: passes, rounds, exact analysis.")
def aye():
    """All You Can Eat (Food Chain 2017): passes, rounds, exact analysis."""


@aye.command("pass", short_help="Resolve one pass of revealed cards.")
@click.option("--cards", "cards", required=True, help="What each seat reveals, in seat order, e.g. B,B,C,F,W,W.")
@click.option("--alpha", type=int, default=0, show_default=True, help="The Alpha's seat (0-based).")
@click.option("--centre", default="", help="Cards lying in the centre, e.g. C,W.")
@click.option("--policy", type=click.Choice(["greedy", "all"], case_sensitive=False), default="greedy", show_default=True, help="greedy: each picker takes the richest stack; all: every choice, each outcome listed.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def aye_pass(cards, alpha, centre, policy, as_json):
    """Resolve one pass: who snatched what, what each seat secures, what goes to the centre and the box.

    \b
    Examples:
      fci aye pass --cards B,B,C,F,W,W --alpha 0
      fci aye pass --cards B,W,W --centre W --policy all
    """
    played = A.parse_kinds(cards, "--cards")
    results = A.resolve_pass(played, alpha, A.parse_kinds(centre, "--centre"), policy)
    results = [results] if policy == "greedy" else results
    if as_json:
        out_json([r.to_json() for r in results] if policy == "all" else results[0].to_json())
        return
    for i, r in enumerate(results):
        if policy == "all":
            click.echo(f"Outcome {i + 1} of {len(results)}:")
        _print_pass(played, r)


def _print_pass(played, r) -> None:
    for s, kind in enumerate(played):
        took = "; ".join(f"{'centre' if src == 'centre' else f'seat {src}'}: {'+'.join(c)}" for src, c in r.snatched.get(s, []))
        fate = f"secures {r.secured[s]} stars ({'+'.join(r.secured_cards[s])})" if r.secured_cards[s] else (
            "snatched" if any(src == s for v in r.snatched.values() for src, _ in v) else
            ("to the box" if s in r.to_box else "to the centre"))
        click.echo(f"  seat {s}: {A.NAMES[kind]:<5} {('takes ' + took) if took else ''}{'; ' if took else ''}{fate}")
    click.echo(f"  centre now: {','.join(r.centre) or 'empty'}")


@aye.command("round", short_help="Play a round from each seat's card order.")
@click.option("--seat", "seats", multiple=True, required=True, help="One seat's card order (repeat per seat), e.g. W,B,W,C,D,W,B,C,F.")
@click.option("--alpha", type=int, default=0, show_default=True, help="The Alpha's seat (0-based).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def aye_round(seats, alpha, as_json):
    """Play a whole round (greedy snatching) from each seat's card order, pass by pass.

    \b
    Examples:
      fci aye round --seat W,B,W,C,D,W,B,C,F --seat B,W,C,W,F,D,C,W,B --seat C,C,W,W,B,B,D,F,W
    """
    orders = [A.parse_kinds(s, "--seat") for s in seats]
    res = A.play_round(orders, alpha)
    if as_json:
        out_json({"passes": [p.to_json() for p in res["passes"]], "totals": res["totals"]})
        return
    for i, p in enumerate(res["passes"], 1):
        click.echo(f"Pass {i}: {','.join(o[i - 1] for o in orders)}")
        _print_pass(tuple(o[i - 1] for o in orders), p)
    click.echo("Round totals: " + ", ".join(f"seat {s}: {v}" for s, v in enumerate(res["totals"])))


@aye.command("analyse", short_help="Exact expected stars and win chances under random play.")
@click.option("--players", type=click.IntRange(3, 6), default=3, show_default=True, help="Players at the table (3 to 6).")
@click.option("--hand", default=",".join(A.FULL_HAND), show_default=True,
              help="The same hand for every seat: the full hand, or part of it for a smaller game.")
@click.option("--alpha", type=int, default=0, show_default=True, help="The Alpha's seat (0-based).")
@click.option("--lead", is_flag=True, help="Also the Alpha's best first card: its expected stars for each lead.")
@click.option("--win/--no-win", default=True, show_default=True,
              help="Win chances of the round and of the game, where the exact score distribution fits in memory.")
@click.option("--win-memory", type=click.FloatRange(min=0.01), default=2.0, show_default=True,
              help="GiB the win chances may use; past it they are not computed (and the output says where they stopped).")
@click.option("--force", is_flag=True, help="Run even when the analysis is estimated too large to finish in minutes.")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def aye_analyse(players, hand, alpha, lead, win, win_memory, force, quiet, as_json):
    """Exact figures for All You Can Eat when every seat plays its hand in a uniformly random
    order: expected stars per seat for the round and for the whole game (one round per seat as
    the Alpha), each seat's chance to win (ties shared) where the score distribution fits in
    memory, first-pass payoffs and pure equilibria, and, with --lead, which card the Alpha
    should lead.  Every figure is an exact fraction.

    The full 9-card hand takes seconds for 3 players and about 4 minutes for 4; 5 and 6 players
    are refused with the estimated size (use a smaller hand).

    \b
    Examples:
      fci aye analyse --players 3 --lead
      fci aye analyse --players 4 --hand W,W,B,C --json
    """
    from ..progress import Progress

    prog = Progress("aye analyse", enabled=not (quiet or as_json))
    seen = [0]

    def step(layer, n):
        seen[0] += n
        prog(seen[0], None, f"states (pass {layer})")

    res = A.analyse(players, A.parse_kinds(hand, "--hand"), alpha, force, lead=lead, win=win, win_memory=win_memory,
                    progress=step)
    prog.close()
    if as_json:
        out_json(_aye_report(res, players, hand, alpha, lead))
    else:
        _aye_text(res, players, hand, alpha, lead)


def _aye_report(res: dict, players: int, hand: str, alpha: int, lead: bool) -> dict:
    """``aye analyse --json``: every figure, fractions exact."""
    w = res["win"]
    out = {
        "players": players, "hand": hand, "alpha": alpha,
        "expected_stars": [jfrac(x) for x in res["expected"]],
        "game_expected_stars": [jfrac(x) for x in res["game_expected"]],
        "win_chance": None if w["round"] is None else [jfrac(x) for x in w["round"]],
        "game_win_chance": None if w["game"] is None else [jfrac(x) for x in w["game"]],
        "win_note": w["note"], "win_entries": w.get("entries"),
        "security": res["security"],
        "first_pass": [{"play": list(k), "stars": list(v)} for k, v in res["first_pass"].items()],
        "pure_nash": [list(p) for p in res["pure_nash"]],
        "states": res["states"], "states_per_pass": res["layers"], "seconds": round(res["seconds"], 3),
    }
    if lead:
        out["lead"] = _lead_rows(res)
    return out


def _aye_text(res: dict, players: int, hand: str, alpha: int, lead: bool) -> None:
    """``aye analyse`` as text: a row of decimals per seat, then the exact round stars, the lead
    and the first pass's equilibria."""
    w = res["win"]
    click.echo(f"{players} players, hand {hand}, Alpha seat {alpha} "
               f"({res['states']:,} states, {res['seconds']:.2f} s)")
    click.echo("Every seat plays its hand in a uniformly random order (exact fractions with --json).")
    sec = res["security"]
    click.echo("seat  round stars  wins round  game stars  wins game" + ("  guaranteed" if sec else ""))

    def dec(x):
        return "-" if x is None else f"{float(x):.4f}"

    for s in range(players):
        click.echo(f"{s:>4}  {dec(res['expected'][s]):>11}  {dec(w['round'] and w['round'][s]):>10}  "
                   f"{dec(res['game_expected'][s]):>10}  {dec(w['game'] and w['game'][s]):>9}"
                   + (f"  {sec[s]:>10}" if sec else ""))
    click.echo("Round stars, exact: " + ", ".join(str(x) for x in res["expected"]))
    if w["note"]:
        click.echo(f"Win chances: {w['note']}.")
    if sec is None:
        click.echo("Guaranteed stars (a seat choosing first each pass): not computed for a hand this large.")
    if lead:
        click.echo("The Alpha's lead (then its other cards at random, every other seat at random):")
        for row in _lead_rows(res):
            click.echo(f"  {row['card']:<5} {row['expected']['fraction']} ({row['expected']['decimal']:.4f}) stars, {row['beats_average']['decimal']:+.4f} "
                       f"against leading at random{'  <- best' if row['best'] else ''}")
    click.echo("First pass, pure Nash equilibria: " + ("; ".join(",".join(p) for p in res["pure_nash"]) or "none"))


def _lead_rows(res) -> list[dict]:
    lead = res["lead"]["expected"]
    avg = res["lead_average"]
    best = max(lead.values())
    return [{"card": A.NAMES[k], "expected": jfrac(v), "beats_average": jfrac(v - avg), "best": v == best}
            for k, v in sorted(lead.items(), key=lambda kv: -kv[1])]


# -- Survival of the Fattest ----------------------------------------------------------------

@click.group("fattest", short_help="Survival of the Fattest: turn order, foraging odds.")
def fattest():
    """Survival of the Fattest: turn order and exact foraging outcomes."""


def _split(text: str, what: str):
    if ":" not in text:
        raise FciError(f"{what} {text!r}: write NAME:VALUES, e.g. Bucky:7,3")
    name, values = text.split(":", 1)
    return name, [v for v in values.split(",") if v.strip()]


@fattest.command("order", short_help="Who starts the round.")
@click.option("--hand", "hands", multiple=True, required=True, help="CRITTER:FORAGE numbers in hand, e.g. 'Flit:7,6' (repeat; 'Bucky:' for none).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def fattest_order(hands, as_json):
    """Who starts: the highest Forage card, ties down the list, then the larger critter.

    \b
    Examples:
      fci fattest order --hand Bucky:7,3 --hand Flit:7,6
    """
    parsed = {}
    for h in hands:
        name, vals = _split(h, "--hand")
        c = S.critter(name)
        try:
            parsed[c] = [int(v) for v in vals]
        except ValueError:
            raise FciError(f"--hand {h!r}: Forage numbers must be whole numbers") from None
    first = S.starting_player(parsed)
    if as_json:
        out_json({"starting_player": first})
    else:
        click.echo(f"{first} starts.")


@fattest.command("forage", short_help="Exact odds of what each critter forages.")
@click.option("--critter", "critters", multiple=True, required=True, help="CRITTER:N Forage cards played, e.g. 'Bucky:3' (repeat).")
@click.option("--wish", "wishes", multiple=True, help="CRITTER:TYPE,TYPE,... preference for non-trap picks.")
@click.option("--deck", default=None, help="Location deck, e.g. 'Trap:3,Wild:2,Carrot:4' (default: the full food deck).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def fattest_forage(critters, wishes, deck, as_json):
    """Exact distribution of what each critter ends with, over every order of the location deck.

    \b
    Examples:
      fci fattest forage --critter Bucky:3 --critter Flit:2 --deck Trap:3,Wild:2,Carrot:4
    """
    wish = {}
    for w in wishes:
        name, vals = _split(w, "--wish")
        wish[S.critter(name)] = tuple(S.card_type(v) for v in vals)
    foragers = []
    for c in critters:
        name, vals = _split(c, "--critter")
        if len(vals) != 1 or not vals[0].strip().isdigit():
            raise FciError(f"--critter {c!r}: give one number of Forage cards, e.g. Bucky:3")
        cr = S.critter(name)
        foragers.append(S.Forager(cr, int(vals[0]), wish.get(cr, S.DEFAULT_WISH)))
    if deck is None:
        composition = dict(S.DEFAULT_DECK)
    else:
        composition = {}
        for part in deck.split(","):
            if ":" not in part:
                raise FciError(f"--deck part {part!r}: write TYPE:COUNT")
            t, n = part.split(":", 1)
            if not n.strip().isdigit():
                raise FciError(f"--deck part {part!r}: the count must be a whole number")
            composition[S.card_type(t)] = int(n)
    res = S.forage(foragers, composition)
    if as_json:
        out_json({
            "revealed": res["revealed"], "cases": res["cases"],
            "critters": {c: {"expected": {t: jfrac(v) for t, v in S.expected_counts(d).items()},
                             "outcomes": [{"cards": dict(k), **jfrac(p)} for k, p in sorted(d.items(), key=lambda kv: -kv[1])]}
                         for c, d in res["distribution"].items()},
        })
        return
    click.echo(f"{res['revealed']} cards revealed; {res['cases']:,} revealed multisets weighted exactly.")
    for f in S.priority(foragers):
        d = res["distribution"][f.critter]
        exp = S.expected_counts(d)
        traps = {}
        for k, p in d.items():
            n = dict(k).get(S.TRAP, 0)
            traps[n] = traps.get(n, 0) + p
        click.echo(f"{f.critter} ({f.forage} Forage): expected " + ", ".join(f"{t} {frac(v)}" for t, v in exp.items()))
        click.echo("   traps: " + ", ".join(f"{n}: {frac(p)}" for n, p in sorted(traps.items())))


# -- Foodfighters -----------------------------------------------------------------------------

@click.group("foodfighters", short_help="Foodfighters: dice odds, reach, a small duel.")
def foodfighters():
    """Foodfighters: dice odds, reach and gaps, a small exact duel."""


def dice_options(f):
    f = click.option("--die-a", default=",".join(map(str, F.DIE_A)), show_default=True, help="Faces of normal die A.")(f)
    f = click.option("--die-b", default=",".join(map(str, F.DIE_B)), show_default=True, help="Faces of normal die B.")(f)
    f = click.option("--die-bonus", default=",".join(map(str, F.BONUS)), show_default=True, help="Faces of the bonus die.")(f)
    return f


@foodfighters.command("dice", short_help="Exact dice odds of an attack.")
@dice_options
@click.option("--bonus", is_flag=True, help="Roll the bonus die too.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ff_dice(die_a, die_b, die_bonus, bonus, as_json):
    """Exact chances of miss, hit, double hit, beans on a miss, and the Roll for Beans distribution.

    \b
    Examples:
      fci foodfighters dice --bonus
    """
    dice = (F.parse_die(die_a), F.parse_die(die_b)) + ((F.parse_die(die_bonus),) if bonus else ())
    o = F.attack_odds(dice)
    beans = F.beans_roll(dice)
    if as_json:
        out_json({"miss": jfrac(o.miss), "hit": jfrac(o.hit), "double_hit": jfrac(o.double_hit),
                  "beans_on_miss": jfrac(o.beans_on_miss), "beans_per_attack": jfrac(o.beans_per_attack),
                  "roll_for_beans": {str(k): jfrac(v) for k, v in beans.items()}})
        return
    click.echo(f"Attack with {len(dice)} dice: miss {frac(o.miss)}, hit {frac(o.hit)}, double hit {frac(o.double_hit)}")
    click.echo(f"Expected beans on a miss: {frac(o.beans_on_miss)}; per attack: {frac(o.beans_per_attack)}")
    click.echo("Roll for Beans: " + ", ".join(f"{k}: {frac(v)}" for k, v in beans.items()))


@foodfighters.command("reach", short_help="Legal attacks and gap fillings.")
@click.option("--ours", required=True, help="Our formation: 3 rows front first, '|' between rows, ',' between cells; cell KIND>THOUGHT[+spoon][+pan][+cracker] or '.'.")
@click.option("--theirs", required=True, help="Their formation, same format (columns as seen from above, facing ours).")
@click.option("--knockout", default=None, help="ROW,COL of their fighter knocked out: list the gap fillings.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ff_reach(ours, theirs, knockout, as_json):
    """Every legal attack (normal, Spoon, Pan) and the gap fillings after a knockout.

    \b
    Examples:
      fci foodfighters reach --ours 'Chicken>Cabbage,.,.|.,.,.|.,.,.' --theirs 'Cabbage>Chicken,.,.|.,.,.|.,.,.'
    """
    a, b = F.parse_formation(ours), F.parse_formation(theirs)
    moves = F.attacks(a, b)
    fills = None
    if knockout:
        try:
            r, c = (int(x) for x in knockout.split(","))
        except ValueError:
            raise FciError(f"--knockout {knockout!r}: write ROW,COL") from None
        if not (0 <= r < 3 and 0 <= c < 3) or b[r][c] is None:
            raise FciError(f"--knockout {knockout!r}: no fighter there")
        rows = [list(x) for x in b]
        rows[r][c] = None
        fills = F.fill_gaps(tuple(tuple(x) for x in rows))
    def show(f):
        return "." if f is None else f.kind
    if as_json:
        out_json({"attacks": [{"attacker": list(m.attacker), "attacker_kind": a[m.attacker[0]][m.attacker[1]].kind,
                               "target": list(m.target), "target_kind": b[m.target[0]][m.target[1]].kind, "via": m.via} for m in moves],
                  "gap_fillings": None if fills is None else [[[show(x) for x in row] for row in f] for f in fills]})
        return
    for m in moves:
        click.echo(f"{a[m.attacker[0]][m.attacker[1]].kind} at {m.attacker} -> {b[m.target[0]][m.target[1]].kind} at {m.target} ({m.via})")
    if not moves:
        click.echo("No legal attack.")
    if fills is not None:
        click.echo(f"{len(fills)} way(s) to fill the gap:")
        for f in fills:
            click.echo("   " + " | ".join(",".join(show(x) for x in row) for row in f))


@foodfighters.command("duel", short_help="Exact win chances of a one-row duel.")
@click.option("--a", "side_a", required=True, help="Side A's row of up to 3 cells, e.g. 'Steak>Onion,Steak>Onion,.'.")
@click.option("--b", "side_b", required=True, help="Side B's row, same format. Columns face each other.")
@click.option("--policy", type=click.Choice(["first", "random"], case_sensitive=False), default="first", show_default=True, help="Which target a fighter attacks: the first in reach, or one at random.")
@dice_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def ff_duel(side_a, side_b, policy, die_a, die_b, die_bonus, as_json):
    """Exact win chances and expected turns of a one-row duel (A attacks first).

    \b
    Examples:
      fci foodfighters duel --a 'Steak>Onion,Steak>Onion' --b 'Onion>Steak,Onion>Steak'
    """
    def row(text):
        cells = [F.parse_fighter(c) for c in text.split(",")]
        if not 1 <= len(cells) <= 3:
            raise FciError("a duel side has 1 to 3 cells")
        if all(c is None for c in cells):
            raise FciError(f"duel side {text!r} has no fighter: give at least one KIND>THOUGHT cell")
        return cells + [None] * (3 - len(cells))
    res = F.duel(row(side_a), row(side_b), (F.parse_die(die_a), F.parse_die(die_b)), policy)
    if as_json:
        out_json({k: (jfrac(v) if k != "states" else v) for k, v in res.items()})
        return
    click.echo(f"A wins {frac(res['a_wins'])}; B wins {frac(res['b_wins'])}; draw {frac(res['draw'])}")
    click.echo(f"Expected turns: {frac(res['expected_turns'])} ({res['states']} states)")
