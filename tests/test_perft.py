"""The perft suite (tests/perft_suite.txt): both engines count the same states.

CI runs the small depths; benchmarks/perft_bench.py runs the large ones.
"""

from pathlib import Path

import pytest

from fci_solver import rules
from fci_solver.bitboard.search import perft
from fci_solver.search import perft_suite

from helpers import CARDS

SUITE = Path(__file__).with_name("perft_suite.txt")


def suite():
    for name, pos, counts in perft_suite(SUITE):
        yield pytest.param(pos, counts, id=name)


@pytest.mark.parametrize("pos, counts", list(suite()))
def test_bitboard_perft(pos, counts):
    # depth 2 with the Whale is about 0.7e9 expansions: that one is for the benchmarks
    depth = len(counts) if not pos.whale else 1
    assert [perft(pos, d, CARDS) for d in range(1, depth + 1)] == counts[:depth]


@pytest.mark.parametrize("pos, counts", [p for p in suite() if not p.values[0].whale])
def test_reference_perft_depth_1(pos, counts):
    assert len(rules.successors(pos, CARDS)) == counts[0]
