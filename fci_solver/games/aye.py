"""All You Can Eat (Food Chain, 2017): resolve passes and rounds, and exact small-case analysis.

Kinds, lowest first: Worm, Bird, Cat, Dog, Flea; each eats the one below it
(Birds eat Worms, ... Fleas eat Dogs).  Stars: Worm 3, Bird 2, Cat 1, Dog 3,
Flea 0 (``RULES.md`` beside this module).  Seats are numbered clockwise.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
import time

from ..errors import FciError

KINDS = ("W", "B", "C", "D", "F")
NAMES = {"W": "Worm", "B": "Bird", "C": "Cat", "D": "Dog", "F": "Flea"}
STARS = {"W": 3, "B": 2, "C": 1, "D": 3, "F": 0}
PREY = {"B": "W", "C": "B", "D": "C", "F": "D"}
FULL_HAND = ("W", "W", "W", "B", "B", "C", "C", "D", "F")


def parse_kinds(text: str, what: str = "cards") -> tuple[str, ...]:
    out = []
    for tok in text.replace(" ", ",").split(","):
        tok = tok.strip()
        if not tok:
            continue
        key = tok[0].upper()
        if key not in KINDS or (len(tok) > 1 and tok.capitalize() != NAMES[key]):
            raise FciError(f"{what}: unknown animal {tok!r} (W/Worm, B/Bird, C/Cat, D/Dog, F/Flea)")
        out.append(key)
    return tuple(out)


@dataclass
class PassResult:
    snatched: dict  # seat -> list of (source, kind-stack) it took; source is a seat or "centre"
    secured: dict  # seat -> stars secured
    secured_cards: dict  # seat -> cards in its scoring pile from this pass
    to_centre: list  # kinds pushed to the centre
    to_box: list  # seats whose Flea went to the box
    centre: tuple  # the centre after the pass

    def to_json(self) -> dict:
        return {
            "snatched": {str(k): [{"from": s, "cards": list(c)} for s, c in v] for k, v in self.snatched.items()},
            "secured": {str(k): v for k, v in self.secured.items()},
            "secured_cards": {str(k): list(v) for k, v in self.secured_cards.items()},
            "to_centre": list(self.to_centre),
            "to_box": list(self.to_box),
            "centre": list(self.centre),
        }


def _stars(cards) -> int:
    return sum(STARS[k] for k in cards)


def _choices(avail: list, stacks: dict, centre_left: tuple, policy: str) -> list:
    """The prey an eater may take from ``avail``: the greedy eater's one (most stars; a seat's
    before the centre's, the lowest seat first), or under ``all`` each distinct one (centre cards
    of one kind are interchangeable)."""
    if policy == "all":
        seen, out = set(), []
        for src in avail:
            key = src if src[0] == "seat" else ("centre", centre_left[src[1]])
            if key not in seen:
                seen.add(key)
                out.append(src)
        return out

    def value(src):
        return _stars(stacks[src[1]]) if src[0] == "seat" else STARS[centre_left[src[1]]]
    return [max(avail, key=lambda src: (value(src), src[0] == "seat", -src[1] if src[0] == "seat" else 0))]


def _outcome(played: tuple[str, ...], stacks: dict, taken_by: dict,
             centre_left: tuple, took: dict) -> PassResult:
    """What a pass's eats leave: a seat that ate secures its stack, a seat eaten secures nothing,
    and an uneaten card that ate nothing goes to the centre (a Flea to the box)."""
    secured, secured_cards, to_centre, to_box = {}, {}, [], []
    for s in range(len(played)):
        if s not in taken_by and took.get(s):
            secured_cards[s] = tuple(stacks[s])
            secured[s] = _stars(stacks[s])
            continue
        secured[s] = 0
        secured_cards[s] = ()
        if s not in taken_by:
            if played[s] == "F":
                to_box.append(s)
            else:
                to_centre.append(played[s])
    return PassResult(took, secured, secured_cards, to_centre, to_box, tuple(centre_left) + tuple(to_centre))


def resolve_pass(played: tuple[str, ...], alpha: int, centre: tuple[str, ...] = (), policy: str = "greedy"):
    """Resolve one pass.  ``greedy`` returns one :class:`PassResult`; ``all`` returns every possible one."""
    if policy not in ("greedy", "all"):
        raise FciError(f"unknown policy {policy!r} (greedy or all)")
    n = len(played)
    if not 3 <= n <= 6:
        raise FciError(f"All You Can Eat has 3 to 6 players, got {n}")
    if not 0 <= alpha < n:
        raise FciError(f"the Alpha's seat must be 0..{n - 1}")
    order = [(alpha + i) % n for i in range(n)]
    stacks = {s: [played[s]] for s in range(n)}  # what lies under (and including) each played card
    results = []

    def run(kind_idx, stacks, taken_by, centre_left, took, choices):
        if kind_idx == len(KINDS):
            results.append((stacks, taken_by, centre_left, took))
            return
        kind = KINDS[kind_idx]
        if kind == "W":
            return run(kind_idx + 1, stacks, taken_by, centre_left, took, choices)
        prey = PREY[kind]
        eaters = [s for s in order if played[s] == kind]
        avail = [("seat", s) for s in range(n) if played[s] == prey and s not in taken_by]
        avail += [("centre", i) for i, k in enumerate(centre_left) if k == prey]
        pick_loop(kind_idx, eaters, 0, avail, stacks, taken_by, centre_left, took)

    def pick_loop(kind_idx, eaters, i, avail, stacks, taken_by, centre_left, took):
        if not avail or not eaters:
            return run(kind_idx + 1, stacks, taken_by, centre_left, took, None)
        eater = eaters[i % len(eaters)]
        for src in _choices(avail, stacks, centre_left, policy):
            new_stacks = {k: list(v) for k, v in stacks.items()}
            new_taken = dict(taken_by)
            new_took = {k: list(v) for k, v in took.items()}
            if src[0] == "seat":
                got = stacks[src[1]]
                new_taken[src[1]] = eater
                new_centre = centre_left
                new_took.setdefault(eater, []).append((src[1], tuple(got)))
                rest = [a for a in avail if a != src]
            else:
                got = [centre_left[src[1]]]
                new_centre = tuple(k for j, k in enumerate(centre_left) if j != src[1])
                new_took.setdefault(eater, []).append(("centre", tuple(got)))
                # re-index the remaining centre choices
                rest = [a for a in avail if a[0] == "seat"]
                rest += [("centre", j) for j, k in enumerate(new_centre) if k == PREY[KINDS[kind_idx]]]
            new_stacks[eater] = new_stacks[eater] + list(got)
            pick_loop(kind_idx, eaters, i + 1, rest, new_stacks, new_taken, new_centre, new_took)

    run(0, stacks, {}, tuple(centre), {}, None)
    outs = [_outcome(played, *r) for r in results]
    if policy == "greedy":
        return outs[0]
    uniq = {}
    for r in outs:
        uniq.setdefault((tuple(sorted(r.secured.items())), r.centre), r)
    return list(uniq.values())


def play_round(orders: list[tuple[str, ...]], alpha: int) -> dict:
    """Nine passes from each seat's card order (greedy policy); the centre starts and ends empty."""
    n = len(orders)
    lengths = {len(o) for o in orders}
    if len(lengths) != 1:
        raise FciError("every seat must list the same number of cards")
    for s, o in enumerate(orders):
        if Counter(o) - Counter(FULL_HAND):
            raise FciError(f"seat {s}'s cards are not from one hand of {','.join(FULL_HAND)}")
    centre: tuple = ()
    totals = [0] * n
    passes = []
    for i in range(lengths.pop()):
        r = resolve_pass(tuple(o[i] for o in orders), alpha, centre)
        centre = r.centre
        for s, v in r.secured.items():
            totals[s] += v
        passes.append(r)
    return {"passes": passes, "totals": totals}


