"""The numba engine agrees with the reference engine on many random positions."""

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from fci_solver import rules
from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.engine import Engine
from fci_solver.bitboard.search import BitboardSolver
from fci_solver.cards import EFFECTS
from fci_solver.position import Board, Position, Stack
from fci_solver.search import ReferenceSolver, lower_bound
from fci_solver.notation import replay

from helpers import CARDS, board


@st.composite
def positions(draw, max_cards=6, max_side=3):
    h = draw(st.integers(1, max_side))
    w = draw(st.integers(2 if h == 1 else 1, max_side + 1))
    margin = draw(st.integers(0, 2))
    board = Board(h, w, margin)
    cells = list(board.cells)
    n = draw(st.integers(2, min(max_cards, len(cells))))
    chosen = draw(st.lists(st.sampled_from(cells), min_size=n, max_size=n, unique=True))
    cards = draw(st.lists(st.integers(0, 15), min_size=n, max_size=n, unique=True))
    stacked = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    stacks = tuple(Stack(c, v, 2 if s else 1) for c, v, s in zip(chosen, cards, stacked))
    pending = draw(st.sampled_from((None,) + EFFECTS))
    shark = draw(st.booleans())
    whale = draw(st.booleans())
    return Position(board, stacks, shark, whale, pending)


def reference_next(pos, cards=CARDS):
    return {key_of(q) for _, q in rules.successors(pos, cards).values()}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_same_next_states(pos):
    assert Engine(pos.board, CARDS).next_states(key_of(pos)) == reference_next(pos)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_same_next_states_plain_rules(pos):
    plain = CARDS.plain()
    assert Engine(pos.board, plain).next_states(key_of(pos)) == reference_next(pos, plain)


def test_next_states_are_sorted_and_those_that_overflow_the_child_buffer_get_a_larger_one(monkeypatch):
    # with the Whale a state one turn into a standard deal lists up to 5.1 million turns, more
    # than the search's buffer; here the start's turns (no sea animals: 561) meet one of 100
    from fci_solver.position import Deal

    pos = Deal.random("standard", 7).position(2, False, False)
    eng = Engine(pos.board, CARDS)
    want = sorted(eng.turn_counts(key_of(pos)))
    small = tuple(np.zeros(100, t) for t in (np.uint64, np.uint64, np.int64, np.int64, np.int64))
    monkeypatch.setattr(Engine, "buffers", lambda self, cap=0: small)
    assert eng.sorted_next_states(key_of(pos)) == want and len(want) == 561


@settings(max_examples=400, deadline=None)
@given(positions())
def test_game_end_told_from_the_key_matches_the_rules(pos):
    # the search recognises a game end from the key before generating anything; with the Whale
    # spent that must be exactly "the reference engine has no turn here"
    pos = pos.replace(whale=False)
    assert _over_from_key(pos) == rules.is_over(pos, CARDS)


def _over_from_key(pos):
    import numpy as np
    from fci_solver.bitboard import kernels as K

    eng = Engine(pos.board, CARDS)
    k0, k1, meta = key_of(pos)
    return K.no_turn(np.uint64(k0), np.uint64(k1), np.int64(meta), eng.reach, np.zeros(16, np.int64))


def test_game_end_from_the_key_under_lynx_needs_a_stack_to_jump():
    # 12 is two cells from 10: with pending lynx it may only jump onto 10 over a stack
    from helpers import board

    assert _over_from_key(board("12 . 10", pending="lynx"))
    assert not _over_from_key(board("12 5 10", pending="lynx"))


def test_game_end_from_the_key_with_the_shark_any_lower_neighbour():
    # 9 cannot eat 2 normally (7 apart), but the Shark lets it
    from helpers import board

    assert _over_from_key(board("9 2"))
    assert not _over_from_key(board("9 2", sea="shark"))


def test_game_end_from_the_key_under_lion_only_one_below():
    # the Lion's effect: a predator eats only the card one below it
    from helpers import board

    assert _over_from_key(board("9 7", pending="lion"))
    assert not _over_from_key(board("9 8", pending="lion"))
    assert not _over_from_key(board("9 7"))


def test_game_end_from_the_key_under_bear_the_polar_bear_may_not_eat():
    from helpers import board

    assert _over_from_key(board("15 13", pending="bear"))
    assert not _over_from_key(board("14 13", pending="bear"))
    assert not _over_from_key(board("15 13"))


def test_game_end_from_the_key_under_fox_and_tiger_the_diagonal():
    # 9 and 7 touch only at a corner: out of reach, but for the Fox's and the Tiger's effects
    from helpers import board

    assert _over_from_key(board("9 .\n. 7"))
    assert not _over_from_key(board("9 .\n. 7", pending="fox"))
    assert not _over_from_key(board("9 .\n. 7", pending="tiger"))
    assert _over_from_key(board("9 7", pending="fox"))  # the Fox's prey is on a diagonal only


def test_game_end_from_the_key_with_the_shark_also_reads_cards_far_below():
    # 12 and 0 are twelve apart: only the Shark eats so, and it reads every lower top
    from helpers import board

    assert _over_from_key(board("12 0 . 5"))
    assert not _over_from_key(board("12 0 . 5", sea="shark"))


@settings(max_examples=300, deadline=None)
@given(positions())
def test_same_lower_bound(pos):
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == lower_bound(pos, CARDS)


@settings(max_examples=100, deadline=None)
@given(positions(), st.integers(0, 2))
def test_a_remembered_bound_is_the_bound_of_the_same_key(pos, size):
    # the search remembers full bounds in a small cache (the last key of each slot): whatever
    # keys share a slot, and however often one comes back, it gives each key its own bound
    import numpy as np

    from fci_solver.bitboard import kernels as K

    eng = Engine(pos.board, CARDS)
    bc = np.zeros(3 * (1 << size), np.int64)  # 1, 2 or 4 slots: keys collide
    wk = np.empty(K.WORK, np.int64)
    keys = [key_of(pos)] + eng.children(key_of(pos))[:7]  # children: the Whale's half-steps too
    for k in keys + keys[::-1] + keys:
        args = (np.uint64(k[0]), np.uint64(k[1]), np.int64(k[2]), eng.cmask, eng.cellrc, wk)
        assert K.cached_bound(*args, bc) == K.lower_bound(*args)
        assert K.cached_bound(*args, bc) == K.lower_bound(*args)  # now from the cache


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=5, max_side=2), st.booleans())
def test_same_minimum_result_and_lines_replay(pos, near_first):
    ref = ReferenceSolver(CARDS).solve(pos)
    solver = BitboardSolver(CARDS, memory=1)
    solver.near_first = near_first  # the move ordering grading uses must not change any answer
    fast = solver.solve(pos)
    assert ref.exact and fast.exact
    assert fast.min_remaining == ref.min_remaining
    for result in (ref, fast):
        after = replay(pos, result.line, CARDS)
        final = after[-1] if after else pos
        assert len(final) == result.min_remaining
        assert rules.is_over(final, CARDS)


def test_lower_bound_counts_stacks_no_card_can_eat():
    # 15 and 9 have no eater (nothing in 10..12 or above 15); 8 can be eaten by 9
    from helpers import board
    p = board("15:2 . 9:2 8")
    assert lower_bound(p, CARDS) == 2
    # with the Shark one of them may still go (9 is below 15)
    assert lower_bound(p.replace(shark=True), CARDS) == 1


