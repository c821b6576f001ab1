"""A solve's path of keys read back as turns of the reference rules (``bitboard/line.py``).

Positions use margin 0 or 1 as drawn; (0, 0) is the drawn grid's top-left cell.
"""

from hypothesis import HealthCheck, given, settings

from fci_solver import rules
from fci_solver.actions import Discard, Move
from fci_solver.bitboard import line
from fci_solver.bitboard.codec import key_of

from helpers import CARDS, board, play
from test_engines import positions


def found(pos, nxt):
    """The turn ``line`` gives from ``pos`` to the position ``nxt``, replayed and checked."""
    turn, after = line.turn_to(rules.TurnState.begin(pos), key_of(nxt), CARDS)
    assert key_of(rules.play_turn(pos, turn, CARDS)) == key_of(after) == key_of(nxt)
    return turn


def read(pos, nxt):
    """The turn read from the two keys' difference alone (no listing of turns), checked."""
    turn, after = line._read_turn(rules.TurnState.begin(pos), key_of(nxt), CARDS)
    assert key_of(rules.play_turn(pos, turn, CARDS)) == key_of(after) == key_of(nxt)
    return turn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_every_next_position_is_read_back_as_a_legal_turn_that_reaches_it(pos):
    for _, nxt in rules.successors(pos, CARDS, whale_before=False).values():
        found(pos, nxt)


def test_a_spider_turn_is_read_with_its_moves_in_the_order_that_lands_each_on_an_open_cell():
    # 2 eats 1 onto (1, 1), steps on to (1, 2), and the 9 steps down into the cell it left:
    # the 9 first would land on the Spider
    pos = board(". 9 .\n2 1 .", margin=0)
    turn = read(pos, play(pos, "2 a2xb2; move b2-c2; move b1-b2"))
    assert turn[1:] == (Move((1, 1), (1, 2)), Move((0, 1), (1, 1)))


def test_a_lizard_discard_and_a_raccoon_discard_in_one_turn_are_both_read():
    pos = board("4 3 9 8", pending="raccoon")
    turn = read(pos, play(pos, "4 b2xc2; discard d2; discard e2"))
    assert sorted(a.at for a in turn[1:] if isinstance(a, Discard)) == [(0, 2), (0, 3)]


def test_a_stack_moved_and_then_discarded_in_one_turn_is_found_by_listing_turns():
    # the Ant moves the 9 and the raccoon trigger discards it: the keys show no move, and the
    # ability is mandatory, so the turn is not read from them but found among those that fit
    pos = board("1 0 . 9", pending="raccoon", margin=0)
    assert line._read_turn(rules.TurnState.begin(pos), key_of(board(". 1:2 . .", margin=0)), CARDS) is None
    turn = found(pos, board(". 1:2 . .", margin=0))
    assert isinstance(turn[1], Move) and turn[1].frm == (0, 3) and turn[2] == Discard(turn[1].to)


def test_a_snake_swap_is_read_from_the_two_stacks_that_traded_cells():
    pos = board("7 6 9")
    turn = read(pos, play(pos, "7 b2xc2; swap c2 d2"))
    assert turn[1].op == "swap"
