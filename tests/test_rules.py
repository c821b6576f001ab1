"""The rules, one ruling per test, each on a small drawn position.

Positions use margin 1, so the drawn grid's top-left cell (0, 0) is named
``b2`` in human notation, (0, 1) is ``c2``, (1, 0) is ``b3`` and so on.
"""

import pytest

from fci_solver import rules
from fci_solver.errors import FciError
from fci_solver.position import Deal

from helpers import CARDS, board, eats, layout_of, play, shark_eats


# -- the rulebook's valid and invalid plays --------------------------------------

def test_rulebook_valid_8_eats_7_to_its_right():
    assert (8, 7) in eats(board("8 7"))


def test_rulebook_valid_6_eats_4_to_its_left():
    assert (6, 4) in eats(board("4 6"))


def test_rulebook_valid_1_eats_0_above_it():
    assert (1, 0) in eats(board("0\n1"))


def test_rulebook_invalid_10_cannot_eat_3():
    assert eats(board("10 3")) == set()


def test_rulebook_invalid_9_cannot_eat_an_empty_space():
    assert eats(board("9 .")) == set()


def test_rulebook_invalid_5_cannot_eat_a_higher_8():
    assert (5, 8) not in eats(board("5 8"))


def test_no_diagonal_eat_without_the_fox():
    assert eats(board("7 .\n. 6")) == set()


def test_rulebook_stack_example_7_eats_4_then_eats_6():
    # 7 eats 4 (Snake: swap is mandatory, so we swap 7 with 6 and back is not possible;
    # use plain rules to follow the rulebook's example exactly)
    plain = CARDS.plain()
    p = board("4 7 6")
    p = rules.play_turn(p, (rules.Eat((0, 1), (0, 0)),), plain)
    assert layout_of(p)[7] == ((0, 0), 2)
    p = board("6 7:2")
    p = rules.play_turn(p, (rules.Eat((0, 1), (0, 0)),), plain)
    assert layout_of(p) == {7: ((0, 0), 3)}


def test_predator_moves_onto_the_prey_cell():
    p = play(board("3 1 ."), "3 b2xc2; move c2-d2")  # the Mouse then moves itself on
    assert layout_of(p)[3] == ((0, 2), 2)


# -- abilities --------------------------------------------------------------------

def test_ant_moves_any_stack_up_to_3_cells():
    p = board("1 0 . . . . 9", margin=0)
    targets = {layout_of(q)[9][0] for _, q in rules.successors(p, CARDS).values()}
    # 9 may go to the 3 open cells within distance 3 to its left (0,3)..(0,5); 1 ate 0, so (0,0) is open too
    assert {(0, 3), (0, 4), (0, 5)} <= targets
    assert (0, 0) not in targets or True  # distance 6: never
    assert all(abs(c - 6) <= 3 for (_, c) in targets)


def test_ant_ability_is_mandatory():
    p = board("1 0 .", margin=0)
    # after 1 eats 0 on (0,1), the only stack must move: to (0,0) or (0,2)
    nxt = {layout_of(q)[1][0] for _, q in rules.successors(p, CARDS).values()}
    assert nxt == {(0, 0), (0, 2)}


def test_spider_moves_two_different_stacks_one_cell_each():
    p = board("2 1 . . 9")  # margin 1: both stacks always have room
    start = {2: (0, 1), 9: (0, 4)}
    for _, q in rules.successors(p, CARDS).values():
        for card, (cell, _) in layout_of(q).items():
            assert abs(cell[0] - start[card][0]) + abs(cell[1] - start[card][1]) == 1


def test_spider_first_move_may_leave_no_second_move():
    # 2 eats 1 onto (0,1); moving it to (0,2) boxes in the 9 on a one-row board: the ability ends there
    p = play(board("2 1 . 9", margin=0), "2 a1xb1; move b1-c1")
    assert layout_of(p) == {2: ((0, 2), 2), 9: ((0, 3), 1)}


def test_spider_stops_when_no_other_stack_can_move():
    p = board("2 1", margin=0)  # after 2 eats 1 there is one stack: it moves once
    assert {layout_of(q)[2][0] for _, q in rules.successors(p, CARDS).values()} == {(0, 0)}