def test_lower_bound_counts_the_discards_that_can_still_happen():
    # 15 and 10 are stuck and unstacked; the Lizard (4:2) can eat only the 3, so it discards at most one
    from helpers import board
    p = board("4:2 3 . 10 . 15")
    assert lower_bound(p, CARDS) == 2
    assert ReferenceSolver(CARDS).solve(p).min_remaining == 2


def _bounds(pos):
    """(quick, with the discard search, full): the three strengths of the kernels' bound."""
    import numpy as np
    from fci_solver.bitboard import kernels as K

    eng = Engine(pos.board, CARDS)
    k = (np.uint64(key_of(pos)[0]), np.uint64(key_of(pos)[1]), np.int64(key_of(pos)[2]))
    wk = np.zeros(K.WORK, np.int64)
    return tuple(int(f(*k, eng.cmask, eng.cellrc, wk)) for f in (K.quick_bound, K.discard_bound, K.lower_bound))


def test_the_discard_search_is_what_the_quick_bound_leaves_out():
    # The Lizard (4:2) stays (nothing 5-7 can eat it), and discards at most once (one eat: the
    # 3).  The quick bound lets that discard take the one stuck unstacked top, the 15: 1 stack.
    # The discard search sees that the 15 is the 12's only eater: with it gone the 12 stays.
    from helpers import board
    p = board("4:2 3 . 12 . 15")
    assert _bounds(p) == (1, 2, 2)
    assert brute_minimum(p) == 2


@settings(max_examples=300, deadline=None)
@given(positions())
def test_the_search_applies_ever_stronger_bounds_quick_then_discards_then_full(pos):
    # the search cuts a child by the quick bound, then by the discard search before entering it,
    # then by the full bound: each may only be as strong as the next (the full one is sound)
    quick, discards, full = _bounds(pos)
    assert quick <= discards <= full


def _children_with_window(pos, beta, once=1):
    """(every child, the children generated under the window ``beta``, their (least bound, number)
    left out, the bound the generator gives each generated child, -1 where it gives none);
    ``once``: a double move in one order where both reach one position."""
    import numpy as np
    from fci_solver.bitboard import kernels as K

    eng = Engine(pos.board, CARDS)
    k0, k1, meta = (np.uint64(key_of(pos)[0]), np.uint64(key_of(pos)[1]), np.int64(key_of(pos)[2]))
    args = (eng.ab, eng.prey, eng.mid, eng.bydist, eng.dstart, eng.maxd)
    bufs = [(np.zeros(4096, np.uint64), np.zeros(4096, np.uint64), np.zeros(4096, np.int64)) for _ in range(2)]
    scratch = (np.zeros(16, np.int64), np.zeros(16, np.int64), np.zeros(eng.bydist.shape[0], np.int64))
    n = K.gen_children_into(k0, k1, meta, *args, *bufs[0], 0, 4096, *scratch, np.zeros(0, np.int64))
    skip = np.zeros(3, np.int64)
    lbs = np.zeros(4096, np.int64)
    m = K.gen_children_below(k0, k1, meta, *args, *bufs[1], 0, 4096, *scratch, np.zeros(0, np.int64), np.int64(beta),
                             eng.cmask, eng.cellrc, np.zeros(K.WORK, np.int64), skip, lbs, once)
    every = list(zip(*(b[:n].tolist() for b in bufs[0])))
    kept = list(zip(*(b[:m].tolist() for b in bufs[1])))
    return every, kept, (int(skip[0]), int(skip[1])), lbs[:m].tolist()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(), st.integers(1, 6), st.sampled_from([0, 1]))
@example(Position(Board(1, 2, 2), (Stack((-2, -2), 8, 1), Stack((-2, 0), 7, 2), Stack((-2, 1), 4, 1),
                                   Stack((-2, 2), 5, 2), Stack((-2, 3), 6, 1))), 1, 1)  # a copy that is no double move
@example(board("2 1 .\n. 7 .\n. . 9", sea="none", margin=1), 1, 1)  # a double move, all cut: counted once
def test_children_the_window_cuts_all_at_once_are_not_generated(pos, beta, once):
    # A move or a swap changes no top, so every outcome of such an ability shares the child's
    # bound: when it reaches the window none is generated.  What is left is the rest in order, and
    # what went is counted, each child with a bound at the window, the least of them kept.
    # "The rest" is what the same generation lists with a window above every bound (17): with
    # ``once``, the turn list less a double move's other orders (next test).
    import numpy as np
    from fci_solver.bitboard import kernels as K

    every, kept, (least, number), given = _children_with_window(pos, beta, once)
    listed = _children_with_window(pos, 17, once)[1]
    eng = Engine(pos.board, CARDS)
    wk = np.zeros(K.WORK, np.int64)

    def bound(child):  # as the search computes it for that window: the discard search only below it
        return int(K.discard_bound(np.uint64(child[0]), np.uint64(child[1]), np.int64(child[2]),
                                   eng.cmask, eng.cellrc, wk, np.int64(beta)))

    def left_out(whole, part):  # ``part`` is ``whole`` less some children, in order: those
        rest = iter(part)  # (asserted)
        out = []
        nxt = next(rest, None)
        for child in whole:
            if child == nxt:
                nxt = next(rest, None)
            else:
                out.append(child)
        assert nxt is None
        return out

    dropped = left_out(every, listed)  # a double move's other orders: copies, nothing new
    assert set(listed) == set(every) and (once == 1 or not dropped)
    cut = [bound(c) for c in left_out(listed, kept)]
    assert all(b >= beta for b in cut)
    assert number == len(cut)
    assert least == min(cut, default=99)
    # the bound given with a generated child (a sibling's, shared) is its own
    assert all(b == bound(child) for child, b in zip(kept, given) if b >= 0)


def test_a_search_lists_a_double_move_in_one_order():
    # The Spider (2) eats the Ant (1), then moves two stacks one cell each.  Moving 7 and then 9
    # reaches the same position as 9 and then 7 wherever neither lands where the other stood: the
    # turn lists (and the graph's turn counts) keep both orders, a search's children only one.
    pos = board("""
        2 1 .
        . 7 .
        . . 9
    """, sea="none", margin=1)
    every, kept, _, _ = _children_with_window(pos, 17)  # a window above every bound: nothing cut
    assert len(kept) == len(set(kept)) and set(kept) == set(every)
    assert len(every) - len(kept) > 20  # the other orders
    assert len({k for k in every if every.count(k) > 1}) == len(every) - len(kept)
    # the effort's searches (a calibrated count of states) keep both orders
    assert _children_with_window(pos, 17, once=0)[1] == every


def brute_minimum(pos):
    """The minimum result by enumerating every line (no bound, no pruning)."""
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def minimum(p):
        return min((minimum(q) for _, q in rules.successors(p, CARDS).values()), default=len(p))

    return minimum(pos)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=5, max_side=2))
def test_a_floor_of_the_parents_minimum_leaves_every_next_positions_minimum_exact(pos):
    # No position reached from ``pos`` ends below its minimum m, so a search from a next position
    # may stop at the first line reaching m: each next position's minimum is still exact, with
    # the widest window (the graph of perfect play asks only "m or more?").
    m = brute_minimum(pos)
    eng = Engine(pos.board, CARDS)
    solver = BitboardSolver(CARDS, memory=16)
    for _, q in rules.successors(pos, CARDS).values():
        assert solver.value(eng, key_of(q), len(q) + 1, floor=m) == brute_minimum(q)
        assert (solver.value(eng, key_of(q), m + 1, floor=m) <= m) == (brute_minimum(q) == m)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=6), st.integers(1, 4))
