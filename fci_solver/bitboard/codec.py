"""A position as the fast engine's key, and back.

A key is three integers: two words holding a byte per card (0 when the card is no top, else
1 + 2 * its cell's index on the board + 1 if its stack is stacked), and a meta word with the
Shark and the Whale still there, the pending effect and the after-Whale phase bit.  Only whether
a stack is stacked is kept, not its height: the rules never ask more.
"""

from __future__ import annotations

from ..cards import EFFECTS
from ..position import Board, Position, Stack
from .kernels.keys import PHASE_BIT


def key_of(pos: Position, after_whale: bool = False) -> tuple[int, int, int]:
    """The key of ``pos``: per card a byte (0 gone, else 1 + 2 * cell index + stacked) in two
    words, then the sea animals, the pending effect and (``after_whale``) the phase bit."""
    b = pos.board
    k = [0, 0]
    for s in pos.stacks:
        code = 1 + 2 * b.index(s.cell) + (1 if s.stacked else 0)
        k[s.card // 8] |= code << (8 * (s.card % 8))
    pend = EFFECTS.index(pos.pending) + 1 if pos.pending else 0
    meta = int(pos.shark) | (int(pos.whale) << 1) | (pend << 2) | (PHASE_BIT if after_whale else 0)
    return k[0], k[1], meta


def key_tops(key) -> list[tuple[int, int, int]]:
    """A key's stacks as (cell index, card, stacked), in card order."""
    k0, k1 = int(key[0]), int(key[1])
    tops = []
    for card in range(16):
        code = ((k0 if card < 8 else k1) >> (8 * (card % 8))) & 255
        if code:
            tops.append(((code - 1) >> 1, card, (code - 1) & 1))
    return tops


def key_pending(key) -> str | None:
    """A key's pending effect."""
    pend = (int(key[2]) >> 2) & 7
    return EFFECTS[pend - 1] if pend else None


def position_of(board: Board, key) -> Position:
    """A key back to a position (heights are 1 or 2: only stacked-or-not is in a key)."""
    meta = int(key[2])
    stacks = tuple(Stack(board.cell(i), card, 2 if stacked else 1) for i, card, stacked in key_tops(key))
    return Position(board, stacks, bool(meta & 1), bool(meta & 2), key_pending(key))