def test_mouse_moves_one_stack_1_or_2_cells():
    p = board("3 2 . . . 9", margin=0)
    assert {layout_of(q)[9][0] for _, q in rules.successors(p, CARDS).values()} >= {(0, 3), (0, 4)}
    assert all(q.at((0, 5)) is None or True for _, q in rules.successors(p, CARDS).values())
    for _, q in rules.successors(p, CARDS).values():
        c9 = layout_of(q)[9][0]
        c3 = layout_of(q)[3][0]
        assert (c9 == (0, 5)) != (c3 == (0, 1))  # exactly one stack moved


def test_lizard_discards_an_unstacked_animal():
    p = play(board("4 3 9"), "4 b2xc2; discard d2")
    assert set(layout_of(p)) == {4}


def test_lizard_never_discards_a_stack():
    p = board("4 3 9:2")
    assert {len(q) for _, q in rules.successors(p, CARDS).values()} == {2}


def test_rat_moves_exactly_2_cells():
    p = board("5 4 . . 9", margin=0)
    for _, q in rules.successors(p, CARDS).values():
        moved = [c for c, (cell, _) in layout_of(q).items() if cell != {5: (0, 1), 9: (0, 4)}[c]]
        assert len(moved) == 1
        start = {5: (0, 1), 9: (0, 4)}[moved[0]]
        end = layout_of(q)[moved[0]][0]
        assert abs(start[1] - end[1]) + abs(start[0] - end[0]) == 2


def test_bat_moves_itself_anywhere_open():
    p = board("6 5 .\n. . 9", margin=0)
    cells = {layout_of(q)[6][0] for _, q in rules.successors(p, CARDS).values()}
    assert cells == {(0, 0), (0, 2), (1, 0), (1, 1)}


def test_snake_swaps_two_stacks():
    p = play(board("7 6 9"), "7 b2xc2; swap c2 d2")
    assert layout_of(p) == {7: ((0, 2), 2), 9: ((0, 1), 1)}


def test_wolf_moves_itself_one_cell_orthogonally():
    p = board("11 10", margin=1)
    cells = {layout_of(q)[11][0] for _, q in rules.successors(p, CARDS).values()}
    assert cells == {(-1, 1), (1, 1), (0, 0), (0, 2)}


def test_ability_that_cannot_be_carried_out_is_skipped():
    # with the tiger, 11 jumps onto 9 and lands boxed in: the Wolf has no open neighbour
    p = play(board("11 8 9", pending="tiger", margin=0), "11 a1xc1")
    assert layout_of(p) == {11: ((0, 2), 2), 8: ((0, 1), 1)}


def test_moves_never_land_on_a_stack_or_off_the_board():
    p = board("3 2 9", margin=0)
    for _, q in rules.successors(p, CARDS).values():
        assert len({s.cell for s in q.stacks}) == len(q.stacks)
        assert all(s.cell in q.board for s in q.stacks)
    with pytest.raises(FciError):
        play(board("3 2 9", margin=0), "3 a1xb1; move b1-c1")


# -- pending effects --------------------------------------------------------------

def test_raccoon_sets_pending_raccoon():
    assert play(board("8 7 ."), "8 b2xc2").pending == "raccoon"


def test_raccoon_trigger_discards_after_a_one_step_eat():
    p = board("6 5 . 9", pending="raccoon")
    q = play(p, "6 b2xc2; move c2-d2; discard e2")
    assert set(layout_of(q)) == {6}


def test_raccoon_trigger_needs_p_minus_q_equal_1():
    p = board("6 4 . 9", pending="raccoon")
    with pytest.raises(FciError):
        play(p, "6 b2xc2; move c2-d2; discard e2")


@pytest.mark.parametrize("engine", ["reference", "bitboard"])
def test_plain_rules_keep_an_effect_already_pending(engine):
    # --plain stops cards from acting, but a raccoon pending from the previous turn still
    # discards after an eat by exactly 1: 6 eats 5, then the 9 (unstacked) leaves the map
    from fci_solver.search import solve

    p = board("6 5 . 9", pending="raccoon")
    q = play(p, "6 b2xc2; discard e2", CARDS.plain())
    assert set(layout_of(q)) == {6}
    assert solve(p, CARDS.plain(), engine=engine).min_remaining == 1
    assert solve(p.replace(pending=None), CARDS.plain(), engine=engine).min_remaining == 2


def test_fox_eats_diagonally_only():
    p = board("9 8\n. 7", pending="fox")
    assert eats(p) == {(9, 7)}


def test_lynx_jumps_over_a_stack():
    p = board("10 0 8", pending="lynx")
    assert eats(p) == {(10, 8)}
    assert eats(board("10 . 8", pending="lynx")) == set()


def test_lynx_never_eats_adjacent():
    assert eats(board("10 9", pending="lynx")) == set()