def test_many_positions_searched_in_one_call_as_one_at_a_time(pos, beta):
    # The graph of perfect play searches a batch of next positions one after another in one
    # kernel call, a few states per call here, so most searches are cut and resumed: each answer
    # is the one a search of its own gives, and an answer already known is kept as it is.
    import numpy as np

    eng = Engine(pos.board, CARDS)
    keys = [key_of(q) for _, q in rules.successors(pos, CARDS).values()] or [key_of(pos)]
    rows = np.array(keys, np.uint64).reshape(-1, 3)
    known = np.full(len(keys), -1, np.int64)
    known[::3] = 77  # not a value any search gives: it must come back untouched
    got = BitboardSolver(CARDS, memory=16, chunk=7).values(eng, rows, beta, known=known)
    alone = [BitboardSolver(CARDS, memory=16).value(eng, k, beta) for k in keys]
    # below the window a value is exact; at or above it, a bound that depends on the table
    assert [v if i % 3 == 0 else min(v, beta) for i, v in enumerate(got.tolist())] == \
        [77 if i % 3 == 0 else min(v, beta) for i, v in enumerate(alone)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(positions(max_cards=5), min_size=1, max_size=4), st.integers(1, 40))
def test_turns_of_many_positions_listed_at_once_as_one_at_a_time(many, limit):
    # the graph of perfect play lists the turns of a run of positions in one call: each position's
    # next positions and how many ways to play reach each are the engine's turn counts, after-Whale
    # half-steps replaced by the turns after them, whatever the runs (a tiny buffer and limit here)
    import numpy as np

    from fci_solver.bitboard.turns import TurnLister

    pos0 = many[0]
    many = [p for p in many if p.board == pos0.board]  # one engine: one board
    eng = Engine(pos0.board, CARDS)
    rows = np.array([key_of(p) for p in many], np.uint64).reshape(-1, 3)
    got, done = [], 0
    for run in TurnLister(eng, cap=8).runs(rows, limit):
        assert run.positions.tolist() == rows[done:done + len(run.positions)].tolist()
        for i in range(len(run.positions)):
            pairs = run.parent == i
            got.append({tuple(c): t for c, t in zip(run.child[pairs].tolist(), run.turns[pairs].tolist())})
        firsts = list(dict.fromkeys(map(tuple, run.child.tolist())))
        assert list(map(tuple, run.children.tolist())) == firsts
        done += len(run.positions)
    assert got == [dict(eng.turn_counts(key_of(p))) for p in many]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(0, 2), st.integers(0, 1)),
                min_size=60, max_size=150))
def test_turn_rows_grouped_as_numpy_sorts_them(rows):
    # the listing's rows (position, next position) are sorted by position, then next position,
    # ties kept in listing order: small runs by insertion, long ones (over 32 rows) by merging
    import numpy as np

    from fci_solver.bitboard import kernels as K

    rows = sorted(rows, key=lambda r: r[0])  # the listing gives them position by position
    par, k0, k1, meta = (np.array(c, t) for c, t in zip(zip(*rows), (np.int64, np.uint64, np.uint64, np.uint64)))
    k0 <<= np.uint64(60)  # keys that differ in their top bits sort as unsigned words
    order = np.empty(len(rows), np.int64)
    K.group_rows(k0, k1, meta, par, len(rows), order, np.empty(len(rows), np.int64))
    assert order.tolist() == np.lexsort((meta, k1, k0, par)).tolist()


def test_first_seen_keeps_each_key_once_in_first_order():
    import numpy as np

    from fci_solver.bitboard import kernels as K

    k0 = np.array([5, 3, 5, 3, 7, 5], np.uint64)
    k1 = np.array([1, 1, 1, 2, 0, 1], np.uint64)
    meta = np.array([0, 0, 0, 0, 0, 4], np.uint64)
    assert K.first_seen(k0, k1, meta, 6).tolist() == [0, 1, 3, 4, 5]


def test_a_key_map_keeps_every_value_as_it_grows():
    import numpy as np

    from fci_solver.bitboard.keymap import KeyMap

    rng = np.random.default_rng(5)
    rows = rng.integers(0, 2**63, (5000, 3), dtype=np.uint64)
    rows[:, 2] %= 64  # meta is six bits
    rows = np.unique(rows, axis=0)
    m = KeyMap(bits=4)
    m.put(rows[:3000], np.arange(3000) % 2)
    m.put(rows[1000:], np.full(len(rows) - 1000, 7))  # overwrites 2000 values, adds the rest
    assert len(m) == len(rows)
    want = np.where(np.arange(len(rows)) < 1000, np.arange(len(rows)) % 2, 7)
    assert m.get(rows).tolist() == want.tolist()
    held = set(map(tuple, rows.tolist()))
    absent = rows.copy()
    absent[:, 0] ^= np.uint64(1)
    absent = absent[[tuple(r) not in held for r in absent.tolist()]]
    assert len(absent) > 4900 and (m.get(absent) == -1).all()


@st.composite
def still_positions(draw):
    """Positions where islands and discards matter: no Whale, cards mostly without moves."""
    pos = draw(positions(max_cards=5, max_side=3))
    keep = (0, 4, 8, 9, 10, 12, 13, 14, 15) if draw(st.booleans()) else tuple(range(16))
    values = draw(st.lists(st.sampled_from(keep), min_size=len(pos.stacks), max_size=len(pos.stacks), unique=True))
    stacks = tuple(s.__class__(s.cell, v, s.height) for s, v in zip(pos.stacks, values))
    return pos.replace(stacks=stacks, whale=False)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(positions(max_cards=5, max_side=2), still_positions()))
def test_lower_bound_never_exceeds_the_minimum(pos):
    assert lower_bound(pos, CARDS) <= brute_minimum(pos)


def test_stacks_too_far_apart_to_ever_meet_stay_apart():
    # 15 could eat 12, but they are 3 cells apart and no card on the map can move a stack
    # (no Whale, and no mover on top): each island keeps its own stack
    from helpers import board
    p = board("12 . . 15")
    assert lower_bound(p, CARDS) == 2
    assert brute_minimum(p) == 2
    # a Wolf that can still eat (10) may then walk anywhere, and the 12 may eat it where it stops
    q = board("12 . . 15\n. 11 10 .")
    assert both_bounds(q) == 1


def both_bounds(pos):
    """The lower bound, which both engines must agree on."""
    b = lower_bound(pos, CARDS)
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == b
    return b


def test_a_mover_that_can_never_reach_its_prey_moves_nothing():
    # The Rat (5) is the only card that could move a stack, and its only prey, the Spider (2:2), is
    # two cells away with no Fox, Lynx or Tiger to let an eat reach that far: they never meet, so
    # the Rat never eats, never moves anything, and the 2 and the 8 both stay
    from helpers import board
    p = board("2:2 . 5 8")
    assert both_bounds(p) == brute_minimum(p) == 2
    # next to it, the Rat eats the Spider, and its ability may move a stack: no geometry (it
    # moves the 8 next to the Rat, which the 8 then eats)
    q = board("2:2 5 . 8")
    assert both_bounds(q) == brute_minimum(q) == 1


