"""Grading and generating puzzles, checked against brute force over the reference engine."""

import json
import math
import xml.dom.minidom
from fractions import Fraction
from functools import lru_cache

import pytest
from click.testing import CliRunner

from fci_solver import rules
from fci_solver.cli import cli, main
from fci_solver.generate import generate
from fci_solver.grade import SAMPLE_TURNS, TIERS, grade, score_of, tier_of
from fci_solver.layouts import parse_layout

from helpers import CARDS, board

SMALL = [
    board("9 8 7\n6 5 .", sea="shark"),
    board("4 3 2\n1 0 .", sea="none"),
    board("12 10 9\n. 8 11", sea="whale"),
    board("7 5 4 3", sea="none", margin=1),
    board("11 9 8\n5 . 6", sea="both"),
]


def brute(pos, target):
    """Every line enumerated with the reference engine: minimum, first turns, chance, line lengths."""

    @lru_cache(maxsize=None)
    def minimum(p):
        succ = rules.successors(p, CARDS)
        return min((minimum(q) for _, q in succ.values()), default=len(p))

    @lru_cache(maxsize=None)
    def chance(p):
        ts = [q for _, q in rules.turns(p, CARDS)]  # one entry per legal action sequence
        if not ts:
            return Fraction(int(len(p) <= target))
        return sum(chance(q) for q in ts) / len(ts)

    @lru_cache(maxsize=None)
    def lengths(p):
        succ = [q for _, q in rules.successors(p, CARDS).values()]
        if not succ:
            return (0, 0) if len(p) <= target else None
        ls = [x for x in map(lengths, succ) if x]
        return (1 + min(a for a, _ in ls), 1 + max(b for _, b in ls)) if ls else None

    return minimum, chance, lengths


@pytest.mark.parametrize("pos", SMALL)
def test_grade_facts_match_brute_force(pos):
    minimum, chance, lengths = brute(pos, 1)
    g = grade(pos, CARDS, target=1)
    for name, (shark, whale) in {"none": (0, 0), "shark": (1, 0), "whale": (0, 1), "both": (1, 1)}.items():
        assert g.minimum[name] == minimum(pos.replace(shark=bool(shark), whale=bool(whale)))
    firsts = [q for _, q in rules.successors(pos, CARDS).values()]
    served = minimum(pos)
    assert g.first_turns == len(firsts)
    assert g.keeping == sum(minimum(q) == served for q in firsts)
    assert g.chance == pytest.approx(float(chance(pos)), abs=1e-12)
    assert (g.shortest, g.longest) == (lengths(pos) or (None, None))


def test_sea_animals_a_deal_needs():
    # 6 cannot eat 2 normally (more than 3 apart); the Shark's eat takes any lower neighbour
    g = grade(board("6 2", sea="both", margin=0), CARDS.plain())
    assert g.minimum == {"none": 2, "shark": 1, "whale": 2, "both": 1}
    assert g.needs == "shark"


def test_a_deal_can_need_both_sea_animals():
    # apart, the Whale must first bring 2 next to 6 for the Shark
    g = grade(board("6 . 2", sea="both", margin=0), CARDS.plain())
    assert g.minimum == {"none": 2, "shark": 2, "whale": 2, "both": 1}
    assert g.needs == "both"


def test_tier_follows_the_score():
    # all first turns keep the minimum: easy; one in 32 keeps it: expert
    assert tier_of(score_of(10, 10, False)) == "easy"
    assert tier_of(score_of(32, 1, False)) == "expert"
    # needing a served sea animal adds two
    assert score_of(4, 2, True) == 3.0 and tier_of(3.0) == "hard"
    assert score_of(4, 0, False) is None and tier_of(None) is None


def test_a_deal_that_cannot_reach_the_target_has_no_tier():
    pos = board("9 . . 0", sea="none", margin=0)
    g = grade(pos, CARDS)
    assert g.minimum["none"] == 2 and g.tier is None and "cannot end with 1" in g.reason
    assert g.first_turns == 0 and g.to_dict()["forgiveness"] is None


SIX = parse_layout("XXX\nXXX", "six")


def test_generated_puzzles_land_in_their_tier_and_repeat_with_the_seed():
    a = generate(SIX, "hard", 2, seed=3, cards=CARDS)
    b = generate(SIX, "hard", 2, seed=3, cards=CARDS)
    assert [p.deal.cards for p in a] == [p.deal.cards for p in b]
    # grading ahead on a second thread changes the speed, never the puzzles or their grades
    c = generate(SIX, "hard", 2, seed=3, cards=CARDS, jobs=2)
    assert [(p.deal.cards, p.candidates, p.grade.score) for p in c] == [(p.deal.cards, p.candidates, p.grade.score) for p in a]
    assert len({p.deal.cards for p in a}) == 2
    for p in a:
        # served with the grade that proved the tier: an exact score, or bounds that fix it
        again = grade(p.deal.position(2, False, False), CARDS)
        assert again.tier == "hard" == p.grade.tier
        assert math.log2(again.first_turns / again.keeping) == pytest.approx(again.score)
        if p.grade.score is not None:
            assert p.grade.score == pytest.approx(again.score)
        else:
            lo, hi = p.grade.score_range
            assert lo - 1e-9 <= again.score <= hi + 1e-9
            klo, khi = p.grade.keeping_bounds
            assert klo <= again.keeping <= khi


def test_puzzles_differ_in_at_least_spread_cells():
    ps = generate(SIX, "hard", 3, seed=3, cards=CARDS, spread=4)
    for i, a in enumerate(ps):
        assert a.grade.tier == "hard"
        for b in ps[:i]:
            assert sum(x != y for x, y in zip(a.deal.cards, b.deal.cards)) >= 4


