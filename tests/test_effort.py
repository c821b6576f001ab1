"""The effort line: how much search each decision needs to see a turn that keeps the minimum."""

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from fci_solver import rules
from fci_solver.effort import decision_effort, effort, option_effort
from fci_solver.grade import grade, tier_of
from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.engine import Engine
from fci_solver.position import Deal

from helpers import CARDS, SMALL, board, play

@lru_cache(maxsize=None)
def minimum(p):
    """The least stacks reachable, over every line of the reference engine."""
    succ = rules.successors(p, CARDS)
    return min((minimum(q) for _, q in succ.values()), default=len(p))


@pytest.mark.parametrize("pos", SMALL)
def test_the_effort_line_keeps_the_minimum_and_replays(pos):
    m = minimum(pos)
    e = effort(pos, CARDS, m)
    assert e.exact and e.hardest == max(s.effort for s in e.steps)
    p = pos
    for s in e.steps:
        nxt = [q for _, q in rules.successors(p, CARDS).values()]
        assert s.options == len(nxt)
        p = play(p, s.played)
        assert minimum(p) == m  # every turn of the line keeps the minimum
    assert not rules.successors(p, CARDS) and len(p) == m


@pytest.mark.parametrize("pos", SMALL)
def test_a_decisions_effort_is_the_least_over_its_keeping_options(pos):
    # each option searched alone with a budget far above any effort: the decision's effort is
    # the least number of states among the options that keep the minimum, and the line plays one
    m = minimum(pos)
    eng = Engine(pos.board, CARDS)
    options = sorted(eng.next_states(key_of(pos)))
    e, proven, played, _ = decision_effort(eng, options, m, 10_000)
    needs = [option_effort(eng, CARDS, ch, m, 10_000) for ch in options]
    if len(options) == 1:
        assert (e, proven) == (0, 1)
        return
    assert e == min(n for n in needs if n is not None)
    assert proven == needs.count(e) and needs[options.index(played)] == e


def test_an_effort_is_exact_one_state_less_does_not_prove_it():
    pos = Deal.random("standard", 8).position(2, False, False)
    eng = Engine(pos.board, CARDS)
    e, _, played, _ = decision_effort(eng, sorted(eng.next_states(key_of(pos))), 1, 1000)
    assert option_effort(eng, CARDS, played, 1, e) == e
    assert option_effort(eng, CARDS, played, 1, e - 1) is None


@pytest.mark.parametrize("chunk", [1000, 7])
def test_the_options_searched_in_one_call_get_the_figures_of_one_search_each(monkeypatch, chunk):
    # the kernel runs the searches one after another, each on a zeroed table, and resumes one
    # that a call's chunk of states cut (a chunk of 7 cuts many, some of them several times):
    # each figure is that of a search of its own capped at the least found before it, and a
    # search that ended without a line is REFUTED, which no larger budget changes
    import numpy as np

    from fci_solver.bitboard import fresh

    monkeypatch.setattr(fresh, "CHUNK", chunk)
    pos = Deal.random("eight", 3).position(2, True, True)
    eng = Engine(pos.board, CARDS).calibrated()
    options = sorted(eng.next_states(key_of(pos)))[:1500]
    need = np.full(len(options), -1, np.int64)
    least = np.array([40], np.int64)
    fresh.fresh_needs(eng, np.array(options, np.uint64), need, 2, 40, least, 8, 1 << 12)
    expect, cap = [], 40
    for ch in options:
        expect.append(option_effort(eng, CARDS, ch, 1, cap))
        cap = min(cap, expect[-1] or cap)
    assert [n if n > 0 else None for n in need] == expect
    assert least[0] == min(n for n in expect if n is not None) == 7
    refuted = [ch for ch, n in zip(options, need) if n == fresh.REFUTED]
    assert len(refuted) == 1460 and all(option_effort(eng, CARDS, ch, 1, 10_000) is None for ch in refuted[::20])
    assert list(need).count(fresh.NOT_WITHIN) == 36


def _line(e):
    return [(s.options, s.effort, s.proven, s.played) for s in e.steps]


def test_two_threads_find_the_same_decision_as_one():
    # with both sea animals the first decision of eight-card deal 3 has 59,972 options: shared
    # out, the least effort, its ties and the first of them in the engine's order are the same
    pos = Deal.random("eight", 3).position(2, True, True)
    eng = Engine(pos.board, CARDS)
    options = sorted(eng.next_states(key_of(pos)))
    one = decision_effort(eng, options, 1, 1000)
    two = decision_effort(eng, options, 1, 1000, jobs=2)
    assert len(options) == 59_972 and one[:3] == two[:3] == (5, 39, one[2])
    assert _line(effort(pos, CARDS, 1, jobs=2)) == _line(effort(pos, CARDS, 1))