def test_a_mover_of_a_bounded_step_shifts_stacks_no_farther_than_its_eats_allow():
    # The Mouse (3) may eat the 0, once, and then move one stack 1-2 cells: the 15 and the 12,
    # five cells apart, still never meet, so the 12 stays as well as the 15 and the Mouse
    from helpers import board
    p = board("0 3 12 . . . . 15")
    assert both_bounds(p) == brute_minimum(p) == 3
    # three cells apart, the Mouse's one move brings them side by side
    q = board("0 3 12 . . 15")
    assert both_bounds(q) == brute_minimum(q) == 2


def test_a_mover_shifts_nothing_before_its_own_eat():
    # The Mouse (3) may eat the 0 and then move a stack 2 cells, but the Lizard (4) could meet it
    # only where it stands now (3 cells: the Mouse would have to have moved it first), or on the
    # 0's cell (4 cells, beyond the one move): the 4 stays
    from helpers import board
    p = board("4 . . 3 0")
    assert both_bounds(p) == brute_minimum(p) == 2
    assert both_bounds(board("4 . . 3 0", margin=4)) == 2  # 117 cells: the fast bound over card masks
    # under the caiman the Mouse eats without leaving its cell, then moves the 4 next to itself
    q = board("4 . . 3 0", pending="caiman")
    assert both_bounds(q) == brute_minimum(q) == 1
    # and so when a Gator (13) may eat first and set the caiman: 13 eats 12, then the Mouse eats
    # the 0 in place and moves the 4 beside it, 2 stacks (3 if the Gator were left out)
    r = board("4 . . 3 0 . . 13 12")
    assert both_bounds(r) == brute_minimum(r) == 2


def test_an_eat_reaches_two_cells_only_right_after_a_fox_lynx_or_tiger_eat():
    # The 15 could eat the 13 by value, two cells away, but only the eat right after a Fox, Lynx
    # or Tiger eat reaches that far, and none is on the map: they never meet
    from helpers import board
    p = board("13 . 15")
    assert both_bounds(p) == brute_minimum(p) == 2
    # with the tiger pending now, this turn's eat reaches distance 2
    q = board("13 . 15", pending="tiger")
    assert both_bounds(q) == brute_minimum(q) == 1


def test_the_effort_search_keeps_the_bound_its_tiers_were_calibrated_with():
    # The difficulty tiers count search states, so the effort measure searches with the bound it
    # was calibrated with, where every eat may reach two cells: the 15 may eat the 13 there
    from helpers import board
    p = board("13 . 15")
    eng = Engine(p.board, CARDS)
    assert eng.lower_bound(key_of(p)) == 2 and eng.calibrated().lower_bound(key_of(p)) == 1


def test_a_fox_that_can_still_eat_lets_one_later_eat_reach_two_cells():
    # The Fox (9) eats the 8 beside it; the eat after that is diagonal, so the Lynx (10) eats the
    # Fox from two cells away: one stack.  The bound counts one far eat per eat a Fox, Lynx or
    # Tiger may still make
    from helpers import board
    p = board("9 8 .\n. . 10")
    assert both_bounds(p) == brute_minimum(p) == 1


def test_a_wolf_moves_only_itself_so_far_stacks_stay_apart():
    # The Wolf (11) may eat the 10 and then walk anywhere, but it moves only its own stack: the
    # Rat (5) still never reaches the 2:2, so 2:2, 5 and the Wolf all stay
    from helpers import board
    p = board("2:2 . . 5 . 11 10")
    assert both_bounds(p) == brute_minimum(p) == 3


def test_a_bat_that_eats_may_fly_to_its_eater():
    # The Bat (6) eats the 5 and may then fly next to the 9, which eats it: one stack.  A stack
    # whose ability moves it may end up anywhere, so the bound may not call the 6 out of reach
    from helpers import board
    p = board("9 . . . 5 6")
    assert both_bounds(p) == brute_minimum(p) == 1


@st.composite
def spread_positions(draw):
    """Few stacks on a long board, movers among them: stacks that may or may not ever meet."""
    h = draw(st.integers(1, 2))
    w = draw(st.integers(4, 6))
    board = Board(h, w, draw(st.integers(0, 1)))
    cells = list(board.cells)
    n = draw(st.integers(2, 4))
    pool = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14) if draw(st.booleans()) else tuple(range(16))
    return _drawn_position(draw, board, cells, n, pool)


