"""All You Can Eat at full size: exact expected stars per seat, the Alpha's best lead, and the
whole game, by layers over (hands left, centre) with the seats' symmetry folded in.

Every seat starts a round with the same hand and plays it in a uniformly random order, so the
seats are interchangeable as far as the hands and the centre go: the centre after a pass depends
on how many of each kind were played, not on who played them.  Only the stars tell the seats
apart (the Alpha picks first, ties go to the lowest seat), and stars never feed back into the
play.  So the forward layers store one state per orbit (hands sorted) and collect, for each
centre and each profile up to the symmetry, how likely it is to be played on that centre; the
expected stars are then a finite sum over a table of passes.  Integers throughout, one division
at the end: the figures are exact fractions.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import interrupt
from ..errors import FciError
from ..bitboard.kernels import aye as K
from .aye import KINDS, STARS

MAX_ORBITS = 60_000_000  # orbit states per layer, at most: about 1 GB of keys and weights per layer
INT64 = (1 << 63) - 1
MAX_SCORE_SLOTS = 1 << 27  # slots of one layer of the win-chance sweep: 3 GB, two layers alive at once
SLOT_BYTES = 2 * 24  # a slot's three words, and the layer before it alive at the same time
CHUNK = 1 << 16  # slots expanded per kernel call: an interrupt is seen within a fraction of a second


@dataclass(frozen=True)
class HandSpace:
    """Every sub-multiset of one hand, indexed (the index is what a state key stores)."""

    hand: tuple[int, ...]  # counts per kind
    subsets: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, hand: tuple[int, ...]) -> "HandSpace":
        subs = sorted(itertools.product(*(range(c + 1) for c in hand)), key=lambda c: (-sum(c), c))
        return cls(hand, tuple(subs))

    def arrays(self):
        index = {c: i for i, c in enumerate(self.subsets)}
        cnt = np.array(self.subsets, np.int64)
        minus = np.full((len(self.subsets), 5), -1, np.int64)
        for c, i in index.items():
            for k in range(5):
                if c[k]:
                    minus[i, k] = index[c[:k] + (c[k] - 1,) + c[k + 1:]]
        orders = np.array([orders_of(c) for c in self.subsets], np.int64)
        return cnt, minus, orders


def orders_of(counts) -> int:
    """The distinct orders of a multiset of cards."""
    return math.factorial(sum(counts)) // math.prod(math.factorial(x) for x in counts)


def centre_ranges(players: int, hand: tuple[int, ...]) -> np.ndarray:
    """The most Worms, Birds, Cats and Dogs the centre can hold: every one played."""
    return np.array([players * hand[k] for k in range(4)], np.int64)


def canonical_codes(players: int, group: tuple[int, ...]) -> np.ndarray:
    """For each profile (base 5, seat 0 lowest), the code of its representative: kinds sorted
    within each group of interchangeable seats."""
    out = np.zeros(5 ** players, np.int64)
    for pc in range(5 ** players):
        prof = [(pc // 5 ** s) % 5 for s in range(players)]
        for g in set(group):
            seats = [s for s in range(players) if group[s] == g]
            for s, k in zip(seats, sorted(prof[s] for s in seats)):
                prof[s] = k
        out[pc] = sum(k * 5 ** s for s, k in enumerate(prof))
    return out


@dataclass
class Tables:
    """Everything a round's layers need, built once per (players, hand, Alpha)."""

    players: int
    alpha: int
    space: HandSpace
    cnt: np.ndarray
    minus: np.ndarray
    orders: np.ndarray
    cmax: np.ndarray
    n_centres: int
    stars: np.ndarray  # [profile * n_centres + centre, seat]
    centre_next: np.ndarray

    @classmethod
    @functools.lru_cache(maxsize=2)
    def build(cls, players: int, hand: tuple[int, ...], alpha: int) -> "Tables":
        space = HandSpace.of(hand)
        cnt, minus, orders = space.arrays()
        cmax = centre_ranges(players, hand)
        n_c = int(np.prod(cmax + 1))
        stars = np.zeros((5 ** players * n_c, players), np.int64)
        nxt = np.zeros(5 ** players * n_c, np.int64)
        kstars = np.array([STARS[k] for k in KINDS], np.int64)
        K.outcomes(players, alpha, kstars, cmax, stars, nxt)
        return cls(players, alpha, space, cnt, minus, orders, cmax, n_c, stars, nxt)

    @property
    def root_ways(self) -> int:
        """N(root): the joint orders of every seat's full hand."""
        return orders_of(self.space.hand) ** self.players


