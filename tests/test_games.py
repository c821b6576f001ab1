"""The thin game modules: the rulebooks' examples, and every exact figure against brute force."""

import itertools
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest

from fci_solver.games import aye as A
from fci_solver.games import fattest as S
from fci_solver.games import foodfighters as F


# -- All You Can Eat ---------------------------------------------------------------------

SEATS = ["Carsten", "Sabrina", "Tobias", "Christoph", "Gabi", "Markus"]


def test_aye_rulebook_example_1():
    # Carsten (Alpha) and Sabrina play Birds, Tobias a Cat, Christoph a Flea, Gabi and Markus Worms
    r = A.resolve_pass(("B", "B", "C", "F", "W", "W"), alpha=0)
    assert [src for src, _ in r.snatched[0]] == [4]  # the Alpha takes a Worm first
    assert [src for src, _ in r.snatched[1]] == [5]  # then Sabrina
    assert [c for _, c in r.snatched[2]] == [("B", "W"), ("B", "W")]  # Tobias takes both Birds with their Worms
    assert 3 not in r.snatched  # Christoph's Flea finds no Dog
    assert r.secured == {0: 0, 1: 0, 2: 11, 3: 0, 4: 0, 5: 0}
    assert r.to_box == [3] and r.centre == ()


def test_aye_rulebook_example_2():
    # Markus alone plays a Dog; Sabrina and Tobias Cats; Carsten, Gabi, Christoph Worms; a Cat lies in the centre
    played = ("W", "C", "C", "W", "W", "D")  # Carsten, Sabrina, Tobias, Christoph, Gabi, Markus
    r = A.resolve_pass(played, alpha=0, centre=("C",))
    assert sorted(str(src) for src, _ in r.snatched[5]) == ["1", "2", "centre"]
    assert r.secured[5] == 3 + 3 * 1  # Dog and three Cats
    assert sorted(r.to_centre) == ["W", "W", "W"] and r.centre == ("W", "W", "W")
    assert all(r.secured[s] == 0 for s in range(5))


def test_aye_policy_all_contains_greedy():
    played, centre = ("C", "C", "B", "B", "W"), ("B",)
    greedy = A.resolve_pass(played, 0, centre)
    everything = A.resolve_pass(played, 0, centre, "all")
    assert greedy.secured in [r.secured for r in everything]
    assert len(everything) > 1  # the first Cat may take a played Bird or the centre one


def test_aye_expected_stars_equal_brute_force_over_all_orders():
    hand = ("W", "B", "C")
    players = 3
    orders = sorted(set(itertools.permutations(hand)))
    total = [Fraction(0)] * players
    combos = list(itertools.product(orders, repeat=players))
    for combo in combos:
        res = A.play_round(list(combo), alpha=0)
        for s in range(players):
            total[s] += Fraction(res["totals"][s], len(combos))
    assert list(A.analyse(players, hand)["expected"]) == total


def test_aye_pure_nash_is_a_best_response_profile():
    res = A.analyse(3, ("W", "B", "C"))
    table = res["first_pass"]
    for prof in res["pure_nash"]:
        for s in range(3):
            for k in "WBC":
                alt = prof[:s] + (k,) + prof[s + 1:]
                assert table[prof][s] >= table[alt][s]


# -- Survival of the Fattest -----------------------------------------------------------------

def test_fattest_rulebook_turn_order_example():
    # Chris and Mim both have a 7; Chris's next is 3, Mim's 6; Mick has a 6; Sara has no Forage cards
    hands = {"Bucky": [7, 3], "Flit": [7, 6], "Oakley": [6], "Lottie": []}
    assert S.starting_player(hands) == "Flit"  # Mim


def test_fattest_turn_order_tie_goes_to_the_larger_critter():
    assert S.starting_player({"Flit": [5, 2], "Bucky": [5, 2]}) == "Bucky"