# -- exact analysis ----------------------------------------------------------------------

def _hand_moves(hand: tuple[int, ...]):
    """(kind index, weight) for a hand as counts per kind: a uniformly random order plays each card with this weight."""
    total = sum(hand)
    return [(k, Fraction(c, total)) for k, c in enumerate(hand) if c]


def _counts(hand) -> tuple[int, ...]:
    c = Counter(hand)
    return tuple(c[k] for k in KINDS)


def _centre_key(centre) -> tuple[int, ...]:
    return _counts(centre)


SECURITY_WORK = 30_000_000  # states times profiles, at most, for the security values (pure Python: seconds)
MAX_ORBITS = 20_000_000  # orbit states, at most, that analyse() sweeps without --force (4 players: 15.5M)


def size_estimate(players: int, hand: tuple[str, ...]) -> int:
    """An upper bound on the labeled states the security values visit: every tuple of
    equal-sized hands left (one per seat) times every centre the cards played could leave."""
    from itertools import product

    c = _counts(hand)
    subs = [s for s in product(*(range(x + 1) for x in c))]
    by_size = Counter(sum(s) for s in subs)
    hands = sum(n ** players for n in by_size.values())
    centres = 1
    for kind, n in zip(KINDS, c):
        if kind != "F":
            centres *= n * players + 1
    return hands * centres