@dataclass(frozen=True)
class Layers:
    """The result of one forward sweep."""

    acc: np.ndarray  # [centre, canonical profile]: C * N(child), summed over every pass
    states: int  # orbit states visited, every layer
    per_layer: tuple[int, ...]


def sweep(t: Tables, group: tuple[int, ...], first_fix: tuple[int, ...] | None = None,
          progress=None) -> Layers:
    """Every layer of a round, forwards.  ``first_fix`` forces kinds in the first pass only."""
    p = t.players
    q = canonical_codes(p, group)
    g = np.array(group, np.int64)
    free = np.full(p, -1, np.int64)
    root = np.uint64(0)  # every seat's subset 0 (the whole hand), centre 0 (empty)
    keys, weights = np.array([root], np.uint64), np.ones(1, np.int64)
    total = np.zeros((t.n_centres, 5 ** p), np.int64)
    n_prev, sizes = 1, []
    for layer in range(sum(t.space.hand)):
        interrupt.check()
        fix = np.array(first_fix, np.int64) if (first_fix is not None and layer == 0) else free
        size = 1 << max(4, (n_prev * 4 - 1).bit_length())
        while True:
            if size // 2 > MAX_ORBITS:
                raise FciError(f"layer {layer + 1} of the round holds more than {MAX_ORBITS:,} states: too large "
                               f"for this machine's memory")
            out_k = np.full(size, K.EMPTY, np.uint64)
            out_w = np.zeros(size, np.int64)
            acc = np.zeros_like(total)
            n = 0
            for lo in range(0, len(keys), CHUNK):
                interrupt.check()
                n = K.orbit_step(keys, weights, lo, min(lo + CHUNK, len(keys)), p, g, fix, t.cnt, t.minus, t.orders,
                                 t.centre_next, t.n_centres, q, out_k, out_w, n, acc)
                if n < 0:
                    break
            if n >= 0:
                break
            size *= 2
        total += acc
        keys, weights, n_prev = out_k, out_w, n
        sizes.append(n)
        if progress:
            progress(layer + 1, n)
    return Layers(total, 1 + sum(sizes), tuple(sizes))


def expected_from(t: Tables, layers: Layers, group: tuple[int, ...], norm: int) -> tuple[Fraction, ...]:
    """Each seat's expected stars from a sweep whose first layer carries ``norm`` in all.

    Given the centre and the profile's class, every profile of the class is equally likely (the
    symmetry), so a seat's stars there are the class's mean: sum over (centre, class) of the
    class's weight times that mean.
    """
    p = t.players
    q = canonical_codes(p, group)
    n_q = np.bincount(q, minlength=5 ** p)
    by_class = np.zeros((5 ** p, t.n_centres, p), np.int64)
    np.add.at(by_class, q, t.stars.reshape(5 ** p, t.n_centres, p))
    # acc * stars overflows int64: split acc into 30-bit halves, each product then fits
    hi, lo = layers.acc >> 30, layers.acc & ((1 << 30) - 1)
    num_hi = np.einsum("ck,kcs->ks", hi, by_class)
    num_lo = np.einsum("ck,kcs->ks", lo, by_class)
    out = []
    for s in range(p):
        total = Fraction(0)
        for k in np.nonzero(n_q)[0].tolist():
            num = (int(num_hi[k, s]) << 30) + int(num_lo[k, s])
            if num:
                total += Fraction(num, int(n_q[k]))
        out.append(total / norm)
    return tuple(out)


# -- the questions a player asks ------------------------------------------------------------------

def one_group(players: int) -> tuple[int, ...]:
    return (0,) * players


def alpha_apart(players: int, alpha: int) -> tuple[int, ...]:
    """The Alpha alone, the other seats interchangeable."""
    return tuple(0 if s == alpha else 1 for s in range(players))