def _drawn_position(draw, board, cells, n, pool):
    """``n`` stacks on different ``cells``, their cards drawn from ``pool``, each stacked or not;
    the Shark drawn, no Whale, any effect pending."""
    chosen = draw(st.lists(st.sampled_from(cells), min_size=n, max_size=n, unique=True))
    values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n, unique=True))
    stacked = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    stacks = tuple(Stack(c, v, 2 if s else 1) for c, v, s in zip(chosen, values, stacked))
    return Position(board, stacks, draw(st.booleans()), False, draw(st.sampled_from((None,) + EFFECTS)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spread_positions())
def test_the_bound_on_long_boards_with_movers_never_exceeds_the_minimum(pos):
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == lower_bound(pos, CARDS) <= brute_minimum(pos)


def test_both_engines_stop_working_out_the_geometry_at_the_same_slack():
    from fci_solver import bound
    from fci_solver.bitboard import kernels
    assert kernels.MAX_SLACK == bound.MAX_SLACK


@st.composite
def step_positions(draw):
    """A few stacks along a row of up to nine cells, the Ant, Spider, Mouse or Rat among them with
    prey: movers of a bounded step, whose shifts the geometry allows for."""
    board = Board(1, draw(st.integers(6, 9)), 0)
    cells = list(board.cells)
    n = draw(st.integers(3, 4))
    return _drawn_position(draw, board, cells, n, (0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(step_positions())
def test_the_bound_with_movers_of_a_bounded_step_never_exceeds_the_minimum(pos):
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == lower_bound(pos, CARDS) <= brute_minimum(pos)


@st.composite
def wide_positions(draw):
    """Up to eight stacks near one corner of a board of more than 64 cells (as the wide layouts
    make with their margin), where the fast bound's geometry works over card masks, not cell
    masks."""
    board = Board(8, draw(st.integers(9, 10)), 0)
    cells = [(r, c) for r in range(5) for c in range(5)]
    n = draw(st.integers(3, 8))
    return _drawn_position(draw, board, cells, n, tuple(range(16)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wide_positions())
def test_both_engines_give_the_same_bound_on_boards_of_more_than_64_cells(pos):
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == lower_bound(pos, CARDS)


@st.composite
def far_positions(draw):
    """Up to six stacks on small boards, the Fox, Lynx and Tiger among the cards (of the cards that
    move stacks, only the Bat, Snake and Wolf), any effect pending: chains of far eats."""
    board = Board(draw(st.integers(1, 3)), draw(st.integers(3, 5)), 0)
    cells = list(board.cells)
    n = draw(st.integers(3, min(6, len(cells))))
    return _drawn_position(draw, board, cells, n, (0, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(far_positions())
def test_the_bound_with_far_eats_never_exceeds_the_minimum(pos):
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == lower_bound(pos, CARDS) <= brute_minimum(pos)


def test_a_discarded_top_never_ate_so_its_prey_stays():
    # 4:2 is stuck; the Lizard may discard the unstacked 15, but then nothing can eat the 14:
    # discarding 15 frees nothing, so two stacks stay
    from helpers import board
    p = board("4:2 3 . 14 15")
    assert lower_bound(p, CARDS) == 2
    assert brute_minimum(p) == 2


def test_a_discarded_lizard_or_raccoon_never_discarded_anything():
    # 3, 8 and 15 are stuck (nothing 4-6, 9-11 or above 15).  The Raccoon (8) eats at most twice
    # (the 7, and once with the Shark), so two discards may follow.  Discarding the 8 and then the
    # 7 would leave only 3 and 15 stuck, one of them for the Shark: 1 stack.  But a discarded 8
    # never ate, so it set off no discard: the two discards were its own.  Any other discard leaves
    # a new top stuck (the 2 behind the 3, the 14 behind the 15): 3 stuck, 2 with the Shark.
    from helpers import board
    p = board("8 3 7 13 15\n0 1 14 12 2", sea="shark")
    assert both_bounds(p) == ReferenceSolver(CARDS).solve(p).min_remaining == 2
    # the effort's bound (the one the tiers were calibrated with) still lets the 8 go
    assert Engine(p.board, CARDS).calibrated().lower_bound(key_of(p)) == 1


def test_a_raccoon_sets_off_no_more_discards_than_eats_by_exactly_1_allow():
    # 8 and 15 are stuck.  The Raccoon (8) may eat twice (the 6, the 7), and each eat may set off
    # a discard on the next turn; two discards (the 15, then the 14 it leaves stuck) would leave
    # the 8 alone.  But a raccoon trigger needs an eat by exactly 1 on the turn after a Raccoon
    # eat, and no card is eaten twice: once the 15 is gone, the eats by 1 left (7x6, 8x7) take the
    # same 6 and 7 the Raccoon eats, so its two eats and their two triggers would need four prey
    # of two (three, counting 8x7 as both).  Only one discard can follow: 2 stacks at least.
    from helpers import board
    p = board("6 7 8 .\n. . 14 15")
    assert both_bounds(p) == ReferenceSolver(CARDS).solve(p).min_remaining == 2
    # the effort's bound (the one the tiers were calibrated with) counts two discards
    assert Engine(p.board, CARDS).calibrated().lower_bound(key_of(p)) == 1


@st.composite
def raccoon_positions(draw):
    """Four to six stacks on boards of two rows, the Raccoon among them with cards it may eat or
    that eat by exactly 1, and stuck high cards to discard; the raccoon often pending."""
    board = Board(2, draw(st.integers(3, 4)), 0)
    cells = list(board.cells)
    pos = _drawn_position(draw, board, cells, draw(st.integers(3, 5)), (2, 3, 4, 5, 6, 7, 12, 13, 14, 15))
    free = [c for c in cells if pos.at(c) is None]
    raccoon = Stack(draw(st.sampled_from(free)), 8, draw(st.sampled_from((1, 2))))
    pending = draw(st.sampled_from(("raccoon", pos.pending)))
    return pos.replace(stacks=pos.stacks + (raccoon,), pending=pending)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raccoon_positions())
def test_the_bound_with_raccoon_triggers_never_exceeds_the_minimum(pos):
    assert Engine(pos.board, CARDS).lower_bound(key_of(pos)) == lower_bound(pos, CARDS) <= brute_minimum(pos)


def test_the_near_first_spread_sums_each_top_s_distance_to_its_nearest_eater():
    # the ordering's tie-break: for each top with an eater on top (a card 1-3 above it), the
    # Manhattan distance to the nearest such eater, less one; checked on positions of random play
    import random

    import numpy as np
    from fci_solver.bitboard import kernels as K
    from fci_solver.position import Deal

    def spread(p):
        at = {s.card: s.cell for s in p.stacks}
        total = 0
        for t, (r, c) in at.items():
            d = [abs(r - at[e][0]) + abs(c - at[e][1]) for e in (t + 1, t + 2, t + 3) if e in at]
            total += min(d) - 1 if d else 0
        return total

    rng = random.Random(5)
    checked = 0
    for seed in range(1, 31):
        p = Deal.random("standard", seed).position(2, False, False)
        eng = Engine(p.board, CARDS)
        while True:
            k = key_of(p)
            assert K._spread(np.uint64(k[0]), np.uint64(k[1]), eng.cellrc, eng._wk) == spread(p)
            checked += 1
            nxt = list(rules.successors(p, CARDS).values())
            if not nxt:
                break
            p = rng.choice(nxt)[1]
    assert checked > 180


@pytest.mark.parametrize("n, top", [(1, 4), (7, 4), (24, 4), (25, 4), (90, 4), (700, 4), (3000, 4), (3000, 600_000)])
def test_children_sort_is_stable_in_both_of_its_ways(n, top):
    # the search orders children by bound (or, near-first, by a key up to about 2^20) with
    # generation order among equals; up to 24 children are sorted by insertion, more by a merge
    # sort of each key and its place in one word, using the buffer's free space
    import numpy as np
    from fci_solver.bitboard import kernels as K

    rng = np.random.default_rng(n)
    for start in (0, 3):
        keys = rng.integers(0, top, n)
        end = start + n
        cap = end + n
        key = np.zeros(cap, np.int64)
        key[start:end] = keys
        ck0 = np.zeros(cap, np.uint64)
        ck0[start:end] = np.arange(n)  # generation order
        ck1, cmeta, clb = ck0.copy(), ck0.astype(np.int64), key.copy()
        K._sort_children(ck0, ck1, cmeta, clb, key, start, end, end)
        expected = sorted(range(n), key=lambda i: (keys[i], i))
        assert ck0[start:end].tolist() == expected
        assert ck1[start:end].tolist() == expected and cmeta[start:end].tolist() == expected
        assert clb[start:end].tolist() == sorted(keys.tolist()) == key[start:end].tolist()


@pytest.mark.parametrize("n", [1, 7, 30, 300])
def test_only_the_children_the_bound_leaves_are_sorted_the_cut_ones_go_last(n):
    # a child whose bound reaches beta is never searched: the search moves those after the
    # others, in generation order, and sorts only the others (stably: the same order as a sort
    # of all of them would give them)
    import numpy as np
    from fci_solver.bitboard import kernels as K

    rng = np.random.default_rng(n)
    beta = 2
    start, end = 3, 3 + n
    cap = end + n
    bounds = rng.integers(0, 4, n)
    key = np.zeros(cap, np.int64)
    key[start:end] = bounds * 100 + rng.integers(0, 5, n)
    clb = np.zeros(cap, np.int64)
    clb[start:end] = bounds
    ck0 = np.zeros(cap, np.uint64)
    ck0[start:end] = np.arange(n)  # generation order
    ck1, cmeta = ck0.copy(), ck0.astype(np.int64)
    keys = key[start:end].copy()
    live = K._live_first(ck0, ck1, cmeta, clb, key, start, end, beta)
    K._sort_children(ck0, ck1, cmeta, clb, key, start, live, end)
    searched = sorted((i for i in range(n) if bounds[i] < beta), key=lambda i: (keys[i], i))
    cut = [i for i in range(n) if bounds[i] >= beta]
    assert live - start == len(searched)
    assert ck0[start:end].tolist() == searched + cut
    assert ck1[start:end].tolist() == searched + cut and cmeta[start:end].tolist() == searched + cut
    assert clb[start:end].tolist() == [bounds[i] for i in searched + cut]


def solved(pos, jobs=1, parallel="lazy", slice_=None):
    from fci_solver.bitboard.search import BitboardSolver

    s = BitboardSolver(CARDS, jobs=jobs)
    s.parallel = parallel
    # the threads from the first state: a one-thread head start would end these small solves alone
    s.head_start = (1, 1e9)
    if parallel == "auto":
        # Lazy SMP's time is up after its first states: the root's turns are split at once
        s.lazy_seconds, s.chunk = 0, 50
    if slice_ is not None:
        s.slice = slice_
    return s.solve(pos)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=7), st.sampled_from(["lazy", "split", "auto"]))
def test_a_parallel_solve_gives_the_same_minimum_and_a_line_that_replays(pos, parallel):
    one = solved(pos, slice_=0)  # one thread, one move order
    two = solved(pos, jobs=2, parallel=parallel)
    assert (two.min_remaining, two.exact) == (one.min_remaining, True)
    end = replay_end(pos, two.line)
    assert len(end) == two.min_remaining and rules.is_over(end, CARDS)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=7), st.sampled_from([1, 7, 2000]))
def test_both_move_orders_in_turn_give_the_same_minimum_and_a_line_that_replays(pos, slice_):
    one = solved(pos, slice_=0)
    both = solved(pos, slice_=slice_)
    assert (both.min_remaining, both.exact) == (one.min_remaining, True)
    assert len(replay_end(pos, both.line)) == both.min_remaining
    assert solved(pos, slice_=slice_).line == both.line  # on one thread the line is always the same


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=5, max_side=2), st.sampled_from([1, 4, 10**6]))
def test_a_beam_finds_only_lines_to_the_bound_that_end_the_game_without_the_whale(pos, width):
    from fci_solver.bitboard.probe import Beam
    from fci_solver.bitboard.line import keys_to_line

    eng, root = Engine(pos.board, CARDS), key_of(pos)
    bound = eng.lower_bound(root)
    keys = Beam(eng, root, bound).line(width)
    if width == 10**6 and len(pos) > bound:
        # no width limit: every line that leaves the Whale unused is looked at
        without_whale = ReferenceSolver(CARDS).solve(pos.replace(whale=False)).min_remaining
        assert (keys is not None) == (without_whale == bound)
    if keys is not None:
        line, after = keys_to_line(pos, keys, CARDS)  # each turn checked by the reference rules
        assert len(after[-1]) == bound and rules.is_over(after[-1], CARDS)
        assert all(action.op != "whale" for turn in line for action in turn)


