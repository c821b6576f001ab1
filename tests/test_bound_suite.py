"""The lower bound against the true minimum on every position of the perft suite's first two
levels (tests/perft_suite.txt), for the rows without the Whale.

The minimum comes from a walk of every state below a position with nothing cut
(:func:`fewest_stacks`), so it rests on the rules alone and not on the bound it checks. A bound of
1 needs no walk: every line ends with a stack at least. The suite's level 2 with the Whale is
193,853,703 positions from 979,623,303 turns, and a few positions of the gap layout have graphs of
millions of states: benchmarks/bound_suite.py walks those too.
"""

from pathlib import Path

import numpy as np
import pytest

from fci_solver.bitboard import kernels as K
from fci_solver.bound import lower_bound, mover_steps
from fci_solver.bitboard.codec import key_of, position_of
from fci_solver.bitboard.dag import FewestStacks, fewest_stacks
from fci_solver.bitboard.engine import Engine
from fci_solver.position import parse_position_text
from fci_solver.search import perft_suite

from helpers import CARDS

SUITE = Path(__file__).with_name("perft_suite.txt")
MAX_STATES = 100_000
# positions with a bound above 1 whose graphs have more than MAX_STATES states (all with a
# bound of 2, on the gap layout): benchmarks/bound_suite.py walks them whole
TOO_LARGE = {"gap-none": 42, "gap-shark": 42}
ROWS = {name: (pos, counts) for name, pos, counts in perft_suite(SUITE) if not pos.whale}


@pytest.fixture(scope="module", params=list(ROWS))
def row(request):
    """A row's board, its engine and the keys of its levels 0-2, sorted: made once for the tests
    of the row (pytest runs them one after the other)."""
    pos, counts = ROWS[request.param]
    eng = Engine(pos.board, CARDS)
    levels = eng.levels(key_of(pos), 2)
    assert [len(level) for level in levels] == [1] + counts[:2]
    return request.param, pos.board, eng, sorted(set().union(*levels))


def test_the_bound_never_exceeds_the_minimum_on_the_suites_first_two_levels(row):
    name, board, eng, keys = row
    assert exceeding(eng, keys) == ([], TOO_LARGE.get(name, 0))


def test_both_engines_give_the_same_bound_on_the_suites_first_two_levels(row):
    # the reference engine states the bound; on full-size positions it takes about a millisecond
    # a bound, so a spread of them: up to 100 that the bound lifts above 1, and 50 others
    name, board, eng, keys = row
    above = [key for key in keys if eng.lower_bound(key) > 1]
    for key in above[::max(1, len(above) // 100)] + keys[::len(keys) // 50]:
        assert eng.lower_bound(key) == lower_bound(position_of(board, key), CARDS), key


def test_a_listed_level_keeps_the_full_positions_whose_bound_is_above_1(row):
    # benchmarks/bound_suite.py streams the Whale's level 2 through keep_above; here it meets
    # the row's levels with every other position marked as an after-Whale half-step
    name, board, eng, keys = row
    k0, k1 = (np.array([k[i] for k in keys], np.uint64) for i in (0, 1))
    meta = np.array([k[2] | (K.PHASE_BIT if i % 2 else 0) for i, k in enumerate(keys)], np.int64)
    m = K.keep_above(k0, k1, meta, len(keys), 1, eng.cmask, eng.cellrc, np.empty(K.WORK, np.int64))
    want = [k for k in keys[::2] if eng.lower_bound(k) > 1]
    assert list(zip(k0[:m].tolist(), k1[:m].tolist(), meta[:m].tolist())) == want and want


def exceeding(eng, keys):
    """The keys where the bound is above the minimum, and how many graphs were too large."""
    fewest_from = FewestStacks(eng, (2_000, MAX_STATES))
    over, too_large = [], 0
    for key in keys:
        bound = eng.lower_bound(key)
        if bound == 1:
            continue
        fewest = fewest_from(key)
        if fewest is None:
            too_large += 1
        elif bound > fewest:
            over.append(key)
    return over, too_large


def test_two_turns_into_the_suites_standard_deal_the_movers_shifts_keep_the_bound_down():
    # a position of level 2 of the standard row without sea animals: the Ant, Spider, Mouse and
    # Rat move stacks a few cells after their eats, and a bound that took them to move nothing
    # would be 6 here, where a line reaches 3 stacks
    pos = parse_position_text("""sea: none
pending: none
board: 4x4 margin 2
   .    .    .    .    .    .    .    .
   .    .    .    .    .    .    .    .
   .    .   10    2  8:2   15    .    .
   .    .  1:2    .    .   12    .    .
   .    .    5    4   11    .   13    .
   .    .    9    .   14    3    .    .
   .    .    .    .    .    .    .    .
   .    .    .    .    .    .    .    .""")
    eng = Engine(pos.board, CARDS)
    key = key_of(pos)
    start, counts = ROWS["standard-none"]
    assert key in eng.levels(key_of(start), 2)[2]
    still = eng.copy()
    still.cmask = eng.cmask.copy()
    for value in mover_steps(CARDS):
        still.cmask[7 + value] = 0
    assert eng.lower_bound(key) <= fewest_stacks(eng, key, MAX_STATES) == 3 < still.lower_bound(key) == 6
