"""The graph of perfect play: every position a perfect line of a deal passes through.

A position is in the graph when it is reached from the start by turns each of which keeps the
start's minimum reachable, and its own minimum is the start's.  The graph is built with the fast
engine: every next position of every position in it is settled by an exact search ("can the
minimum still be reached?"), which is what the decision profile (:mod:`.difficulty`) does along
one line, here done for every perfect line.  Where a deal's decisions are narrow the graph is
small; a forgiving deal's is not, hence the node cap.

Nodes carry the attributes of :func:`.graph.describe_node` (``position``, ``label``, ``count``,
``depth``, ...) plus ``options`` (distinct next positions) and ``keeping`` (those that keep the
minimum); edges carry ``turns``.  The analyses are plain functions over the graph; the ones the
full graph has (:mod:`.graph`) apply with ``target`` set to the minimum.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import networkx as nx
import numpy as np

from . import graph as g
from .cards import CardTable
from .errors import FciError
from .interrupt import check as check_interrupt
from .position import Position
from .bitboard.search import BitboardSolver, Engine, key_of


CHUNK = 2000
BATCH = 256  # next positions answered by one kernel call before any is searched


class CapReached(FciError):
    """The graph outgrew ``max_nodes``; ``partial`` holds what was built."""

    def __init__(self, message: str, partial: nx.DiGraph):
        super().__init__(message)
        self.partial = partial


def minimum_of(solver: BitboardSolver, eng: Engine, key) -> int:
    """The exact minimum from a position key (null-window passes from its lower bound up)."""
    beta = eng.lower_bound(key) + 1
    while True:
        v = solver.value(eng, key, beta)
        if v < beta:
            return v
        beta = v + 1


def optimal_graph(start: Position, cards: CardTable, max_nodes: int = 100_000, progress=None,
                  memory: int | None = None, jobs: int = 1) -> nx.DiGraph:
    """The perfect-play graph of ``start`` (raises :class:`CapReached` past ``max_nodes``).

    The graph is built turn by turn; the next positions of a whole turn's positions are settled
    first, on ``jobs`` threads sharing one table (the graph does not depend on it).
    """
    eng = Engine(start.board, cards)
    # Kernel calls of CHUNK states: the first stores into a fresh table of the whole budget fault
    # in pages for seconds, and Ctrl-C is answered between calls.
    solver = BitboardSolver(cards, memory=memory, chunk=CHUNK)
    # The threads share a table of the whole memory budget, made before the first search: the
    # 2^24 entries a solve shares hold a quarter of what a long build uses, and a table made later
    # is filled by a rehash that no Ctrl-C can stop.
    helpers = solver.helpers(jobs, full=True) if jobs > 1 else []
    workers = list(zip([Engine(start.board, cards) for _ in helpers], helpers)) or [(eng, solver)]
    try:
        return _build(start, eng, solver, workers, max_nodes, progress)
    finally:
        if helpers:
            solver.unshare(helpers)


def _build(start: Position, eng: Engine, solver: BitboardSolver, workers: list, max_nodes: int, progress):
    root = key_of(start)
    m = minimum_of(solver, eng, root)
    G = nx.DiGraph(root=g.node_id(root), margin=start.board.margin, height=start.board.height,
                   width=start.board.width, minimum=m)
    depth = {root: 0}
    keeps: dict = {}
    frontier, settled = [root], 0
    while frontier:
        check_interrupt()
        turns = {key: eng.turn_counts(key) for key in frontier}
        # in the order the positions list them: siblings one after another share subtrees in the table
        todo = list(dict.fromkeys(ch for key in frontier for ch in sorted(turns[key]) if ch not in keeps))
        base = len(keeps)
        keeps.update(_settle(workers, todo, m, (lambda n: progress(base + n, None)) if progress else None))
        nxt = []
        for key in frontier:
            mult = turns[key]
            kept = [ch for ch in sorted(mult) if keeps[ch]]
            G.add_node(g.node_id(key))
            g.describe_node(G, start.board, key, depth[key])
            G.nodes[g.node_id(key)].update(options=len(mult), keeping=len(kept), min_result=m)
            for ch in kept:
                if ch not in depth:
                    depth[ch] = depth[key] + 1
                    nxt.append(ch)
                    if len(depth) > max_nodes:
                        raise CapReached(
                            f"the perfect-play graph has more than {max_nodes:,} positions ({settled + 1:,} expanded, "
                            f"{len(depth):,} found, down to turn {depth[ch]}); raise --max-nodes", G)
                G.add_edge(g.node_id(key), g.node_id(ch), turns=mult[ch])
            settled += 1
        frontier = nxt
    return G


def _settle(workers: list, keys: list, m: int, tick=None) -> dict:
    """Whether each of ``keys`` can still reach ``m`` stacks: an exact search each, shared among
    the (engine, solver) ``workers``, one thread each; ``tick(n)`` with the number settled so far.

    Each run of keys is first answered in batches by one kernel call (the bound, the table, game
    ends): late in the game most next positions are, and a search call each cost more than the
    search (turn 8 of an expert puzzle: 1.2 million positions, 2 states each).
    """
    lock = threading.Lock()
    done = [0]

    def run(e: Engine, s: BitboardSolver, part: list) -> list:
        out = []
        for lo in range(0, len(part), BATCH):
            check_interrupt()
            batch = part[lo:lo + BATCH]
            known = s.known(e, np.array(batch, np.uint64).reshape(-1, 3), m + 1)
            for ch, v in zip(batch, known.tolist()):
                if v < 0:
                    check_interrupt()
                    v = s.value(e, ch, m + 1)
                out.append((ch, v <= m))
            if tick:
                with lock:
                    done[0] += len(batch)
                    tick(done[0])
        return out

    if len(workers) == 1 or len(keys) < 2:
        return dict(run(*workers[0], keys))
    # contiguous runs, not every n-th key: neighbouring keys share subtrees in the table
    step = -(-len(keys) // len(workers))
    with ThreadPoolExecutor(len(workers)) as pool:
        parts = list(pool.map(lambda j: run(*workers[j], keys[j * step:(j + 1) * step]), range(len(workers))))
    return dict(kv for part in parts for kv in part)


# -- analyses ------------------------------------------------------------------------------

def minimum(G: nx.DiGraph) -> int:
    return G.graph["minimum"]


def perfect_lines(G: nx.DiGraph) -> dict:
    """Perfect lines as position sequences and as turn sequences (every way to play them)."""
    p = g.path_counts(G, minimum(G))
    return {"positions": p["winning_lines"], "turns": p["winning_turn_sequences"]}


def critical_positions(G: nx.DiGraph) -> list[str]:
    """Positions every perfect line passes through (dominators of the perfect ends), start first."""
    return g.critical_states(G, minimum(G))


def only_move_positions(G: nx.DiGraph) -> list[str]:
    """Positions where exactly one next position keeps the minimum."""
    return [n for n, k in G.nodes(data="keeping") if k == 1]


def width_by_turn(G: nx.DiGraph) -> list[dict]:
    """Per turn (fewest turns from the start): perfect-play positions, and the options they offer."""
    rows: dict = {}
    for n, d in G.nodes(data=True):
        r = rows.setdefault(d["depth"], [0, 0, 0])
        r[0] += 1
        r[1] += d["options"]
        r[2] += d["keeping"]
    return [{"turn": t + 1, "positions": a, "options": b, "keeping": c} for t, (a, b, c) in sorted(rows.items())]


def narrowest_decision(G: nx.DiGraph) -> str | None:
    """The position (with a choice: more than one option) whose share of keeping options is smallest."""
    best = None
    for n, d in G.nodes(data=True):
        if d["options"] > 1 and (best is None or d["keeping"] * G.nodes[best]["options"] < G.nodes[best]["keeping"] * d["options"]):
            best = n
    return best


def analyse(G: nx.DiGraph) -> dict:
    """Every figure above, JSON-ready."""
    crit = critical_positions(G)
    narrow = narrowest_decision(G)

    def node(n):
        d = G.nodes[n]
        return {"id": n, "turn": d["depth"] + 1, "options": d["options"], "keeping": d["keeping"],
                "label": d["label"], "position": d["position"]}

    return {
        "minimum": minimum(G),
        "positions": G.number_of_nodes(),
        "edges": G.number_of_edges(),
        "perfect_lines": perfect_lines(G),
        "critical_positions": [node(n) for n in crit],
        "only_move_positions": len(only_move_positions(G)),
        "width_by_turn": width_by_turn(G),
        "narrowest_decision": node(narrow) if narrow else None,
    }