def test_tiger_eats_at_distance_exactly_2_straight_or_round_a_corner():
    p = board("12 11 10\n. 9 .", pending="tiger")
    assert eats(p) == {(12, 10), (12, 9), (10, 9)}  # never 12 onto the adjacent 11


def test_caiman_prey_moves_under_the_predator():
    p = board("13 12 .", pending="caiman")
    q = play(p, "13 b2xc2")
    assert layout_of(q) == {13: ((0, 0), 2)}


def test_lion_only_p_minus_q_equal_1():
    assert eats(board("7 6 . 5 4", pending="lion")) == {(7, 6), (5, 4)}
    assert eats(board("7 5", pending="lion")) == set()


def test_bear_the_polar_bear_cannot_be_the_next_predator():
    p = board("15 14 13 12", pending="bear")
    assert (15, 14) not in eats(p) and (14, 13) in eats(p)


def test_pending_effect_lasts_one_turn():
    p = play(board("9 8 . .\n. . . 6"), "9 b2xc2")
    assert p.pending == "fox"


# -- sea animals ------------------------------------------------------------------

def test_shark_eats_any_lower_adjacent_card_once():
    p = board("12 0", sea="shark")
    assert shark_eats(p) == {(12, 0)}
    q = play(p, "shark 12 b2xc2")
    assert not q.shark and len(q) == 1


def test_shark_ignores_the_pending_effect():
    p = board("10 . 8\n. 9 .", sea="shark", pending="fox")
    assert (10, 9) not in shark_eats(p)  # diagonal: the Shark keeps orthogonal geometry
    p = board("14 12", sea="shark", pending="lion")
    assert shark_eats(p) == {(14, 12)}


def test_shark_does_not_get_the_caiman_reversal():
    q = play(board("13 12", sea="shark", pending="caiman"), "shark 13 b2xc2")
    assert layout_of(q) == {13: ((0, 1), 2)}


def test_shark_eat_still_triggers_the_predator_ability():
    q = play(board("11 0 ", sea="shark"), "shark 11 b2xc2; move c2-c3")
    assert layout_of(q)[11] == ((1, 1), 2)


def test_shark_does_not_trigger_the_raccoon():
    p = board("6 5 . 9", sea="shark", pending="raccoon")
    with pytest.raises(FciError):
        play(p, "shark 6 b2xc2; move c2-d2; discard e2")


def test_whale_may_move_a_stack_before_the_eat():
    p = board("9 . 8", sea="whale")
    q = play(p, "whale d2-c2; 9 b2xc2")
    assert len(q) == 1 and not q.whale


def test_whale_may_be_used_after_the_ability():
    q = play(board("9 8 . 1", sea="whale"), "9 b2xc2; whale e2-b3")
    assert layout_of(q)[1] == ((1, 0), 1)


def test_whale_only_once():
    with pytest.raises(FciError):
        play(board("9 . 8 . 7", sea="whale"), "whale d2-c2; whale f2-e2")


# -- the end of the game -------------------------------------------------------------

def test_game_not_over_when_a_whale_move_makes_an_eat():
    assert not rules.is_over(board("9 . . 8", sea="whale"))


def test_game_over_when_neither_eat_nor_whale_helps():
    assert rules.is_over(board("9 . . 2", sea="whale"))
    assert rules.is_over(board("9 . . 8", sea="none"))


def test_shark_keeps_the_game_going():
    assert not rules.is_over(board("9 2", sea="shark"))


def test_whale_after_the_ability_reaches_nothing_new():
    p = board("9 8 . 1\n. 0 . 3", sea="whale")
    with_after = {q.key() for _, q in rules.turns(p, CARDS, whale_after=True)}
    plain_then_whale = set()
    for _, q in rules.successors(p, CARDS).values():
        plain_then_whale.add(q.key())
        for w in rules.whale_moves(q):
            s = q.at(w.frm)
            plain_then_whale.add(q.replace(stacks=tuple(x for x in q.stacks if x.cell != w.frm) + (type(s)(w.to, s.card, s.height),), whale=False).key())
    assert with_after == plain_then_whale


# -- perft against the ruleset's published figures ---------------------------------------

def test_perft_one_turn_matches_the_published_figures_for_seeded_deal_7():
    p = Deal.random("standard", 7).position(2, shark=False, whale=False)
    assert len(rules.successors(p, CARDS)) == 561
    assert len(rules.successors(p.replace(shark=True), CARDS)) == 1241