def test_a_beam_finds_the_line_a_depth_first_search_looks_long_for():
    # Seeded deal 520 reaches 1 stack; depth-first, the search refutes its first choices for
    # 187,000-843,000 states before it finds a line (either move order alone).  Keeping the 64
    # best positions of each turn finds one after expanding about 700.
    from fci_solver.bitboard.probe import Beam
    from fci_solver.position import Deal

    pos = Deal.random("standard", 520).position(2, False, False)
    eng, root = Engine(pos.board, CARDS), key_of(pos)
    beam = Beam(eng, root, eng.lower_bound(root))
    assert beam.line(16) is None
    assert beam.line(64) is not None and beam.states < 1_000
    assert BitboardSolver(CARDS).value(eng, root, 2, max_states=20_000, near_first=False) is None  # still searching


@settings(deadline=None)  # the first example loads the kernel (0.45 s when it is the first to)
@given(st.lists(st.integers(0, 3 * 4096), max_size=300))
def test_a_beams_children_are_taken_in_the_order_of_a_stable_sort_by_score(scores):
    import numpy as np
    from fci_solver.bitboard.kernels.beam import score_order

    score = np.array(scores + [7, 7], np.int64)  # the two after the last are not to be sorted
    assert score_order(score, len(scores)).tolist() == np.argsort(score[:len(scores)], kind="stable").tolist()


def test_a_solve_on_two_threads_goes_on_with_the_beam_its_head_start_began(monkeypatch):
    # Deal 520: the head start gives the beam its width 16, which finds nothing; the threads'
    # pass asks the same question, so its beam goes on at width 64 rather than at 16 again.
    from fci_solver.bitboard.probe import Beam
    from fci_solver.bitboard.search import load_search_kernels
    from fci_solver.position import Deal

    load_search_kernels()  # its warm-up runs a beam too
    widths = []
    line = Beam.line
    monkeypatch.setattr(Beam, "line", lambda self, width, *a: widths.append(width) or line(self, width, *a))
    pos = Deal.random("standard", 520).position(2, False, False)
    s = BitboardSolver(CARDS, jobs=2)
    s.head_start, s.chunk, s.slice = (3, 1e9), 2000, 1  # a state of each order, the beam (16), one more
    s.aside_beam = False  # its widths in turn with the head start's search
    r = s.solve(pos)
    assert widths == [16, 64] and r.exact and r.min_remaining == 1


def test_on_two_threads_the_head_start_waits_for_the_beam_on_the_other_core(monkeypatch):
    # Deal 520: the beam runs its widths on a thread of its own, one after another, while the
    # head start searches; the head start's budget is spent at once, but it lasts until the beam
    # is done, and the beam's line at width 64 ends the solve before the threads' passes.
    from fci_solver.bitboard.probe import Beam
    from fci_solver.bitboard.search import load_search_kernels
    from fci_solver.position import Deal

    load_search_kernels()
    widths, threads = [], []
    line = Beam.line
    monkeypatch.setattr(Beam, "line", lambda self, width, *a: widths.append((width, threading.current_thread()))
                        or line(self, width, *a))
    monkeypatch.setattr(BitboardSolver, "_threads", lambda self, *a: threads.append(a))
    pos = Deal.random("standard", 520).position(2, False, False)
    s = BitboardSolver(CARDS, jobs=2)
    s.head_start = (1, 0.0)
    r = s.solve(pos)
    assert [w for w, _ in widths] == [16, 64] and all(t is not threading.main_thread() for _, t in widths)
    assert not threads and r.exact and r.min_remaining == 1 and len(replay_end(pos, r.line)) == 1


def test_on_two_threads_the_beam_takes_its_turns_in_one_of_them(monkeypatch):
    # Deal 520 again: its line comes from the beam, not from either thread's depth-first search
    from fci_solver.bitboard.probe import Beam
    from fci_solver.position import Deal

    found = []
    line = Beam.line
    monkeypatch.setattr(Beam, "line", lambda self, *a: found.append(line(self, *a)) or found[-1])
    pos = Deal.random("standard", 520).position(2, False, False)
    s = BitboardSolver(CARDS, jobs=2)
    s.head_start, s.chunk = (1, 1e9), 2000  # the threads from the first state, the beam's turn often
    s.aside_beam = False  # not on a core of its own during the head start
    r = s.solve(pos)
    assert found and found[-1] is not None
    assert r.exact and r.min_remaining == 1 and len(replay_end(pos, r.line)) == 1