@pytest.mark.parametrize("layout, seed, sea", [("standard", 9, False), ("eight", 3, True)])
def test_a_table_sized_to_the_budget_gives_the_figures_of_a_large_one(monkeypatch, layout, seed, sea):
    # each option's search gets a table of 8 slots a state of its budget instead of 2^18: a
    # search that evicts nothing counts the same states on any table, and this one evicts nothing
    import fci_solver.effort as E

    pos = Deal.random(layout, seed).position(2, sea, sea)
    small = effort(pos, CARDS, 1)
    monkeypatch.setattr(E, "SLOTS_PER_STATE", 1 << 14)  # 2^18 entries from the first budget, 16 states, on
    assert E._table_entries(E.FIRST_BUDGET) == 1 << 18
    assert _line(effort(pos, CARDS, 1)) == _line(small)


def test_a_forced_turn_costs_nothing():
    # two animals side by side: one turn, 1 eats 0, and no choice to make
    pos = board("1 0", sea="none", margin=0)
    e = effort(pos, CARDS, 1)
    assert [(s.options, s.effort) for s in e.steps] == [(1, 0)]
    assert e.hardest == 0 and tier_of(e.hardest) == "easy"


def test_a_capped_effort_is_a_lower_bound_that_can_fix_the_expert_tier():
    # seeded deal 8's first decision needs 17 states: capped at 10, the line stops there, bounded
    pos = Deal.random("standard", 8).position(2, False, False)
    e = effort(pos, CARDS, 1, limit=10)
    assert not e.exact and e.hardest is None and e.bounds == (11, float("inf"))
    assert e.steps[-1].effort is None and len(e.steps) == 1


def test_the_grade_tier_is_the_effort_tier():
    pos = Deal.random("standard", 8).position(2, False, False)
    g = grade(pos, CARDS, tier_only=True)
    assert g.score == 17 and g.tier == tier_of(17) == "easy"
    d = g.to_dict()
    assert d["effort"] == 17 and d["effort_bounds"] == [17, 17]
    assert d["steps"][0] == {"turn": 1, "options": 441, "effort": 17, "proven": 1, "played": "7 c3xd3; swap e6 f6"}


def test_grade_quick_gives_the_tier_from_the_exact_effort_alone():
    import json

    from click.testing import CliRunner
    from fci_solver.cli import cli

    r = CliRunner().invoke(cli, ["grade", "--random", "--seed", "8", "--quick", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert (d["tier"], d["effort"], d["score"]) == ("easy", 17, 17)
    assert d["decisions"] == [] and d["bits"] is None and len(d["steps"]) == 14


CALIBRATION = Path(__file__).resolve().parent.parent / "benchmarks" / "calibration-effort-standard.jsonl"


def _calibration() -> dict:
    with open(CALIBRATION) as f:
        return {r["seed"]: r for r in map(json.loads, f)}


@pytest.mark.parametrize("seed", [8, 9, 28, 31])  # easy, hard, medium, hard: one of each band but expert, fast
def test_the_calibrated_efforts_are_what_the_search_gives_today(seed):
    # the effort is measured with fci's own search: a change to its move order or bound changes
    # the measure, and then the tiers must be calibrated again (RULES.md, "Why effort")
    row = _calibration()[seed]
    e = effort(Deal.random("standard", seed).position(2, False, False), CARDS, row["minimum"], limit=row["limit"])
    assert e.hardest == row["effort"]
    assert [[s.turn, s.options, s.effort, s.proven] for s in e.steps] == row["steps"]


def test_no_tier_is_empty_on_the_calibrated_standard_deals():
    tiers = Counter(tier_of(r["effort_bounds"][0]) for r in _calibration().values() if r["effort_bounds"])
    assert len(_calibration()) == 500 and all(tiers[t] >= 10 for t in ("easy", "medium", "hard", "expert"))


def test_grade_draws_the_position_of_the_hardest_decision():
    from click.testing import CliRunner
    from fci_solver.cli import cli

    # seeded deal 9: 4 turns to choose from before turn 4, and 231 states to see one that keeps 1
    r = CliRunner().invoke(cli, ["grade", "--random", "--seed", "9", "--quick"])
    assert r.exit_code == 0, r.output
    assert "    4        4     231  8 c6xc5  <- hardest" in r.output
    grid = r.output.split("The hardest decision, before turn 4:\n")[1]
    assert grid.splitlines()[3] == "  3   .   .  14   .   . 5:2   .   ."
    assert "Tier: hard (effort 231)" in r.output
