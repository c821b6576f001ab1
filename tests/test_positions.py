"""Position values: drawing, the typed format, JSON, and validation."""

import pytest
from hypothesis import given, settings

from fci_solver.errors import FciError
from fci_solver.layouts import load_layout, parse_layout
from fci_solver.position import Deal, Position, parse_position_text, position_text

from test_engines import positions


@settings(max_examples=100, deadline=None)
@given(positions())
def test_text_and_json_round_trip(pos):
    assert parse_position_text(position_text(pos)) == pos
    assert Position.from_dict(pos.to_dict()) == pos


def test_a_replayed_position_equals_the_typed_one():
    from helpers import play

    start = parse_position_text("sea: none\nmargin: 1\n9 8 . 1")
    typed = parse_position_text("sea: none\npending: fox\nmargin: 1\n. 9:2 . 1")
    assert play(start, "9 b2xc2") == typed


@pytest.mark.parametrize("text, needle", [
    ("7 7", "card 7 appears twice"),
    ("7 x", "'x'"),
    ("pending: kraken\n7 6", "unknown pending effect 'kraken'"),
    ("sea: octopus\n7 6", "sea lists"),
    ("", "no grid rows"),
])
def test_bad_positions_are_rejected(text, needle):
    with pytest.raises(FciError, match=needle):
        parse_position_text(text)


def test_deal_string_example_from_the_spec():
    pos = Deal.parse("standard", "5 12 0 7 3 15 9 1 14 2 8 11 6 13 4 10").position()
    assert pos.at((0, 0)).card == 5 and pos.at((0, 1)).card == 12 and pos.at((3, 3)).card == 10
    assert pos.board.n_rows * pos.board.n_cols == 64


def test_alternative_layouts_are_72_cells_with_margin_2():
    for name in ("staircase", "cross", "comb", "gap", "tower", "ring"):
        L = load_layout(name)
        assert len(L) == 16
        assert (L.height + 4) * (L.width + 4) == 72


def test_same_seed_same_deal():
    assert Deal.random("ring", 3) == Deal.random("ring", 3)
    assert Deal.random("ring", 3).cards != Deal.random("ring", 4).cards


def test_layout_needs_2_to_16_cells():
    with pytest.raises(FciError, match="needs 2 to 16"):
        parse_layout("X\n")
