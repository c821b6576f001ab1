"""The solver on hand-worked positions, replay, and the command line."""

import json
import subprocess
import sys

import pytest
from fci_solver import rules
from fci_solver.actions import Eat
from fci_solver.notation import replay
from fci_solver.search import solve

from helpers import CARDS, board

ENGINES = ["reference", "bitboard"]


@pytest.mark.parametrize("engine", ENGINES)
def test_chain_eats_down_to_one(engine):
    # 9 eats 8, the stack (9 on top) eats 7: plain rules, one stack left
    p = board("9 8 7", sea="none")
    r = solve(p, CARDS.plain(), engine=engine)
    assert (r.min_remaining, r.exact) == (1, True)


@pytest.mark.parametrize("engine", ENGINES)
def test_gap_of_four_leaves_two(engine):
    # 9 can never eat 5 (9 - 5 = 4): two stacks remain whatever is played
    r = solve(board("9 5", sea="none"), CARDS, engine=engine)
    assert r.min_remaining == 2 and r.line == []


@pytest.mark.parametrize("engine", ENGINES)
def test_needs_the_shark(engine):
    # Only the Shark lets 9 eat 2; without it both stay
    p = board("9 2", sea="shark")
    assert solve(p, CARDS, engine=engine).min_remaining == 1
    assert solve(p.replace(shark=False), CARDS, engine=engine).min_remaining == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_needs_the_whale(engine):
    # 9 and 8 are apart and the plain rules move nothing: only the Whale brings them together
    p = board("9 . . 8", sea="whale")
    assert solve(p, CARDS.plain(), engine=engine).min_remaining == 1
    assert solve(p.replace(whale=False), CARDS.plain(), engine=engine).min_remaining == 2


@pytest.mark.parametrize("engine", ENGINES)
def test_order_of_eats_matters_and_the_solver_finds_it(engine):
    # plain rules, one row 3 2 1 0: 3 must not eat 2 first (then 3 and 1 are apart);
    # 1 eats 0, 2 eats 1, 3 eats 2 leaves one stack
    p = board("3 2 1 0", sea="none", margin=0)
    r = solve(p, CARDS.plain(), engine=engine)
    assert r.min_remaining == 1
    final = replay(p, r.line, CARDS.plain())[-1]
    assert len(final) == 1 and rules.is_over(final, CARDS.plain())


def test_solver_line_for_a_seeded_deal_replays():
    from fci_solver.position import Deal

    p = Deal.random("standard", 5).position(2, shark=False, whale=False)
    r = solve(p, CARDS)
    after = replay(p, r.line, CARDS)
    assert len(after[-1]) == r.min_remaining and rules.is_over(after[-1], CARDS)


def test_time_limit_gives_inexact_answer_with_a_real_line():
    from fci_solver.position import Deal

    p = Deal.random("standard", 1).position(2, shark=False, whale=False)
    r = solve(p, CARDS, time_limit=0.2)
    if not r.exact:  # on a very fast machine it may finish; then it is exact
        assert r.lower_bound <= r.min_remaining
    after = replay(p, r.line, CARDS)
    final = after[-1] if after else p
    assert len(final) == r.min_remaining


# -- replay -------------------------------------------------------------------------

def test_replay_rejects_an_illegal_action_naming_turn_and_action():
    from fci_solver.errors import FciError

    p = board("9 8 . 1")
    with pytest.raises(FciError, match=r"turn 2: action 1 \(eat\)"):
        replay(p, [(Eat((0, 0), (0, 1)),), (Eat((0, 1), (0, 3)),)], CARDS)


# -- the command line ------------------------------------------------------------------

def run(*args, input=None):
    return subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", *args],
                          capture_output=True, text=True, input=input)


DEAL = "5 12 0 7 3 15 9 1 14 2 8 11 6 13 4 10"


@pytest.mark.parametrize("args, needle", [
    (["solve", "1", "2", "3"], "has 16 cells but the deal lists 3"),
    (["solve", *("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 14".split())], "card 14 appears twice"),
    (["solve", *("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16".split())], "card 16 is outside 0..15"),
    (["solve", "--layout", "nowhere", "--random"], "unknown layout 'nowhere'"),
    (["solve", "--random", "--margin", "-1"], "margin must be >= 0"),
    (["solve", "--random", "--margin", "x"], "'x' is not a valid integer"),
    (["solve", "--random", "--sea", "kraken"], "'kraken' is not one of"),
    (["solve", "--deal-file", "/no/such/file"], "cannot read deal file"),
    (["solve", "a", "b"], "malformed deal: 'a'"),
    (["solve", "--random", "--cards", "/no/such.json"], "cannot read card file"),
    (["solve", "--random", "--bogus"], "No such option"),
    (["replay", "/no/such/line.json"], "cannot read line file"),
    (["graph", "--layout", "six", "--random", "--time-limit", "2"], "--time-limit goes with --optimal"),
])
def test_bad_input_is_one_line_and_exit_2(args, needle):
    r = run(*args)
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_malformed_layout_and_card_files(tmp_path):
    bad_layout = tmp_path / "bad.txt"
    bad_layout.write_text("XX?\n")
    r = run("solve", "--layout", str(bad_layout), "--random")
    assert r.returncode == 2 and "'?'" in r.stderr
    bad_cards = tmp_path / "cards.json"
    bad_cards.write_text('{"cards": [{"value": 0, "name": "Plant", "ability": "fly"}]}')
    r = run("solve", "--random", "--cards", str(bad_cards))
    assert r.returncode == 2 and "unknown ability 'fly'" in r.stderr


