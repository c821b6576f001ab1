"""The perft suite (tests/perft_suite.txt): both engines count the same states.

CI runs the small depths; benchmarks/perft_bench.py runs the large ones.
"""

from pathlib import Path

import numpy as np
import pytest

from fci_solver import interrupt, rules
from fci_solver.bitboard import perft as bp
from fci_solver.bitboard.perft import perft
from fci_solver.bitboard.codec import key_of
from fci_solver.bitboard.engine import Engine
from fci_solver.search import perft_suite

from helpers import CARDS

SUITE = Path(__file__).with_name("perft_suite.txt")


def suite():
    for name, pos, counts in perft_suite(SUITE):
        yield pytest.param(pos, counts, id=name)


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("pos, counts", list(suite()))
def test_bitboard_perft(pos, counts, jobs):
    # depth 2 with the Whale is about 0.7e9 expansions: that one is for the benchmarks
    depth = len(counts) if not pos.whale else 1
    assert [perft(pos, d, CARDS, jobs) for d in range(1, depth + 1)] == counts[:depth]


def _rows(*names):
    return [p for p in suite() if p.id in names]


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("pos, counts", _rows("standard-shark", "tower-none"))
def test_a_set_that_outgrows_its_first_size_and_many_small_buffers_count_the_same(monkeypatch, pos, counts, jobs):
    # a first guess of 2^12 slots doubles again and again over level 2 (in the middle of a
    # buffer, and of a kernel call's slice of adds); buffers handed over every 1,000 children go
    # round the threads hundreds of times; a rehash runs in slices of 300 slots
    monkeypatch.setattr(bp, "MAX_SET_BITS", 12)
    monkeypatch.setattr(bp, "BUFFER", 20_000)
    monkeypatch.setattr(bp, "HANDOFF", 1000)
    monkeypatch.setattr(bp, "ADD_SLICE", 300)
    grown = []
    grow = bp._LevelSet.grow
    monkeypatch.setattr(bp._LevelSet, "grow", lambda s: (grown.append(s.k0.shape[0]), grow(s)))
    assert perft(pos, 2, CARDS, jobs) == counts[1]
    assert grown[:4] == [1 << 12, 1 << 13, 1 << 14, 1 << 15]


def test_a_double_move_is_listed_in_one_order_and_the_level_is_the_same():
    # the two orders of a double move reach one position: listing one saves a third of
    # perft(3)'s children (standard, seed 7: 39,181,119 -> 26,605,993), and the counts stay the
    # reference engine's (the suite above)
    pos, counts = _rows("standard-none")[0].values
    eng = Engine(pos.board, CARDS)
    k = key_of(pos)
    level = (np.array([k[0]], np.uint64), np.array([k[1]], np.uint64), np.array([k[2]], np.int64))
    s = bp._LevelSet(1 << 12)
    bp._one_thread(level, bp._Lister(eng), s, bp._Buffer())
    level = s.states()
    both_orders = set()
    generated = 0
    for i in range(counts[0]):
        for c in eng.children((level[0][i], level[1][i], level[2][i])):
            both_orders.add(c)
            generated += 1
    buf = bp._Buffer()
    bp._Lister(eng).fill(level, bp._runs(counts[0]), buf)
    listed = set(zip(buf.k0[:buf.listed].tolist(), buf.k1[:buf.listed].tolist(), buf.meta[:buf.listed].tolist()))
    assert buf.listed < 0.8 * generated
    assert listed == both_orders and len(listed) == counts[1]


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_is_looked_at_between_slices_of_adds(monkeypatch, jobs):
    # the first adds into a fresh set of 2^27 slots fault its pages in: a million of them in one
    # kernel call kept a Ctrl-C waiting 5 s
    pos, _ = _rows("standard-none")[0].values
    monkeypatch.setattr(bp, "ADD_SLICE", 100)
    calls = []
    add = bp.K.add_children

    def add_then_ctrl_c(ck0, ck1, cmeta, start, stop, *rest):
        calls.append(stop - start)
        interrupt.STOP.set()
        return add(ck0, ck1, cmeta, start, stop, *rest)

    monkeypatch.setattr(bp.K, "add_children", add_then_ctrl_c)
    try:
        with pytest.raises(interrupt.Interrupted):
            perft(pos, 2, CARDS, jobs)
    finally:
        interrupt.STOP.clear()
    assert calls == [100]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_level_that_outgrows_the_memory_budget_stops_with_what_it_found(jobs):
    # standard, seed 7, no sea: perft(3) is 11,716,314 positions, a set of 2^25 slots (570 MB);
    # within 300 MiB the set stops growing at 2^23 or 2^22 slots, half full
    pos, counts = _rows("standard-none")[0].values
    assert perft(pos, 2, CARDS, jobs, memory=300) == counts[1]
    with pytest.raises(bp.TooLarge, match=r"perft\(3\) needs more than the 300 MiB") as e:
        perft(pos, 3, CARDS, jobs, memory=300)
    assert e.value.depth == 3 and e.value.found in (1 << 21, 1 << 22)


def test_a_first_guess_larger_than_the_budget_is_halved_until_it_fits():
    b = bp._Budget(300, 1)  # 300 MiB less a 100 MB buffer
    size = b.first_size(1000, 1 << 27)
    assert b.fits((1000, size)) and not b.fits((1000, 2 * size))
    with pytest.raises(bp._NoRoom):
        b.first_size(10_000_000, 1 << 27)  # the level alone (240 MB) leaves no room for a set


def test_one_run_counts_every_level_and_reports_each_set_as_it_fills():
    pos, counts = _rows("standard-none")[0].values
    seen, levels = [], []
    assert perft(pos, 2, CARDS, progress=lambda d, n: seen.append((d, n)), each=lambda d, n: levels.append((d, n))) == counts[1]
    assert levels == [(1, counts[0]), (2, counts[1])]
    assert seen[-1] == (2, counts[1]) and seen == sorted(seen)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_a_state_whose_turns_overflow_a_buffer_is_listed_again_in_one_twice_as_large(monkeypatch, jobs):
    # with the Whale, a standard deal's level-1 states list up to 5.1 million turns each, more
    # than a buffer's first 4.2 million; here the start's 561 turns meet a buffer of 200
    pos, counts = _rows("standard-none")[0].values
    monkeypatch.setattr(bp, "BUFFER", 200)
    grown = []
    grow = bp._Buffer.grow
    monkeypatch.setattr(bp._Buffer, "grow", lambda b: (grown.append(b.size), grow(b)))
    assert perft(pos, 2, CARDS, jobs) == counts[1]
    assert grown[:2] == [200, 400]
    if jobs == 1:  # one buffer, which stays grown for the next level's larger lists
        assert grown == [200 << i for i in range(len(grown))] and len(grown) > 2


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_buffer_that_cannot_grow_within_the_memory_budget_stops_the_count(monkeypatch, jobs):
    # as if a listed state took a megabyte: the buffers of 200 and a first growth to 400 fit in
    # 700 MiB, a growth to 800 does not
    pos, counts = _rows("standard-none")[0].values
    monkeypatch.setattr(bp, "BUFFER", 200)
    monkeypatch.setattr(bp, "STATE_BYTES", 1 << 20)
    with pytest.raises(bp.TooLarge, match=r"perft\(1\) needs more than the 700 MiB"):
        perft(pos, 1, CARDS, jobs, memory=700)


@pytest.mark.parametrize("pos, counts", [p for p in suite() if not p.values[0].whale])
def test_reference_perft_depth_1(pos, counts):
    assert len(rules.successors(pos, CARDS)) == counts[0]