def expected_stars(players: int, hand: tuple[int, ...], alpha: int, progress=None):
    """Expected stars per seat of a round with the Alpha at ``alpha``, and the sweep's layers."""
    t = Tables.build(players, hand, alpha)
    layers = sweep(t, one_group(players), progress=progress)
    return expected_from(t, layers, one_group(players), t.root_ways), layers


def best_lead(players: int, hand: tuple[int, ...], alpha: int, progress=None) -> dict:
    """The Alpha's expected round stars for each first card it may lead, the others (and the
    Alpha's later cards) in uniformly random order."""
    t = Tables.build(players, hand, alpha)
    group = alpha_apart(players, alpha)
    out, states = {}, 0
    for k in range(5):
        if not hand[k]:
            continue
        fix = tuple(k if s == alpha else -1 for s in range(players))
        layers = sweep(t, group, first_fix=fix, progress=progress)
        states += layers.states
        out[KINDS[k]] = expected_from(t, layers, group, Fraction(t.root_ways * hand[k], sum(hand)))[alpha]
    return {"expected": out, "states": states}


class TooLarge(Exception):
    """A score distribution that outgrew its cap: it held ``entries`` after pass ``layer``, and
    the next pass would not fit."""

    def __init__(self, layer: int, entries: int):
        super().__init__(layer, entries)
        self.layer, self.entries = layer, entries


def score_distribution(players: int, hand: tuple[int, ...], alpha: int, cap: int) -> tuple[dict, int]:
    """The exact distribution of a round's stars per seat as ({(stars of seat 0, ...): ways}, total
    ways), forwards over (hands, centre, stars so far), in pure Python: the check of
    :func:`round_win_chances` on small hands, and the game's distribution.  TooLarge when a layer
    holds more than ``cap`` entries (the seats' symmetry does not help: stars tell them apart)."""
    t = Tables.build(players, hand, alpha)
    stars = t.stars.tolist()
    nxt = t.centre_next.tolist()
    minus = t.minus.tolist()
    cnt = t.cnt.tolist()
    layer = {((0,) * players, 0, (0,) * players): 1}
    for depth in range(sum(hand)):
        interrupt.check()
        new: dict = {}
        for (hands, ci, score), w in layer.items():
            for prof in itertools.product(*([k for k in range(5) if cnt[h][k]] for h in hands)):
                pc = sum(k * 5 ** s for s, k in enumerate(prof))
                row = pc * t.n_centres + ci
                gain = stars[row]
                key = (tuple(minus[h][k] for h, k in zip(hands, prof)), nxt[row],
                       tuple(a + b for a, b in zip(score, gain)))
                new[key] = new.get(key, 0) + w
            if len(new) > cap:
                raise TooLarge(depth, len(layer))
        layer = new
    out: dict = {}
    for (_, _, score), w in layer.items():
        out[score] = out.get(score, 0) + w
    return out, t.root_ways


def round_win_chances(players: int, hand: tuple[int, ...], alpha: int, max_slots: int = MAX_SCORE_SLOTS,
                      progress=None) -> tuple[tuple[Fraction, ...], int]:
    """Each seat's exact chance to win the round (ties shared equally), and the entries visited.

    Forwards over (state, each seat's deficit to the leader), the deficits capped at one more
    than the stars still in play (:func:`.kernels.aye.score_step`); TooLarge when a layer needs
    more than ``max_slots`` slots (half of them filled at most)."""
    t = Tables.build(players, hand, alpha)
    p = players
    sub_stars = np.array([sum(c * STARS[k] for c, k in zip(sub, KINDS)) for sub in t.space.subsets], np.int64)
    radix = (t.cmax + 1).tolist()
    centre_stars = np.zeros(t.n_centres, np.int64)
    for ci in range(t.n_centres):
        y, counts = ci, [0] * 4
        for j in range(3, -1, -1):
            counts[j] = y % radix[j]
            y //= radix[j]
        centre_stars[ci] = sum(c * STARS[k] for c, k in zip(counts, KINDS))
    k0s, k1s, ws = np.array([np.uint64(0)], np.uint64), np.zeros(1, np.uint64), np.ones(1, np.int64)
    n_prev, visited = 1, 1
    for layer in range(sum(hand)):
        size = min(max_slots, 1 << max(4, (n_prev * 4 - 1).bit_length()))
        while True:
            if size > max_slots:
                raise TooLarge(layer, n_prev)  # after pass ``layer``: the next pass does not fit
            o0, o1, ow = np.full(size, K.EMPTY, np.uint64), np.zeros(size, np.uint64), np.zeros(size, np.int64)
            n = 0
            for lo in range(0, len(k0s), CHUNK):
                interrupt.check()
                n = K.score_step(k0s, k1s, ws, lo, min(lo + CHUNK, len(k0s)), p, t.cnt, t.minus, sub_stars,
                                 centre_stars, t.stars, t.centre_next, t.n_centres, o0, o1, ow, n)
                if n < 0:
                    break
            if n >= 0:
                break
            size *= 2
        k0s, k1s, ws, n_prev = o0, o1, ow, n
        visited += n
        if progress:
            progress(layer + 1, n)
    lcm = math.lcm(*range(1, p + 1))
    out = np.zeros(p, np.int64)
    K.shares(k0s, k1s, ws, p, lcm, out)
    return tuple(Fraction(int(x), t.root_ways * lcm) for x in out), visited


