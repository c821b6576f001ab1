"""numba kernels, a small module per job; everything here takes and returns plain numpy arrays and
integers.

``keys``     the packed state key and shared bit tricks
``movegen``  turn generation (with the Whale as a half-step) and "is there any turn?"
``bound``    the sound lower bound
``table``    the transposition table
``dfs``      the exact search over an explicit stack
``settle``   many positions answered at once by the bound, the table or the key
``effort``   many searches from an empty table at once (the effort line's options)
``beam``     a wide, shallow probe for a line down to the bound (a beam search)
``perft``    perft's level sets
``turns``    every turn of a run of positions at once (the perfect-play graph)
``keymap``   keys to small values (the perfect-play graph's settled next positions)
``dag``      the walk of the state DAG (the random player's chance)
``aye``      All You Can Eat's exact sweeps
``cache``    keeps numba's disk cache in step with these sources

Everything here takes and returns plain numpy arrays and integers; the
Python layer (:mod:`fci_solver.bitboard`: ``engine``, ``search`` and the rest) owns
parsing, validation and output.  No kernel is recursive (numba issue 6061: recursive cached functions
fail to load from the cache), and the transposition table is open addressing
over one numpy array (numba's typed Dict is far slower, issues 4364 and 4743).
The search and everything it calls allocate nothing (scratch arrays come
from the caller) and are compiled without reference counting (``HOT``): the
atomic count updates numba adds around array arguments were the largest
single cost of a solve.

State key
---------
A state is three integers.  ``k0`` holds cards 0..7 and ``k1`` cards 8..15,
one byte per card: 0 when the card is not on top of a stack (eaten, buried,
discarded or never dealt), else ``1 + 2 * cell + stacked``.  So a board has at
most 127 cells.  ``meta`` holds the rest: bit 0 Shark available, bit 1 Whale
available, bits 2-4 the pending effect (0 none, 1..7 = EFFECTS order), bit 5
the *after-Whale* phase (see below).

The Whale as a half-step
------------------------
A turn that begins with the Whale is searched as two steps: the Whale move
leads to an *after-Whale* node (phase bit set) whose children are the eats
and abilities of the rest of the turn.  This keeps every node's child list
small (no node lists Whale moves times eats times abilities), and lets the
transposition table share the after-Whale nodes.  An after-Whale node is only
generated when an eat exists there, so every child is a live turn and a node
with no children is the end of the game.  The optional Whale after the
ability is never generated: the same move made before the next eat reaches
exactly the same states (RULES.md).
"""

from __future__ import annotations

from pathlib import Path

from .cache import drop_stale_cache

drop_stale_cache(Path(__file__).parent)  # before any kernel is compiled or loaded

from .keys import (  # noqa: F401, E402
    NCARDS,
    INF,
    PHASE_BIT,
    FOX,
    LYNX,
    TIGER,
    CAIMAN,
    LION,
    RACCOON,
    BEAR,
    AB_NONE,
    AB_MOVE,
    AB_DISCARD,
    AB_SWAP,
    AB_PENDING,
    BIG,
    HOT,
    _code,
    decode,
    stack_count,
    _popcount,
    _DEBRUIJN,
    _lowest,
)
from .movegen import (  # noqa: F401, E402
    _emit,
    _raccoon_stage,
    _ability,
    _eat_then,
    _eats,
    no_turn,
    has_eat,
    gen_children,
    gen_children_below,
    gen_children_into,
    gen_turns_into,
)
from .bound import (  # noqa: F401, E402
    lower_bound,
    quick_bound,
    discard_bound,
    _bound,
    _spread,
    _stuck,
    DISCARD_DEPTH,
    MAX_SLACK,
    WORK,
    _fewest_stuck,
    _still,
    _stuck_plain,
)
from .table import (  # noqa: F401, E402
    _hash,
    PROBES,
    FIELDS,
    tt_lookup,
    tt_store,
    tt_rehash,
    tt_first_exact,
)
from .dfs import (  # noqa: F401, E402
    ETC_DEPTH,
    CTL_FIELDS,
    FRAME_FIELDS,
    MAXD,
    search_work_size,
    start_walk,
    _sort_children,
    _live_first,
    cached_bound,
    entry_value,
    search,
    _deliver,
)
from .settle import known_values, search_each  # noqa: F401, E402
from .effort import NOT_WITHIN, REFUTED, effort_each, table_entries  # noqa: F401, E402
from .perft import (  # noqa: F401, E402
    find_slot,
    _set_add,
    set_rehash,
    add_children,
    level_children,
    collect,
)
from .turns import first_seen, group_rows, list_turns  # noqa: F401, E402
from .keymap import map_get, map_put, map_rehash  # noqa: F401, E402
from .dag import (  # noqa: F401, E402
    _dag_put,
    _fold,
    dag_walk,
    keep_above,
    keep_within,
)