def test_fattest_rulebook_foraging_example():
    # Chris 3 Forage cards (highest priority), Mim (Flit) and Sara (Lottie) 2 each: Sara is larger, so second
    foragers = [S.Forager("Bucky", 3, (S.WILD, "Acorn", "Carrot")), S.Forager("Flit", 2, ("Leaf",)),
                S.Forager("Lottie", 2, ("Berry", "Carrot"))]
    revealed = Counter({S.TRAP: 1, S.WILD: 1, "Berry": 1, "Acorn": 1, "Carrot": 2, "Leaf": 1})
    assert [f.critter for f in S.priority(foragers)] == ["Bucky", "Lottie", "Flit"]
    got = S.draft(foragers, revealed)
    assert got["Bucky"] == Counter({S.WILD: 1, "Acorn": 1, "Carrot": 1})
    assert got["Lottie"] == Counter({"Berry": 1, "Carrot": 1})
    assert got["Flit"] == Counter({S.TRAP: 1, "Leaf": 1})  # poor Mim


def test_fattest_grizz_always_first_and_alone_takes_all():
    fs = [S.Forager("Flit", 3), S.Forager("Ol' Grizz", 1)]
    assert S.priority(fs)[0].critter == "Ol' Grizz"
    assert S.draft([S.Forager("Flit", 1)], Counter({"Fish": 2, S.TRAP: 1}))["Flit"] == Counter({"Fish": 2, S.TRAP: 1})


def test_fattest_short_deck_lowest_priority_misses_out():
    got = S.draft([S.Forager("Bucky", 2), S.Forager("Flit", 2)], Counter({"Fish": 3}))
    assert sum(got["Bucky"].values()) == 2 and sum(got["Flit"].values()) == 1


def test_fattest_distribution_equals_every_deck_order():
    foragers = [S.Forager("Bucky", 2), S.Forager("Flit", 1)]
    deck = {S.TRAP: 2, "Fish": 2, S.WILD: 1}
    exact = S.forage(foragers, deck)["distribution"]
    cards = [t for t, n in deck.items() for _ in range(n)]
    brute = {f.critter: Counter() for f in foragers}
    perms = list(itertools.permutations(cards))
    for order in perms:
        got = S.draft(foragers, Counter(order[:3]))
        for c, g in got.items():
            brute[c][tuple(sorted(g.items()))] += Fraction(1, len(perms))
    assert {c: dict(d) for c, d in exact.items()} == {c: dict(d) for c, d in brute.items()}


# -- Foodfighters -----------------------------------------------------------------------------

def test_ff_dice_against_closed_forms():
    o = F.attack_odds((F.DIE_A, F.DIE_B))
    pa, pb = Fraction(1, 6), Fraction(2, 6)  # chance of a Splat on each die
    assert o.miss == (1 - pa) * (1 - pb)
    assert o.double_hit == pa * pb
    assert o.hit == 1 - o.miss
    # beans on a miss: the two dice's bean faces, each uniform on its own
    assert o.beans_on_miss == Fraction(1 + 1 + 2 + 2 + 3, 5) + Fraction(1 + 1 + 2 + 3, 4)


def test_ff_roll_for_beans_equals_rerolling_until_no_splat():
    # brute force: sum over the number of re-rolls k of (splat chance)^k * (bean face chance), truncated deep
    dice = (F.DIE_A, F.DIE_B)
    per_die = []
    for die in dice:
        s = Fraction(die.count("S"), 6)
        dist = Counter()
        for k in range(60):
            for f in die:
                if f != "S":
                    dist[f] += s ** k * Fraction(1, 6)
        per_die.append(dist)
    approx = Counter()
    for (a, pa), (b, pb) in itertools.product(per_die[0].items(), per_die[1].items()):
        approx[a + b] += pa * pb
    exact = F.beans_roll(dice)
    assert all(abs(float(exact[k] - approx[k])) < 1e-12 for k in exact)


def test_ff_rulebook_reach_example():
    # our front row: Chicken (thinks Cabbage), Steak (Onion), Bacon (Broccoli)
    ours = F.parse_formation("Chicken>Cabbage,Steak>Onion,Bacon>Broccoli|.,.,.|.,.,.")
    theirs = F.parse_formation("Cabbage>Chicken,Onion>Steak,Cabbage>Bacon|Broccoli>Steak,Onion>Bacon,Cabbage>Chicken|Broccoli>Bacon,Onion>Chicken,Broccoli>Steak")
    moves = {(m.attacker, m.target) for m in F.attacks(ours, theirs)}
    assert moves == {((0, 0), (0, 0)), ((0, 1), (0, 1))}
    # the Chicken reaches the near Cabbage straight ahead, not the one two columns away (0, 2);
    # with a Spoon it reaches the far Cabbage on its diagonal, (1, 2): two rows on, two columns over
    spoon = F.parse_formation("Chicken>Cabbage+spoon,.,.|.,.,.|.,.,.")
    far = {m.target for m in F.attacks(spoon, theirs)}
    assert (1, 2) in far and (0, 0) in far and (0, 2) not in far