def check_hand(players: int, hand: tuple[str, ...]) -> None:
    if not 3 <= players <= 6:
        raise FciError(f"All You Can Eat has 3 to 6 players, got {players}")
    if not hand:
        raise FciError("the hand is empty")
    if Counter(hand) - Counter(FULL_HAND):
        raise FciError(f"a hand is part of {','.join(FULL_HAND)}")


def analyse(players: int, hand: tuple[str, ...], alpha: int = 0, force: bool = False, lead: bool = False,
            win: bool = True, win_memory: float = 2.0, progress=None) -> dict:
    """Exact figures for a round (and a game) in which every seat plays its hand in a uniformly
    random order: expected stars per seat (:mod:`.aye_exact`), the whole game's (one round per
    seat as Alpha), win chances where the score distribution fits in ``win_memory`` GiB, the
    Alpha's best lead (``lead``), first-pass payoffs, pure equilibria, and security values
    where they fit."""
    from . import aye_exact as X

    check_hand(players, hand)
    if not 0 <= alpha < players:
        raise FciError(f"the Alpha's seat must be 0..{players - 1}")
    counts = _counts(hand)
    _check_size(players, len(hand), counts, force)
    t0 = time.perf_counter()
    expected, layers = X.expected_stars(players, counts, alpha, progress)
    # The game: each seat is the Alpha once, and a seat's stars in a pass depend only on its
    # place after the Alpha (RULES.md; tests/test_aye_exact.py checks it on every pass), so the
    # game looks the same from every seat: the round's total expected stars each, and an equal
    # share of the wins.
    game = (sum(expected, Fraction(0)),) * players
    out = {"expected": expected, "states": layers.states, "layers": list(layers.per_layer),
           "game_expected": game, "seconds": 0.0}

    out["win"] = _win_chances(players, counts, alpha, win_memory if win else None, progress)
    if lead:
        out["lead"] = X.best_lead(players, counts, alpha, progress)
        out["lead_average"] = expected[alpha]

    kinds_in_hand = [k for k in range(5) if counts[k]]
    out["first_pass"], out["pure_nash"] = _first_pass(players, kinds_in_hand, alpha)
    work = size_estimate(players, hand) * len(kinds_in_hand) ** players
    start = tuple(counts for _ in range(players))
    out["security"] = _security(players, start, alpha) if work <= SECURITY_WORK else None
    out["seconds"] = time.perf_counter() - t0
    return out


