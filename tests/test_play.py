"""At the table: human notation, hints, and a scripted `fci play` session."""

import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from fci_solver import rules
from fci_solver.errors import FciError
from fci_solver.notation import parse_human_turn, turn_to_human
from fci_solver.play import hint
from fci_solver.position import position_text
from fci_solver.search import solve

from helpers import CARDS, board
from test_engines import positions


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=5))
def test_human_notation_round_trips_every_turn(pos):
    for turn, _ in list(rules.turns(pos, CARDS))[:200]:
        text = turn_to_human(turn, pos)
        assert parse_human_turn(text, pos.board, pos) == turn


def test_solver_lines_round_trip_through_human_notation():
    from fci_solver.position import Deal

    pos = Deal.random("standard", 5).position(2, False, False)
    r = solve(pos, CARDS)
    for turn, after in zip(r.line, r.positions):
        assert parse_human_turn(turn_to_human(turn, pos), pos.board, pos) == turn
        pos = after


@pytest.mark.parametrize("text, needle", [
    ("b2-c2", "cannot read action"),
    ("9 b2xc2 extra", "cannot read action"),
    ("8 b2xc2", "card 8 is not on top at b2"),
    ("move b2-zz9", "off the board"),
    ("move b2 c2", "cannot read action"),
    ("move b2-j9", "off the board"),
    ("", "empty turn"),
])
def test_human_notation_rejects_malformed_or_ambiguous(text, needle):
    pos = board("9 8 7")
    with pytest.raises(FciError, match=needle):
        parse_human_turn(text, pos.board, pos)


def test_hint_gives_the_best_turn():
    pos = board("4 3 2", sea="none", margin=0)
    h = hint(pos, CARDS.plain())
    assert h.min_remaining == 1 and h.text == "4 a1xb1"


def test_scripted_play_reaches_the_solver_result_by_following_hints(tmp_path):
    start = board("9 8 7\n6 5 .", sea="shark")
    best = solve(start, CARDS).min_remaining
    script, pos = [], start
    while not rules.is_over(pos, CARDS):
        h = hint(pos, CARDS)
        script += ["hint", h.text]
        pos = h.after
    f = tmp_path / "start.txt"
    f.write_text(position_text(start))
    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "play", "--position", str(f)],
                       input="moves\nbogus turn\n" + "\n".join(script) + "\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "Illegal: cannot read action 'bogus turn'" in r.stdout
    assert r.stdout.count("Hint: ") == len(script) // 2
    assert f"Game over: {best} stack" in r.stdout


def test_play_undo_and_illegal_turn_reason(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("sea: none\nmargin: 1\n3 2 1 0\n")
    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "play", "--position", str(f)],
                       input="c2xb2\n1 d2xe2\nmove e2-e3\nundo\nquit\n", capture_output=True, text=True)
    assert "Illegal: action 1 (eat): 2 cannot eat 3: 2 eats only 0 or 1" in r.stdout
    # the eat alone, then the Ant's ability when asked
    assert "Now the Ant's ability (move a stack 1-3 cells)" in r.stdout
    assert "3 stacks; sea: none; pending: none; turn 2; target: 3 or fewer" in r.stdout
    assert "Undone." in r.stdout and "Stopped with 4 stacks." in r.stdout


def test_solve_from_a_position_on_stdin():
    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "solve", "--position", "-", "--json"],
                       input="sea: none\nmargin: 1\n9 8 7\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"min_remaining": 2' in r.stdout  # 9 eats 8 leaves the fox pending: 7 is out of reach


def test_bad_position_file_exit_2(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("7 7\n")
    r = subprocess.run([sys.executable, "-c", "from fci_solver.cli import main; main()", "hint", "--position", str(f)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "card 7 appears twice" in r.stderr and "Traceback" not in r.stderr


def session(pos, lines):
    from fci_solver.play import Session

    out = []
    s = Session(pos, CARDS, out.append, target=1)
    s.run(lines)
    return s, "\n".join(out)


def test_undo_then_redo_replays_the_turn():
    # 3 2 1 0 on a row, no sea animals: the Ant's eat, undone, redone
    s, text = session(board("3 2 1 0"), ["1 d2xe2; move e2-e3", "undo", "redo", "redo"])
    assert "Redone." in text and "Nothing to redo." in text
    assert len(s.history) == 2


def test_a_new_turn_after_undo_clears_redo():
    s, text = session(board("3 2 1 0"), ["1 d2xe2; move e2-e3", "undo", "3 b2xc2; move c2-c3", "redo"])
    assert "Nothing to redo." in text


def test_the_last_moves_cells_are_starred_and_cells_keep_their_width():
    s, text = session(board("3 2 1 0"), ["1 d2xe2; move e2-e3"])
    rows = text.split("target: 1 or fewer")[1].splitlines()
    assert any("*1:2" in r for r in rows)
    widths = {len(r) for r in text.splitlines() if r.startswith("  2 ")}
    assert len(widths) == 1  # the same width before and after stacks appear


def test_save_and_load_go_on_with_the_game(tmp_path):
    from fci_solver.play import Session

    f = tmp_path / "game.json"
    s, _ = session(board("3 2 1 0"), ["1 d2xe2; move e2-e3", f"save {f}"])
    from fci_solver.notation import read_line_document

    doc = read_line_document(f.read_text())
    again = Session(doc.start, CARDS, lambda _: None, line=doc.line)
    assert again.pos == s.pos and again.turns == s.turns


def test_moves_are_grouped_by_eat_with_a_count_and_listed_for_one_card():
    s, text = session(board("3 2 1 0"), ["moves", "moves 1", "moves 9"])
    assert "1 d2xe2: 33 turns" in text and "      1 d2xe2; move e2-e3" in text.replace("    1 d2xe2; move e2-e3", "      1 d2xe2; move e2-e3")
    assert "9 has no eat now." in text


def test_ctrl_c_asks_before_quitting():
    from fci_solver.play import INTERRUPT

    s, text = session(board("3 2 1 0"), [INTERRUPT, "n", "1 d2xe2; move e2-e3", INTERRUPT, "y"])
    assert text.count("Quit the game?") == 0  # piped input shows no prompts
    assert "Stopped with 3 stacks." in text and len(s.history) == 2


def test_refusals_say_why_in_the_players_terms():
    _, text = session(board("15 . 11\n14 12 ."), ["15 b2xd2", "15 b2xc3", "12 c3xb2"])
    assert "15 cannot eat 11: 15 eats only 12, 13 or 14" in text
    assert "15 cannot eat 12 from there: the prey must be next to it (up, down, left or right)" in text
    assert "12 cannot eat 15: 12 eats only 9, 10 or 11" in text