def test_an_error_in_one_thread_of_a_parallel_solve_stops_the_solve(monkeypatch):
    # A child buffer overflow in the second thread is an error, raised by solve(): not a
    # traceback on stderr while the first thread goes on to answer as if nothing happened.
    from fci_solver.errors import FciError
    from fci_solver.position import Deal

    run = BitboardSolver._run

    def failing(self, eng, key, beta, deadline, max_states=None, near_first=None, **kw):
        if near_first:  # the Lazy SMP thread with the other move order
            raise FciError("the child buffer overflowed (a node with too many turns)")
        return run(self, eng, key, beta, deadline, max_states, near_first, **kw)

    monkeypatch.setattr(BitboardSolver, "_run", failing)
    s = BitboardSolver(CARDS, jobs=2)
    s.head_start, s.aside_beam, s.parallel = (1, 0.0), False, "lazy"
    with pytest.raises(FciError, match="overflowed"):
        s.solve(Deal.random("standard", 520).position(2, False, False))


@pytest.mark.parametrize("parallel", ["lazy", "split"])
def test_a_parallel_solve_grows_its_shared_table_as_one_thread_would(monkeypatch, parallel):
    # Threads cannot grow a table they share: once half of it is filled and twice as many states
    # as it has entries are spent, it grows 4x between two passes (a pass running then is stopped
    # and run again).  Here the table starts at 1,024 entries; the deal ends with 5 stacks against
    # a bound of 1, five passes.
    from fci_solver.bitboard import search as bs
    from fci_solver.position import Deal

    monkeypatch.setattr(bs, "INITIAL_ENTRIES", 1 << 8)
    monkeypatch.setattr(bs, "SOLVE_SHARED_MIN", 1 << 10)
    pos = Deal.random("standard", 4).position(0, False, True)
    s = BitboardSolver(CARDS.plain(), jobs=2)
    s.head_start, s.aside_beam, s.parallel = (1, 0.0), False, parallel
    r = s.solve(pos)
    assert s.table.shape[0] >= 1 << 14
    assert r.exact and r.min_remaining == 5 and len(replay_end(pos, r.line, CARDS.plain())) == 5


@pytest.mark.parametrize("seed, parallel", [(3, "lazy"), (5, "split"), (417, "lazy"), (3, "auto")])
def test_a_parallel_solve_of_a_full_deal_agrees(seed, parallel):
    from fci_solver.position import Deal

    pos = Deal.random("standard", seed).position(2, True, False)
    one, two = solved(pos, slice_=0), solved(pos, jobs=2, parallel=parallel)
    assert two.min_remaining == one.min_remaining and two.exact
    assert len(replay_end(pos, two.line)) == two.min_remaining


def head_start_alone(slice_: int = 2000, jobs: int = 2) -> BitboardSolver:
    """A solver whose head start never ends: the whole solve is its passes with both move orders."""
    s = BitboardSolver(CARDS, jobs=jobs)
    s.head_start, s.slice, s.aside_beam = (10**12, 1e9), slice_, False
    return s


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions(max_cards=7), st.sampled_from([1, 7, 2000]))
def test_the_move_orders_at_once_give_the_same_minimum_and_a_line_that_replays(pos, slice_):
    one = solved(pos, slice_=0)
    both = head_start_alone(slice_).solve(pos)
    assert (both.min_remaining, both.exact) == (one.min_remaining, True)
    assert len(replay_end(pos, both.line)) == both.min_remaining


def test_on_two_threads_the_head_start_runs_the_two_move_orders_at_once(monkeypatch):
    # Each move order's search runs on a thread of its own, over one table that grows as it fills,
    # as a one-thread table does, but only while neither search is running: here from 256 entries,
    # through a proof of five passes (without abilities and with the Whale alone, deal 4 on a
    # board with no margin ends with 5 stacks against a bound of 1).
    from fci_solver.bitboard import search as bs
    from fci_solver.position import Deal

    stepped, running, grown = {}, [], []
    step, grow = bs._Walk.step, bs.BitboardSolver._maybe_grow

    def counted_step(self, *a):
        stepped.setdefault(id(self), set()).add(threading.current_thread())
        running.append(self)
        try:
            return step(self, *a)
        finally:
            running.remove(self)

    def watched_grow(self):
        size = self.table.shape[0]
        grow(self)
        if self.table.shape[0] > size:
            grown.append(len(running))

    monkeypatch.setattr(bs._Walk, "step", counted_step)
    monkeypatch.setattr(bs.BitboardSolver, "_maybe_grow", watched_grow)
    monkeypatch.setattr(bs, "INITIAL_ENTRIES", 1 << 8)
    pos = Deal.random("standard", 4).position(0, False, True)
    s = head_start_alone()
    s.cards = CARDS.plain()
    r = s.solve(pos)
    assert r.exact and r.min_remaining == 5 and len(replay_end(pos, r.line, CARDS.plain())) == 5
    threads = [t for ts in stepped.values() for t in ts]
    assert len(set(threads)) == 2 and len(threads) == len(stepped)  # each search on one thread, two threads
    assert len(grown) >= 3 and set(grown) == {0}


def test_the_head_starts_move_orders_stop_at_its_time_within_a_few_hundred_states(monkeypatch):
    # Near a deal's root a state can cost 100-200 us: the two searches look at the clock after
    # each run of RACE_STEP states, not only at the end of a turn of 2,000.  A head start whose
    # time is up at once runs one such run in each, and the threads take the solve over.
    from fci_solver.bitboard import search as bs
    from fci_solver.position import Deal

    turns = []
    at_once = bs.BitboardSolver._steps_at_once
    monkeypatch.setattr(bs.BitboardSolver, "_steps_at_once", lambda self, *a: turns.append(at_once(self, *a)) or turns[-1])
    pos = Deal.random("standard", 4).position(0, False, True)
    s = BitboardSolver(CARDS.plain(), jobs=2)
    s.head_start, s.aside_beam = (10**12, 0.0), False
    r = s.solve(pos)
    assert turns and turns[0] <= 2 * bs.RACE_STEP and s.slice > 4 * bs.RACE_STEP
    assert r.exact and r.min_remaining == 5 and len(replay_end(pos, r.line, CARDS.plain())) == 5


def test_a_turn_near_a_deadline_runs_only_the_states_that_fit():
    from fci_solver.bitboard.search import RACE_STEP, fitted

    assert fitted(2000, None, 10_000, 2) == 2000  # no deadline: the whole turn
    assert fitted(2000, 10.0, 10_000, 2) == 2000  # time enough
    assert fitted(2000, 0.1, 10_000, 2) == 500  # 1,000 states fit, shared by the two move orders
    assert fitted(2000, 0.01, 10_000, 2) == fitted(2000, -1.0, 10_000, 1) == RACE_STEP  # a few, to look again


def test_two_threads_out_of_time_show_the_line_of_an_open_search_as_one_thread_does(monkeypatch):
    # The threads' searches ask "fewer than beta?" and so rarely reach a game's end: when the time
    # is up, a short open search dives to one, as after a one-thread solve's passes.
    from fci_solver.bitboard import search as bs
    from fci_solver.position import Deal

    runs = []
    run = bs.BitboardSolver._run
    monkeypatch.setattr(bs.BitboardSolver, "_split_pass", lambda self, *a: (None, None))  # out of time
    monkeypatch.setattr(bs.BitboardSolver, "_run", lambda self, eng, key, beta, *a, **k: runs.append(beta)
                        or run(self, eng, key, beta, *a, **k))
    pos = Deal.random("standard", 4).position(3, True, True)
    s = BitboardSolver(CARDS.plain(), jobs=2, time_limit=5.0)
    s.head_start, s.aside_beam = (1, 0.0), False
    r = s.solve(pos)
    assert runs == [len(pos) + 1] and not r.exact
    assert len(replay_end(pos, r.line, CARDS.plain())) == r.min_remaining < len(pos)