def test_ff_pan_attacks_any_type_in_reach():
    ours = F.parse_formation("Steak>Onion+pan,.,.|.,.,.|.,.,.")
    theirs = F.parse_formation("Cabbage>Steak,Broccoli>Steak,.|.,.,.|.,.,.")
    assert {(m.target, m.via) for m in F.attacks(ours, theirs)} == {((0, 0), "pan"), ((0, 1), "pan")}


def test_ff_rulebook_gap_example():
    # a Veggie front-row fighter was knocked out; the back row is empty, so the gap is filled from the second row
    veg = F.parse_formation(".,Cabbage>Steak,Cabbage>Steak|Onion>Steak,Broccoli>Bacon,.|.,.,.")
    fills = F.fill_gaps(veg)
    fronts = sorted(f[0][0].kind for f in fills)
    assert fronts == ["Broccoli", "Onion"]


def test_ff_duel_matches_value_iteration():
    a = [F.parse_fighter("Steak>Onion"), F.parse_fighter("Steak>Onion"), None]
    b = [F.parse_fighter("Onion>Steak+cracker"), None, None]
    res = F.duel(a, b)
    assert res["a_wins"] + res["b_wins"] + res["draw"] == 1
    # value iteration on the same chain with floats
    o = F.attack_odds((F.DIE_A, F.DIE_B))
    trans, start = {}, (tuple(a + [None] * 0), tuple(b), (), (), 0)

    def won(k, alive):
        return any(v >= 3 for v in Counter(k).values()) or not any(alive)
    stack = [start]
    while stack:
        s = stack.pop()
        if s in trans:
            continue
        trans[s] = F._transitions(s, o, o.hit - o.double_hit, "first", won)
        stack += [n for n, _ in trans[s]]
    v = {s: 0.0 for s in trans}
    for _ in range(5000):
        v = {s: (sum(float(p) * v[n] for n, p in t) if t else float(won(s[2], s[1]))) for s, t in trans.items()}
    assert abs(v[start] - float(res["a_wins"])) < 1e-9


@pytest.mark.parametrize("args, needle", [
    (["aye", "pass", "--cards", "W,X,B"], "unknown animal 'X'"),
    (["aye", "pass", "--cards", "W,B"], "3 to 6 players"),
    (["fattest", "order", "--hand", "Godzilla:7"], "unknown critter"),
    (["fattest", "forage", "--critter", "Flit:two"], "give one number"),
    (["foodfighters", "dice", "--die-a", "S,1,2"], "a die has 6 faces"),
    (["foodfighters", "duel", "--a", "Steak", "--b", "Onion>Steak"], "write KIND>THOUGHT"),
])
def test_game_commands_bad_input_exit_2(args, needle):
    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", *args], capture_output=True, text=True)
    assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_game_commands_json():
    import json

    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "foodfighters", "dice", "--json"], capture_output=True, text=True)
    assert json.loads(r.stdout)["hit"]["fraction"] == "4/9"


@pytest.mark.parametrize("hand", [("W", "B"), ("B", "C"), ("W", "D")])
def test_aye_security_equals_brute_force_max_min_over_orders(hand):
    # with two cards the second pass is forced, so the pass-by-pass max-min equals max over my order
    # of min over the others' orders of my round total
    players = 3
    orders = sorted(set(itertools.permutations(hand)))
    res = A.analyse(players, hand)
    for seat in range(players):
        best = max(
            min(A.play_round([mine if s == seat else others[s - (s > seat)] for s in range(players)], 0)["totals"][seat]
                for others in itertools.product(orders, repeat=players - 1))
            for mine in orders)
        assert res["security"][seat] == best