def test_solve_json_replays_and_user_files_are_untouched(tmp_path):
    deal_file = tmp_path / "deal.txt"
    deal_file.write_text("# a small deal\n9 8 7 3\n")
    layout_file = tmp_path / "row.txt"
    layout_file.write_text("XXXX\n")
    before = (deal_file.read_bytes(), layout_file.read_bytes())
    r = run("solve", "--layout", str(layout_file), "--deal-file", str(deal_file), "--sea", "none", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    for key in ("layout", "deal", "sea", "margin", "rules", "min_remaining", "winnable", "rank", "line", "stats"):
        assert key in doc
    assert doc["stats"]["states"] > 0
    line_file = tmp_path / "line.json"
    line_file.write_text(r.stdout)
    rr = run("replay", str(line_file), "--json")
    assert rr.returncode == 0, rr.stderr
    out = json.loads(rr.stdout)
    assert out["remaining"] == doc["min_remaining"] and out["game_over"]
    assert (deal_file.read_bytes(), layout_file.read_bytes()) == before


def test_replay_reports_the_first_illegal_action(tmp_path):
    doc = {"layout": "standard", "deal": DEAL, "sea": [], "line": [[{"op": "eat", "from": [0, 0], "to": [0, 1]}]]}
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    r = run("replay", str(f))
    assert r.returncode == 2 and "turn 1: action 1 (eat): 5 cannot eat 12" in r.stderr


def test_solve_text_output_draws_the_board_and_the_line():
    r = run("solve", "--random", "--seed", "2", "--sea", "none", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "Minimum result: 1 (Ecosystem Expert" in r.stdout
    assert "Turn 1:" in r.stdout and "  a  b  c  d  e  f  g  h" in r.stdout


def test_layouts_lists_the_rulebooks_seven_then_three_small_ones():
    r = run("layouts", "--json")
    rows = json.loads(r.stdout)
    names = [x["name"] for x in rows]
    assert names == ["standard", "staircase", "cross", "comb", "gap", "tower", "ring", "six", "eight", "ten"]
    assert [sum(row.count("X") for row in x["grid"]) for x in rows] == [16] * 7 + [6, 8, 10]


def test_perft_engines_agree():
    a = run("perft", "--random", "--seed", "7", "--sea", "none", "--depth", "2", "--json")
    b = run("perft", "--random", "--seed", "7", "--sea", "none", "--depth", "1", "--engine", "reference", "--json")
    pa, pb = json.loads(a.stdout)["perft"], json.loads(b.stdout)["perft"]
    assert [x["count"] for x in pa] == [561, 110876]
    assert pb[0]["count"] == 561


def test_perft_past_its_memory_keeps_the_levels_it_counted():
    r = run("perft", "--random", "--seed", "7", "--sea", "none", "--depth", "3", "--memory", "300", "--json")
    assert r.returncode == 3
    d = json.loads(r.stdout)
    assert [x["count"] for x in d["perft"]] == [561, 110876] and d["complete"] is False
    assert r.stderr.strip().splitlines()[-1].startswith("fci: perft(3) needs more than the 300 MiB that --memory allows")


def test_can_win_stops_at_the_first_winning_line():
    from fci_solver.position import Deal

    p = Deal.random("standard", 6).position(2, shark=False, whale=False)
    r = solve(p, CARDS, stop_at=3)
    assert r.min_remaining <= 3
    final = replay(p, r.line, CARDS)[-1]
    assert len(final) == r.min_remaining and rules.is_over(final, CARDS)
    # a position that cannot be won: the bound answers at once
    q = board("9 5 . 0", sea="none")
    assert solve(q, CARDS, stop_at=1).lower_bound > 1


@pytest.mark.parametrize("seed", range(1, 9))
@pytest.mark.parametrize("target", [1, 2, 3])
def test_can_win_answers_for_any_target_with_a_sound_bound(seed, target):
    # "can it end with target or fewer?" is asked at once: the answer is right, the bound sound
    from fci_solver.position import Deal

    pos = Deal.random("eight", seed).position(2, True, False)
    true_min = solve(pos, CARDS).min_remaining
    r = solve(pos, CARDS, stop_at=target)
    assert (r.min_remaining <= target) == (true_min <= target)
    assert r.lower_bound <= true_min <= r.min_remaining
    assert len(replay(pos, r.line, CARDS)[-1] if r.line else pos) == r.min_remaining


def test_a_capped_perfect_play_graph_prints_its_partial_counts_and_exits_3():
    r = run("graph", "--optimal", "--layout", "six", "9", "8", "7", "6", "5", "4", "--margin", "1", "--sea", "none",
            "--max-nodes", "50", "--json")
    assert r.returncode == 3, r.stderr
    out = json.loads(r.stdout)
    assert out["complete"] is False and out["reason"] == "cap" and out["found"] > 50
    first = out["width_by_turn"][0]
    assert {k: first[k] for k in ("turn", "positions", "options", "keeping")} == \
        {"turn": 1, "positions": 1, "options": 52, "keeping": 33}
    # what it cost so far: the minimum's proof and the settling, the first turn's part of it
    stats = out["stats"]
    assert first["states"] > 0 and stats["settled"] == out["settled"]
    assert stats["states"] >= stats["minimum_states"] + sum(row["states"] for row in out["width_by_turn"])
    assert "raise --max-nodes" in r.stderr and "Traceback" not in r.stderr