def test_generate_can_serve_every_fact():
    [p] = generate(SIX, "medium", 1, seed=5, cards=CARDS, full_grade=True)
    again = grade(p.deal.position(2, False, False), CARDS)
    for fact in ("minimum", "needs", "first_turns", "keeping", "chance", "shortest", "longest", "score", "tier"):
        assert getattr(p.grade, fact) == getattr(again, fact)


@pytest.mark.parametrize("target", [1, 2])
@pytest.mark.parametrize("pos", [
    board("4 3 2\n1 0 .", sea="none"),
    board("7 5 4 3", sea="none", margin=1),
    board("11 9 8\n5 . 6", sea="none"),  # the lower bound says 1, the minimum is 2
])
def test_a_tier_only_grade_finds_the_minimum_through_the_first_turns(pos, target):
    # served without sea animals, the generator's grade asks the first turns, not the deal,
    # whether the lower bound is reached (and searches the deal only when none does); the
    # minimum and the tier are the true ones all the same
    minimum, _, _ = brute(pos, target)
    g = grade(pos, CARDS, target, tier_only=True)
    full = grade(pos, CARDS, target)
    assert g.minimum["none"] == minimum(pos) == full.minimum["none"]
    assert g.minimum["shark"] is g.minimum["whale"] is g.minimum["both"] is None
    assert g.tier == full.tier
    lo, hi = g.keeping_bounds
    assert full.keeping is None or lo <= full.keeping <= hi


def test_generate_cli_json_and_svg(tmp_path):
    lay = tmp_path / "six.txt"
    lay.write_text("XXX\nXXX\n")
    args = ["generate", "-d", "medium", "-l", str(lay), "-n", "1", "--seed", "5", "--json", "--svg", str(tmp_path / "svg")]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["puzzles"][0]["tier"] == "medium"
    assert len(d["svg"]) == 2
    for f in d["svg"]:
        doc = xml.dom.minidom.parse(f)
        assert doc.documentElement.tagName == "svg"
    deal = [int(c) for c in d["puzzles"][0]["deal"].split()]
    drawn = (tmp_path / "svg" / "puzzle-1.svg").read_text()
    assert all(f">{CARDS[c].name}<" in drawn for c in deal)
    again = json.loads(CliRunner().invoke(cli, args).output)
    assert [p["deal"] for p in again["puzzles"]] == [p["deal"] for p in d["puzzles"]]


@pytest.mark.parametrize("args, message", [
    (["generate", "-d", "impossible"], "unknown difficulty 'impossible'"),
    (["generate", "-d", "expert", "-l", "{two}"], "has only 0 expert deal(s) among all 240"),
    (["grade", "--random", "--seed", "1", "--dag-states", "-5"], "--dag-states"),
    (["generate", "-d", "hard", "-l", "{two}", "--spread", "3"], "--spread must be between 1 and the 2 cells"),
])
def test_bad_requests_are_one_line_errors(tmp_path, capsys, args, message):
    two = tmp_path / "two.txt"
    two.write_text("XX\n")
    args = [a.replace("{two}", str(two)) for a in args]
    with pytest.raises(SystemExit) as e:
        main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_grade_cli_text_draws_the_board_and_the_tier():
    r = CliRunner().invoke(cli, ["grade", "--layout", "standard", "--position", "-"],
                           input="sea: none\nmargin: 1\n9 8 7\n6 5 .\n")
    assert r.exit_code == 0, r.output
    assert "Tier: " in r.output and "9  8  7" in r.output


def test_every_tier_has_a_name():
    assert TIERS == ("easy", "medium", "hard", "expert")


def test_a_state_limit_leaves_facts_unproven_and_no_tier():
    pos = board("9 8 7\n6 5 .", sea="none")
    g = grade(pos, CARDS, state_limit=1)
    assert g.tier is None and g.keeping is None and "not every fact" in g.reason
    lo, hi = g.keeping_bounds
    assert 0 <= lo <= hi <= g.first_turns


@pytest.mark.parametrize("pos", SMALL)
def test_tier_only_grading_stops_early_but_agrees(pos):
    full = grade(pos, CARDS)
    fast = grade(pos, CARDS, tier_only=True)
    assert fast.tier == full.tier
    for t in TIERS:
        # the generator's grade either proves the true tier or stops without one, saying why
        # (ruled out by the counts, or a sample of first turns far below the tier asked for)
        g = grade(pos, CARDS, tier_only=True, stop_tier=t)
        assert g.tier in (full.tier, None)
        assert g.tier is not None or g.reason.startswith("stopped")
        if t == full.tier and full.first_turns <= SAMPLE_TURNS:  # too few first turns to judge by a sample
            assert g.tier == full.tier
    lo, hi = fast.keeping_bounds
    assert lo <= full.keeping <= hi


def test_a_tier_proven_from_bounds_is_printed_with_its_range():
    from dataclasses import replace
    from fci_solver.cli import _grade_lines

    g = grade(board("9 8 7\n6 5 .", sea="none"), CARDS)
    bounded = replace(g, keeping=None, keeping_bounds=(1, 4), score=None, score_range=(2.6, 4.4), tier="hard")
    text = "\n".join(_grade_lines(bounded))
    assert "between 1 and 4 keep the minimum" in text
    assert "Tier: hard (score between 2.60 and 4.40" in text


@pytest.mark.parametrize("pos", SMALL)
def test_grading_on_two_threads_proves_the_same_facts(pos):
    one, two = grade(pos, CARDS), grade(pos, CARDS, jobs=2)
    fields = ("minimum", "needs", "first_turns", "keeping", "chance", "shortest", "longest", "score", "tier")
    assert [getattr(two, f) for f in fields] == [getattr(one, f) for f in fields]