def _passes_of_a_proof(monkeypatch, **attributes) -> list[str]:
    """The passes a two-thread solve runs, in order, on a deal that is mostly proofs: without
    abilities and with the Whale alone, deal 4 on a board with no margin ends with 5 stacks
    against a bound of 1."""
    from fci_solver.bitboard import search as bs
    from fci_solver.position import Deal

    passes = []
    for name in ("_lazy_pass", "_split_pass"):
        real = getattr(bs.BitboardSolver, name)
        monkeypatch.setattr(bs.BitboardSolver, name,
                            lambda self, *a, real=real, name=name: passes.append(name) or real(self, *a))
    pos = Deal.random("standard", 4).position(0, False, True)
    s = bs.BitboardSolver(CARDS.plain(), jobs=2)
    s.head_start, s.chunk = (1, 1e9), 2000
    for k, v in attributes.items():
        setattr(s, k, v)
    r = s.solve(pos)
    assert r.exact and r.min_remaining == 5 and len(replay_end(pos, r.line, CARDS.plain())) == 5
    return passes


def test_two_threads_share_out_the_roots_turns_right_after_the_head_start(monkeypatch):
    # two threads racing two move orders through the same proof repeat each other's work: by
    # default no pass does
    passes = _passes_of_a_proof(monkeypatch)
    assert passes and set(passes) == {"_split_pass"}


def test_auto_shares_a_proof_out_by_the_roots_turns_once_lazy_smp_has_had_its_time(monkeypatch):
    passes = _passes_of_a_proof(monkeypatch, parallel="auto", lazy_seconds=0.01)
    assert passes[0] == "_lazy_pass" and "_split_pass" in passes


def replay_end(pos, line, cards=CARDS):
    from fci_solver.notation import replay

    return replay(pos, line, cards)[-1] if line else pos


def test_an_entry_another_thread_left_half_written_reads_as_a_miss():
    # Threads share one table and an entry is three separate stores, so a reader can meet one
    # whose key words are a new position's and whose data word is still the old one's (or the
    # reverse).  Both key words are stored mixed with the data word: such an entry matches
    # neither position.
    import numpy as np
    from fci_solver.bitboard.kernels import tt_lookup, tt_store
    from fci_solver.bitboard.kernels.table import _data, _mix

    t = np.zeros((16, 3), np.uint64)
    a = (np.uint64(11), np.uint64(12), np.int64(0))
    b = (np.uint64(21), np.uint64(22), np.int64(0))  # same tag as a
    tt_store(t, *a, np.int64(3 | 256), 1)
    slot = int(np.nonzero(t[:, 2])[0][0])
    whole = t[slot].copy()
    assert tt_lookup(t, *a) == 3 | 256

    # b's key words written (mixed with b's data: value 5), the data word still a's
    d = _data(np.uint64(1), np.int64(5), np.int64(1))
    t[slot, 0], t[slot, 1] = b[0] ^ _mix(d), b[1] ^ _mix(d ^ b[0])
    assert tt_lookup(t, *b) == -1
    assert tt_lookup(t, *a) == -1

    # a's key words still there, b's data word already written
    t[slot] = whole
    t[slot, 2] = d
    assert tt_lookup(t, *a) == -1

    # one key word of each
    t[slot] = whole
    t[slot, 1] = b[1] ^ _mix(whole[2] ^ b[0])
    assert tt_lookup(t, *a) == -1 and tt_lookup(t, *b) == -1


def test_the_kernel_cache_is_dropped_when_any_kernel_source_changes(tmp_path):
    # numba checks a cached function against its own file only; a search compiled before an edit
    # to the table's file would keep the old table code.  The cache is stamped with every source.
    from fci_solver.bitboard.kernels.cache import drop_stale_cache

    (tmp_path / "table.py").write_text("A = 1\n")
    (tmp_path / "dfs.py").write_text("B = 1\n")
    cache = tmp_path / "__pycache__"
    assert drop_stale_cache(tmp_path)  # no stamp yet
    (cache / "dfs.search-89.py311.nbi").write_text("compiled")
    assert not drop_stale_cache(tmp_path)
    assert (cache / "dfs.search-89.py311.nbi").exists()
    (tmp_path / "table.py").write_text("A = 2\n")  # another file than the cached function's
    assert drop_stale_cache(tmp_path)
    assert not (cache / "dfs.search-89.py311.nbi").exists()


def test_the_stale_kernel_cache_is_found_under_numba_cache_dir(tmp_path, monkeypatch):
    # with NUMBA_CACHE_DIR set numba keeps the kernels there, not beside the sources: a guard that
    # looked only beside them let an edited bound run with a search compiled before the edit
    from numba.core import config
    from fci_solver.bitboard.kernels.cache import cache_folder, drop_stale_cache

    src = tmp_path / "kernels"
    src.mkdir()
    (src / "bound.py").write_text("A = 1\n")
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba-cache"))
    cache = cache_folder(src)
    assert cache.is_relative_to(tmp_path / "numba-cache") and cache.name.startswith("kernels_")
    assert drop_stale_cache(src)
    (cache / "dfs.search-89.py311.nbi").write_text("compiled")
    assert not drop_stale_cache(src)
    (src / "bound.py").write_text("A = 2\n")
    assert drop_stale_cache(src)
    assert not (cache / "dfs.search-89.py311.nbi").exists()
    assert not (src / "__pycache__").exists()


def test_the_line_a_search_proved_is_read_back_from_the_table():
    # the search stores the line that reaches its value; the Python side finds it there (a
    # kernel and a lookup compiled from different table code would not), so the principal line
    # needs no search.
    from fci_solver.bitboard.codec import position_of
    from fci_solver.bitboard.codec import key_of
    from fci_solver.bitboard.engine import Engine
    from fci_solver.bitboard.search import BitboardSolver
    from fci_solver.position import Deal

    pos = Deal.random("standard", 417).position(2, False, False)
    eng, s = Engine(pos.board, CARDS), BitboardSolver(CARDS)
    root = key_of(pos)
    assert s.value(eng, root, 2) == 1
    key, steps = root, 0
    while eng.children(key):
        key = next(ch for ch in eng.children(key) if s._tt(ch) == (1, True))
        steps += 1
    assert steps > 0 and len(position_of(pos.board, key)) == 1


@pytest.mark.parametrize("parallel", ["lazy", "split"])
def test_can_it_be_won_on_two_threads_answers_yes_with_a_line(parallel):
    # past the one-thread head start, a thread that meets a line within the target ends the solve
    from fci_solver.bitboard import search as bs
    from fci_solver.position import Deal

    pos = Deal.random("standard", 1712).position(2, False, False)
    s = bs.BitboardSolver(CARDS, jobs=2, stop_at=3)
    s.parallel = parallel
    s.head_start = (10, 1e9)
    r = s.solve(pos)
    assert r.min_remaining <= 3 and r.lower_bound <= r.min_remaining
    assert len(replay_end(pos, r.line)) == r.min_remaining