def win_chances(dist: dict, ways: int, players: int) -> tuple[Fraction, ...]:
    """Each seat's chance to win, a tie shared equally among those tied for the most stars."""
    win = [Fraction(0)] * players
    for score, w in dist.items():
        best = max(score)
        top = [s for s in range(players) if score[s] == best]
        for s in top:
            win[s] += Fraction(w, ways * len(top))
    return tuple(win)


def game_distribution(rounds: list[dict], cap: int) -> dict:
    """The distribution of the game's stars per seat: the rounds are independent (each starts
    with full hands and an empty centre), so it is the convolution of theirs.  TooLarge when the
    work (pairs of entries combined) would pass ``cap``."""
    total = {(0,) * len(next(iter(rounds[0]))): 1}
    for d in rounds:
        interrupt.check()
        if len(total) * len(d) > cap:
            raise TooLarge(0, len(total) * len(d))
        new: dict = {}
        for x, wx in total.items():
            for y, wy in d.items():
                k = tuple(i + j for i, j in zip(x, y))
                new[k] = new.get(k, 0) + wx * wy
        total = new
    return total


def rotation_invariant(players: int, hand: tuple[int, ...]) -> bool:
    """Whether every pass with the Alpha at seat ``a`` gives the stars of the same pass, seats
    turned by ``a``, with the Alpha at seat 0 (the tie-break to the lowest seat never changes
    anyone's stars: every prey of a kind is eaten once one eater comes)."""
    base = Tables.build(players, hand, 0)
    n_c = base.n_centres
    for a in range(1, players):
        t = Tables.build(players, hand, a)
        for pc in range(5 ** players):
            prof = [(pc // 5 ** s) % 5 for s in range(players)]
            turned = sum(prof[(s + a) % players] * 5 ** s for s in range(players))  # seat s+a sits at s
            mine = t.stars[pc * n_c:(pc + 1) * n_c]
            theirs = base.stars[turned * n_c:(turned + 1) * n_c]
            if not np.array_equal(mine, np.roll(theirs, a, axis=1)):
                return False
    return True


def orbit_estimate(players: int, hand: tuple[int, ...]) -> int:
    """Orbit states a round is expected to visit: every multiset of equal-sized hands left, per
    layer, times the distinct centres such a multiset meets on average, measured on the full
    hand (69 for 3 players, 153 for 4) and taken to grow by the same factor per player."""
    sizes = {}
    for c in itertools.product(*(range(x + 1) for x in hand)):
        sizes[sum(c)] = sizes.get(sum(c), 0) + 1
    multisets = sum(math.comb(n + players - 1, players) for n in sizes.values())
    return int(multisets * 69 * (153 / 69) ** (players - 3))


def fits_int64(players: int, hand: tuple[int, ...]) -> bool:
    """The sweep's integer weights stay below 2**63: its sums reach (passes + 1) * N(root)."""
    return (sum(hand) + 1) * orders_of(hand) ** players < INT64