def _check_size(players: int, cards: int, counts, force: bool) -> None:
    """Refuse a round whose exact weights outgrow 64-bit integers, or (without ``force``) one
    that would visit more than :data:`MAX_ORBITS` states."""
    from . import aye_exact as X

    est = X.orbit_estimate(players, counts)
    if not X.fits_int64(players, counts):
        raise FciError(f"{players} players with {cards} cards each: the exact weights outgrow 64-bit integers "
                       f"(the round has {X.orders_of(counts)}^{players} orders) and the round would visit about "
                       f"{est:,} states: use a smaller hand or fewer players")
    if est > MAX_ORBITS and not force:
        raise FciError(f"{players} players with {cards} cards each would visit about {est:,} states, more than the "
                       f"{MAX_ORBITS:,} this analysis takes on without --force (4 players with the full hand: "
                       f"15,496,033 in about 4 minutes)")


def _win_chances(players: int, counts, alpha: int, win_memory: float | None, progress) -> dict:
    """The round's exact win chances where their distribution fits in ``win_memory`` GiB (None:
    not asked), and the game's (equal shares: every seat is the Alpha once)."""
    from . import aye_exact as X

    wins = {"round": None, "game": (Fraction(1, players),) * players, "note": None}
    if win_memory is None:
        return wins
    slots = max(1 << 10, 1 << ((int(win_memory * 2 ** 30) // X.SLOT_BYTES).bit_length() - 1))
    try:
        wins["round"], wins["entries"] = X.round_win_chances(players, counts, alpha, slots, progress)
    except X.TooLarge as e:
        wins["note"] = (f"the round's chances not computed: the exact distribution of (hands, centre, each seat's "
                        f"deficit to the leader) holds {e.entries:,} entries after pass {e.layer}, and pass "
                        f"{e.layer + 1} needs more than the {win_memory:g} GiB allowed (--win-memory)")
    return wins


def _first_pass(players: int, kinds_in_hand: list[int], alpha: int) -> tuple[dict, list]:
    """Every seat's stars in a first pass for each profile of played kinds, and the profiles no
    seat gains by leaving alone (pure equilibria)."""
    table = {}
    for profile in itertools.product(kinds_in_hand, repeat=players):
        r = resolve_pass(tuple(KINDS[k] for k in profile), alpha, ())
        table[tuple(KINDS[k] for k in profile)] = tuple(r.secured[s] for s in range(players))
    nash = [prof for prof, pay in table.items()
            if all(pay[s] >= table[prof[:s] + (KINDS[k],) + prof[s + 1:]][s] for s in range(players) for k in kinds_in_hand)]
    return table, nash


def _security(players: int, start, alpha: int) -> list[int]:
    """The stars each seat can guarantee whatever the others play, choosing its card first each
    pass, knowing what has been played (a max-min over the pass-by-pass tree, memoised)."""

    @lru_cache(maxsize=None)
    def outcome(profile, centre_counts):
        centre = tuple(k for k, c in zip(KINDS, centre_counts) for _ in range(c))
        r = resolve_pass(tuple(KINDS[k] for k in profile), alpha, centre)
        return tuple(r.secured[s] for s in range(players)), _centre_key(r.centre)

    @lru_cache(maxsize=None)
    def security(seat, hands, centre):
        if sum(hands[0]) == 0:
            return 0
        best = None
        for mine in {k for k, _ in _hand_moves(hands[seat])}:
            others = [[k for k, _ in _hand_moves(h)] if s != seat else [mine] for s, h in enumerate(hands)]
            worst = None
            for profile in itertools.product(*others):
                stars, nc = outcome(profile, centre)
                nh = tuple(tuple(c - (1 if j == profile[s] else 0) for j, c in enumerate(h)) for s, h in enumerate(hands))
                v = stars[seat] + security(seat, nh, nc)
                worst = v if worst is None else min(worst, v)
            best = worst if best is None else max(best, worst)
        return best

    return [security(s, start, (0,) * 5) for s in range(players)]
