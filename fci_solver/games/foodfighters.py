"""Foodfighters: exact dice odds, reach and gap filling, and a small duel as a Markov chain.

Dice faces are ``S`` (Splat) or a bean count.  The printed faces are not in
the rulebook; the defaults are assumptions stated in ``RULES.md`` beside this module
and every die can be set.  All figures are exact :class:`~fractions.Fraction`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from ..errors import FciError

SPLAT = "S"
DIE_A = ("S", 1, 1, 2, 2, 3)
DIE_B = ("S", "S", 1, 1, 2, 3)
BONUS = ("S", "S", 1, 2, 3, 3)


def parse_die(text: str) -> tuple:
    faces = [f.strip().upper() for f in text.split(",") if f.strip()]
    if len(faces) != 6:
        raise FciError(f"a die has 6 faces, got {len(faces)} in {text!r}")
    out = []
    for f in faces:
        if f == SPLAT:
            out.append(SPLAT)
        elif f.isdigit():
            out.append(int(f))
        else:
            raise FciError(f"die face {f!r} is neither S nor a bean count")
    if all(f == SPLAT for f in out):
        raise FciError("a die with only Splats can never roll beans")
    return tuple(out)


@dataclass(frozen=True)
class AttackOdds:
    miss: Fraction
    hit: Fraction  # at least one Splat
    double_hit: Fraction  # two or more Splats
    beans_on_miss: Fraction  # expected beans given a miss
    beans_per_attack: Fraction  # expected beans paid per attack (misses pay)


def attack_odds(dice) -> AttackOdds:
    """Enumerate every face combination of the dice rolled together."""
    n = Fraction(1, 6 ** len(dice))
    miss = hit = double = beans = Fraction(0)
    for faces in itertools.product(*dice):
        splats = sum(f == SPLAT for f in faces)
        if splats == 0:
            miss += n
            beans += n * sum(faces)
        else:
            hit += n
            if splats >= 2:
                double += n
    return AttackOdds(miss, hit, double, beans / miss if miss else Fraction(0), beans)


def beans_roll(dice) -> dict[int, Fraction]:
    """Roll for Beans: Splats are re-rolled until every die shows beans; distribution of the total."""
    dist = {0: Fraction(1)}
    for die in dice:
        beans = [f for f in die if f != SPLAT]
        each = Fraction(1, len(beans))  # a re-rolled die ends uniformly on its bean faces
        nxt = Counter()
        for total, p in dist.items():
            for b in beans:
                nxt[total + b] += p * each
        dist = dict(nxt)
    return dict(sorted(dist.items()))


# -- formations -------------------------------------------------------------------------

@dataclass(frozen=True)
class Fighter:
    kind: str
    thinks: tuple[str, ...]
    spoon: bool = False
    pan: bool = False
    cracker: bool = False


def parse_fighter(text: str) -> Fighter | None:
    """``Steak>Onion`` (thinks of Onion), items after ``+``: ``Chicken>Cabbage+spoon+pan``; ``.`` for empty."""
    text = text.strip()
    if text in (".", "-", ""):
        return None
    main, *items = text.split("+")
    if ">" not in main:
        raise FciError(f"fighter {text!r}: write KIND>THOUGHT, e.g. Steak>Onion")
    kind, thinks = main.split(">", 1)
    bad = set(i.lower() for i in items) - {"spoon", "pan", "cracker"}
    if bad:
        raise FciError(f"fighter {text!r}: unknown item {sorted(bad)[0]!r} (spoon, pan, cracker)")
    items = {i.lower() for i in items}
    return Fighter(kind.strip(), tuple(t.strip() for t in thinks.split("/")), "spoon" in items, "pan" in items, "cracker" in items)


def parse_formation(text: str) -> tuple[tuple[Fighter | None, ...], ...]:
    """Three rows separated by ``|``, front row first, three cells each separated by ``,``.

    Columns are as seen from above the table, the same for both sides, so
    column 0 of one side faces column 0 of the other.
    """
    rows = [r for r in text.split("|")]
    if len(rows) != 3:
        raise FciError(f"a formation has 3 rows separated by '|', got {len(rows)}")
    out = []
    for r in rows:
        cells = r.split(",")
        if len(cells) != 3:
            raise FciError(f"each formation row has 3 cells separated by ',', got {len(cells)} in {r!r}")
        out.append(tuple(parse_fighter(c) for c in cells))
    return tuple(out)


@dataclass(frozen=True)
class Attack:
    attacker: tuple[int, int]  # (row, col), row 0 = front
    target: tuple[int, int]
    via: str  # "normal", "spoon", "pan", "spoon+pan"


def attacks(ours, theirs) -> list[Attack]:
    """Every legal attack from formation ``ours`` on ``theirs``.

    Our row r stands at distance r + 1 + t from their row t.  Normal reach:
    front row to front row, straight ahead or diagonally adjacent.  A Spoon
    reaches any distance along that straight or diagonal line.  A Pan lets
    the fighter attack any type.
    """
    out = []
    for r, row in enumerate(ours):
        for c, f in enumerate(row):
            if f is None:
                continue
            for t, trow in enumerate(theirs):
                for tc, g in enumerate(trow):
                    if g is None:
                        continue
                    dy = r + 1 + t
                    dx = abs(tc - c)
                    normal = dy == 1 and dx <= 1
                    line = dx == 0 or dx == dy
                    if not normal and not (f.spoon and line):
                        continue
                    thinks = g.kind in f.thinks
                    if not thinks and not f.pan:
                        continue
                    via = "normal" if normal else "spoon"
                    if not thinks:
                        via = "pan" if normal else "spoon+pan"
                    out.append(Attack((r, c), (t, tc), via))
    return out


def fill_gaps(formation) -> list:
    """Every formation that can result from filling gaps after a knockout (each choice the owner may make)."""
    rows = [list(r) for r in formation]
    for r in range(3):
        for c in range(3):
            if rows[r][c] is None and any(x is not None for rr in rows[r + 1:] for x in rr):
                back = max(rr for rr in range(r + 1, 3) if any(x is not None for x in rows[rr]))
                results = []
                for bc in range(3):
                    if rows[back][bc] is None:
                        continue
                    new = [list(x) for x in rows]
                    new[r][c], new[back][bc] = new[back][bc], None
                    results.extend(fill_gaps(tuple(tuple(x) for x in new)))
                return list(dict.fromkeys(results))
    return [tuple(tuple(x) for x in rows)]


# -- the duel -----------------------------------------------------------------------------

def duel(side_a: list[Fighter | None], side_b: list[Fighter | None], dice=(DIE_A, DIE_B), policy: str = "first"):
    """Two single rows attack each other, A first, no purchases, no items but Pans/Spoons as given.

    Each turn the side to move attacks a legal target (``first``: the first in
    reading order; ``random``: uniformly among legal attacks) and hits with
    the dice's hit chance; a hit knocks the target out (a Cracker absorbs a
    single Splat).  A side with no legal attack rolls for beans, which changes
    nothing here.  A side wins with three knocked-out enemies of one type, or
    when the enemy has no fighter left.  If neither side can ever attack the
    duel is a draw.  Returns exact win chances and the expected number of
    turns (an absorbing Markov chain solved with fractions).
    """
    if policy not in ("first", "random"):
        raise FciError(f"unknown policy {policy!r} (first or random)")
    odds = attack_odds(dice)
    single = odds.hit - odds.double_hit

    def won(knocked: tuple[str, ...], enemy_alive) -> bool:
        return any(v >= 3 for v in Counter(knocked).values()) or not any(enemy_alive)

    start = (tuple(side_a), tuple(side_b), (), (), 0)
    trans, stack = {}, [start]
    while stack:
        s = stack.pop()
        if s in trans:
            continue
        trans[s] = _transitions(s, odds, single, policy, won)
        stack.extend(nxt for nxt, _ in trans[s] if nxt not in trans)
    return _solve_chain(start, trans, won)


def _transitions(s, odds, single, policy, won):
    a, b, ka, kb, turn = s
    if won(ka, b) or won(kb, a):
        return []
    mine, theirs = (a, b) if turn == 0 else (b, a)
    moves = attacks((mine, (None,) * 3, (None,) * 3), (theirs, (None,) * 3, (None,) * 3))
    if not moves:
        other = (b, a) if turn == 0 else (a, b)
        back = attacks((other[0], (None,) * 3, (None,) * 3), (other[1], (None,) * 3, (None,) * 3))
        if not back:
            return []  # nobody can ever attack: a draw
        return [((a, b, ka, kb, 1 - turn), Fraction(1))]
    chosen = moves[:1] if policy == "first" else moves
    w = Fraction(1, len(chosen))
    out = Counter()
    for m in chosen:
        tc = m.target[1]
        target = theirs[tc]
        options = []
        if target.cracker:
            smashed = list(theirs)
            smashed[tc] = Fighter(target.kind, target.thinks, target.spoon, target.pan, False)
            options.append((single, tuple(smashed), False))
            ko_p = odds.double_hit
        else:
            ko_p = odds.hit
        ko = list(theirs)
        ko[tc] = None
        options.append((ko_p, tuple(ko), True))
        options.append((1 - ko_p - (single if target.cracker else 0), theirs, False))
        for p, new_theirs, knocked in options:
            if p == 0:
                continue
            add = (target.kind,) if knocked else ()
            nxt = (a, new_theirs, ka + add, kb, 1) if turn == 0 else (new_theirs, b, ka, kb + add, 0)
            out[nxt] += w * p
    return list(out.items())


def _solve_chain(start, trans, won):
    """Absorption probabilities and expected turns by exact Gaussian elimination."""
    transient = [s for s in trans if trans[s]]
    idx = {s: i for i, s in enumerate(transient)}
    n = len(transient)

    def absorb_value(s, who):
        a, b, ka, kb, _ = s
        if who == "A":
            return Fraction(1 if won(ka, b) else 0)
        return Fraction(1 if won(kb, a) else 0)

    results = {}
    for what in ("A", "B", "turns"):
        # x_i - sum_j P_ij x_j = r_i
        M = [[Fraction(0)] * (n + 1) for _ in range(n)]
        for s, i in idx.items():
            M[i][i] += 1
            for nxt, p in trans[s]:
                if nxt in idx:
                    M[i][idx[nxt]] -= p
                elif what != "turns":
                    M[i][n] += p * absorb_value(nxt, what)
            if what == "turns":
                M[i][n] += 1
        x = _gauss(M, n)
        if start in idx:
            results[what] = x[idx[start]]
        else:
            results[what] = absorb_value(start, what) if what != "turns" else Fraction(0)
    draw = 1 - results["A"] - results["B"]
    return {"a_wins": results["A"], "b_wins": results["B"], "draw": draw, "expected_turns": results["turns"], "states": len(trans)}


def _gauss(M, n):
    for col in range(n):
        piv = next(r for r in range(col, n) if M[r][col] != 0)
        M[col], M[piv] = M[piv], M[col]
        pv = M[col][col]
        M[col] = [v / pv for v in M[col]]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [a - f * b for a, b in zip(M[r], M[col])]
    return [M[i][n] for i in range(n)]
