"""All You Can Eat at full size: the layered, symmetry-folded analysis against brute force.

The brute force plays every joint order of the seats' hands (each seat's distinct orders, all
equally likely) with the rulebook's pass (``resolve_pass``, pure Python) and averages.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fci_solver.games import aye as A
from fci_solver.games import aye_exact as X
from fci_solver.bitboard.kernels import aye as K

KSTARS = np.array([A.STARS[k] for k in A.KINDS], np.int64)


def kernel_pass(played, alpha, centre):
    p = len(played)
    c = np.array([centre.count(k) for k in "WBCD"], np.int64)
    stars = np.zeros(p, np.int64)
    K.resolve(np.array(["WBCDF".index(k) for k in played], np.int64), p, alpha, KSTARS, c, stars, np.zeros(3 * p, np.int64))
    return list(stars), tuple(int(x) for x in c)


def python_pass(played, alpha, centre):
    r = A.resolve_pass(tuple(played), alpha, tuple(centre))
    return [r.secured[s] for s in range(len(played))], tuple(r.centre.count(k) for k in "WBCD")


@pytest.mark.parametrize("players", [3, 4])
def test_the_kernel_pass_equals_the_rulebook_pass_on_every_profile(players):
    for played in itertools.product("WBCDF", repeat=players):
        for centre in ["", "W", "WWB", "BC", "CCD", "WBCD", "WWWBBCCD"]:
            for alpha in range(players):
                assert kernel_pass(played, alpha, centre) == python_pass(played, alpha, centre), (played, alpha, centre)


@settings(max_examples=300, deadline=None)
@given(st.integers(5, 6).flatmap(lambda p: st.tuples(st.lists(st.sampled_from("WBCDF"), min_size=p, max_size=p),
                                                    st.integers(0, p - 1),
                                                    st.lists(st.sampled_from("WBCD"), max_size=8))))
def test_the_kernel_pass_equals_the_rulebook_pass_with_five_and_six_players(case):
    played, alpha, centre = case
    assert kernel_pass(played, alpha, "".join(centre)) == python_pass(played, alpha, "".join(centre))


def test_the_centre_depends_on_how_many_of_each_kind_are_played_not_on_who():
    # the ruling the symmetry rests on: every prey of a kind is eaten as soon as one eater comes
    #   W B B | centre W  ->  both Birds eat (a Worm each), the centre keeps nothing
    #   B W B | centre W  ->  the same centre, whoever sits where
    for played in itertools.product("WBCDF", repeat=4):
        for centre in ["", "W", "WWBC", "BBCCD"]:
            after = {kernel_pass(perm, 0, centre)[1] for perm in set(itertools.permutations(played))}
            assert len(after) == 1, (played, centre)


def test_a_seats_stars_depend_only_on_its_place_after_the_alpha():
    # so the Alpha moving round the table turns the round, and the game favours no seat
    assert X.rotation_invariant(3, A._counts(A.FULL_HAND)) and X.rotation_invariant(4, A._counts(A.FULL_HAND))


# -- brute force over every order ----------------------------------------------------------------

def brute_force(players, hand, alpha=0, lead=None):
    """(expected stars per seat, {stars per seat: probability}, Alpha's expected stars given its
    lead) over every joint order."""
    orders = sorted(set(itertools.permutations(hand)))

    @lru_cache(maxsize=None)
    def step(played, centre):
        stars, after = python_pass(played, alpha, centre)
        return tuple(stars), "".join(k * n for k, n in zip("WBCD", after))

    total = [Fraction(0)] * players
    dist: dict = {}
    by_lead: dict = {}
    n = len(orders) ** players
    for combo in itertools.product(orders, repeat=players):
        centre, score = "", [0] * players
        for i in range(len(hand)):
            stars, centre = step(tuple(o[i] for o in combo), centre)
            score = [a + b for a, b in zip(score, stars)]
        for s in range(players):
            total[s] += Fraction(score[s], n)
        dist[tuple(score)] = dist.get(tuple(score), 0) + Fraction(1, n)
        first = combo[alpha][0]
        got, count = by_lead.get(first, (0, 0))
        by_lead[first] = (got + score[alpha], count + 1)
    return total, dist, {k: Fraction(a, c) for k, (a, c) in by_lead.items()}


HANDS = [("W", "B", "C"), ("W", "W", "B", "C"), ("B", "C", "D", "F"), ("W", "W", "B", "C", "D"), ("W", "B", "B", "C", "C")]


@pytest.mark.parametrize("hand", HANDS)
def test_expected_stars_win_chances_and_leads_equal_brute_force(hand):
    total, dist, leads = brute_force(3, hand)
    res = A.analyse(3, hand, lead=True)
    assert list(res["expected"]) == total
    assert list(res["win"]["round"]) == list(X.win_chances({k: v * 10 ** 9 for k, v in dist.items()}, 10 ** 9, 3))
    assert res["lead"]["expected"] == leads
    assert res["lead_average"] == total[0]


def test_with_four_players_and_another_alpha_too():
    hand = ("W", "B", "C")
    total, _, leads = brute_force(4, hand, alpha=2)
    res = A.analyse(4, hand, alpha=2, lead=True)
    assert list(res["expected"]) == total and res["lead"]["expected"] == leads


def test_the_game_gives_every_seat_the_same_chance():
    # one round per seat as Alpha: the convolution of the rounds' exact distributions
    hand = ("W", "B", "C")
    rounds = [X.score_distribution(3, A._counts(hand), a, 10 ** 6) for a in range(3)]
    game = X.game_distribution([d for d, _ in rounds], 10 ** 8)
    chances = X.win_chances(game, rounds[0][1] ** 3, 3)
    res = A.analyse(3, hand)
    assert chances == res["win"]["game"] == (Fraction(1, 3),) * 3
    assert res["game_expected"] == (sum(res["expected"]),) * 3


def test_the_win_chances_sweep_equals_the_plain_score_distribution():
    # deficits to the leader, capped at the stars still in play, lose nothing the win depends on
    for hand in [("W", "W", "B", "C", "D"), ("B", "C", "D", "F")]:
        for players, alpha in [(3, 1), (4, 3)]:
            dist, ways = X.score_distribution(players, A._counts(hand), alpha, 10 ** 7)
            chances, _ = X.round_win_chances(players, A._counts(hand), alpha)
            assert chances == X.win_chances(dist, ways, players)


def test_win_chances_that_do_not_fit_say_where_they_stopped():
    with pytest.raises(X.TooLarge) as e:
        X.score_distribution(3, A._counts(("W", "W", "B", "C", "D")), 0, 1000)
    assert e.value.layer >= 1 and e.value.entries <= 1000
    res = A.analyse(3, ("W", "W", "B", "C", "D"), win_memory=0.0001)
    assert res["win"]["round"] is None and "after pass" in res["win"]["note"] and "--win-memory" in res["win"]["note"]
    assert res["expected"] and res["win"]["game"] == (Fraction(1, 3),) * 3


# -- the figures in RULES.md ---------------------------------------------------------------------

RULES = Path(A.__file__).with_name("RULES.md").read_text()


def recorded(players: int, hand: str) -> list[str]:
    """The expected stars per seat that RULES.md records for a table."""
    row = re.search(rf"^\| {players} \| {re.escape(hand)} \|(.*)$", RULES, re.M)
    assert row, f"RULES.md has no row for {players} players, {hand}"
    return [c.strip() for c in row.group(1).split("|")][0].split(", ")


def test_the_reduced_hand_figures_in_rules_md_are_what_analyse_gives():
    res = A.analyse(4, ("W", "W", "B", "C", "D"), win=False)
    assert [str(x) for x in res["expected"]] == recorded(4, "W,W,B,C,D")


def test_the_full_hand_figures_in_rules_md_for_three_players():
    res = A.analyse(3, A.FULL_HAND, win=False)
    assert [str(x) for x in res["expected"]] == recorded(3, ",".join(A.FULL_HAND))


def test_five_players_with_the_full_hand_are_refused_up_front_with_the_estimate():
    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "aye", "analyse", "--players", "5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "states" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@settings(max_examples=200, deadline=None)
@given(st.integers(3, 6).flatmap(lambda p: st.tuples(st.lists(st.sampled_from("WBCDF"), min_size=p, max_size=p),
                                                    st.integers(1, p - 1),
                                                    st.lists(st.sampled_from("WBCD"), max_size=8))))
def test_turning_the_table_turns_the_stars_at_every_table_size(case):
    played, a, centre = case
    p = len(played)
    turned = [played[(s + a) % p] for s in range(p)]  # seat s + a sits at s, the Alpha at 0
    stars, _ = kernel_pass(played, a, "".join(centre))
    base, _ = kernel_pass(turned, 0, "".join(centre))
    assert stars == [base[(s - a) % p] for s in range(p)]
