"""The state graph of a deal as a ``networkx.DiGraph``, and analyses over it.

Every turn removes at least one stack, so the graph is a DAG.  Nodes are
full-turn states (the fast engine's packed keys, written ``k0:k1:meta`` in
hex); their attributes are plain values so the graph exports to GraphML, GEXF
and DOT:

``stacks``      the stacks as text, e.g. ``c3=5 d3=12*`` (``*`` = stacked)
``shark``, ``whale``  sea animals still available (bool)
``pending``     the pending effect, ``""`` for none
``count``       number of stacks
``depth``       fewest turns from the start
``min_result``  the exact minimum result reachable from the node
``position``    the position in the typed text format ``fci solve --position`` reads
``label``       a short name for people (Gephi, Graphviz): the tops by row, ``/`` between rows

Edges carry ``turns``, the number of distinct legal turns (action sequences)
that lead there, and, once :func:`label_edges` has run (``fci graph --out``
does), ``turn``: one of them in the JSON notation.

The analyses are plain functions taking the graph, built on networkx
algorithms (topological order, dominators, shortest paths), in the manner of
``networkx.algorithms``.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from fractions import Fraction
from functools import lru_cache
from math import lcm

import networkx as nx
import numpy as np

from .cards import CardTable, standard_cards
from .errors import FciError
from .interrupt import check as check_interrupt
from .layered import Layered, common_chain, dominator_chains, layer_order, path_sums
from .outfile import written_whole
from .position import Position, sea_list
from . import rules

DEFAULT_MAX_NODES = 1_000_000
LIST_RUN = 1 << 14  # ways to play listed by one kernel call (Ctrl-C is looked at once a position)


def turn_order(G: nx.DiGraph) -> list[str]:
    """The states with the most stacks first, a topological order: every turn eats, so a next
    state has fewer stacks than its parent (:func:`.layered.layer_order`)."""
    return layer_order(G)[0]


def node_id(key) -> str:
    return f"{key[0]:x}:{key[1]:x}:{key[2]:x}"


def _labels(pos: Position, cards: CardTable, eng, key) -> dict:
    """child key -> one turn reaching it (reference engine, so every label is a checked turn)."""
    from .bitboard.codec import key_of, position_of
    from .bitboard.line import whale_between
    from .bitboard import kernels as K

    out = {}
    for turn, nxt in rules.turns(pos, cards, whale_before=False):
        out.setdefault(key_of(nxt), turn)
    for half in eng.children(key):
        if half[2] & K.PHASE_BIT:
            whale = whale_between(pos, position_of(pos.board, half))
            ts = rules.advance(rules.TurnState.begin(pos), whale, cards)
            for turn, nxt in rules.turns_from(ts, cards, whale_before=False):
                out.setdefault(key_of(nxt), (whale,) + turn)
    return out


def build_graph(start: Position, cards: CardTable | None = None, max_nodes: int = DEFAULT_MAX_NODES,
                labels: bool = False, progress=None) -> nx.DiGraph:
    """The reachable state graph from ``start`` (raises :class:`FciError` past ``max_nodes``).

    ``labels`` also names one turn per edge (:func:`label_edges`), which the reference engine
    checks: slow on large graphs, so it is done only when asked, after the cap is known to hold.
    ``progress(found, None)`` is told the states found so far, now and then.
    """
    from .bitboard.codec import key_of
    from .bitboard.engine import Engine

    cards = cards or standard_cards()
    eng = Engine(start.board, cards)
    root = key_of(start)
    G = nx.DiGraph(root=node_id(root), margin=start.board.margin, height=start.board.height, width=start.board.width)
    depth, order = _add_edges(G, eng, root, max_nodes, progress)
    for key in order:
        G.add_node(node_id(key), **node_attributes(start.board, key, depth[key]))
    for n in reversed(turn_order(G)):
        succ = list(G.successors(n))
        G.nodes[n]["min_result"] = min((G.nodes[s]["min_result"] for s in succ), default=G.nodes[n]["count"])
    if labels:
        label_edges(G, start.board, cards, eng)
    return G


def _add_edges(G: nx.DiGraph, eng, root: tuple, max_nodes: int, progress) -> tuple[dict, list]:
    """Every edge of the graph from ``root``, turn by turn; returns each position's turns from the
    start, and the positions in the order they were expanded."""
    from .bitboard.turns import TurnLister, spans

    lister = TurnLister(eng)
    depth = {root: 0}
    frontier = [root]
    order = []
    while frontier:
        nxt_frontier = []
        # the turns of a run of positions in one kernel call; each position's next positions in
        # the order the generator lists them (the edges, and so the export, as before)
        for part in lister.runs(np.array(frontier, np.uint64).reshape(-1, 3), LIST_RUN):
            rows = np.argsort(part.first, kind="stable")
            at = spans(part.parent[rows], part.positions.shape[0])
            children = list(map(tuple, part.child[rows].tolist()))
            turns = part.turns[rows].tolist()
            for i, key in enumerate(map(tuple, part.positions.tolist())):
                check_interrupt()
                order.append(key)
                kid = node_id(key)
                for e in range(at[i], at[i + 1]):
                    ch = children[e]
                    if ch not in depth:
                        depth[ch] = depth[key] + 1
                        nxt_frontier.append(ch)
                        if len(depth) > max_nodes:
                            raise FciError(f"the state graph has more than {max_nodes:,} states; raise --max-nodes, try a smaller deal or fewer sea animals, or --optimal for the positions of perfect play only")
                        if progress and not len(depth) & 0xFFFF:
                            progress(len(depth), None)  # one position with the Whale has 10^5 turns
                    G.add_edge(kid, node_id(ch), turns=turns[e])
                if progress:
                    progress(len(depth), None)
        frontier = nxt_frontier
    return depth, order


def node_attributes(board, key, depth: int) -> dict:
    """A node's plain attributes (see the module docstring), from its key."""
    return _writer(board).attributes(key, depth)


class _NodeWriter:
    """A board's node attributes from keys, read from the key's bytes, not through a
    :class:`Position`: the graph of perfect play describes every node it finds (172,000 for an
    expert puzzle), and its main thread doing so is what the settling threads wait for late in a
    deal.  Every piece of text a top can give is made once per board; a node joins them.  The
    text is the one :func:`.position.tops_text` and :func:`tops_label` write (a test compares)."""

    def __init__(self, board):
        from .cards import EFFECTS

        self.board, self.effects, self.width = board, EFFECTS, board.n_cols
        n = board.n_rows * board.n_cols
        names = [board.name(board.cell(i)) for i in range(n)]
        # a key knows whether a top is stacked, not how high: 2 reads as stacked
        self.grid_token = [[(f"{card}:2" if st else str(card)).rjust(4) for st in (0, 1)] for card in range(16)]
        self.label_token = [[f"{card}*" if st else str(card) for st in (0, 1)] for card in range(16)]
        self.stack_token = [[[f"{names[i]}={card}{'*' if st else ''}" for st in (0, 1)] for card in range(16)]
                            for i in range(n)]
        self.empty = ["   ."] * n
        self.heads: dict = {}

    def _head(self, meta: int) -> tuple:
        """(shark, whale, pending, the position text's first lines, the label's suffix) of ``meta``."""
        if meta not in self.heads:
            shark, whale = bool(meta & 1), bool(meta & 2)
            pend = (meta >> 2) & 7
            pending = self.effects[pend - 1] if pend else None
            b = self.board
            text = (f"sea: {' '.join(sea_list(shark, whale)) or 'none'}\npending: {pending or 'none'}\n"
                    f"board: {b.height}x{b.width} margin {b.margin}\n")
            extra = [x for x in (shark and "shark", whale and "whale", pending) if x]
            self.heads[meta] = (shark, whale, pending or "", text, f" [{', '.join(extra)}]" if extra else "")
        return self.heads[meta]

    def attributes(self, key, depth: int) -> dict:
        raw = int(key[0]).to_bytes(8, "little") + int(key[1]).to_bytes(8, "little")
        tops = sorted(((code - 1) >> 1, card, (code - 1) & 1) for card, code in enumerate(raw) if code)
        shark, whale, pending, head, suffix = self._head(int(key[2]))
        grid, w = self.empty[:], self.width
        rows: dict = {}
        for i, card, st in tops:
            grid[i] = self.grid_token[card][st]
            rows.setdefault(i // w, []).append(self.label_token[card][st])
        return {
            "stacks": " ".join(self.stack_token[i][card][st] for i, card, st in tops),
            "shark": shark, "whale": whale, "pending": pending, "count": len(tops), "depth": depth,
            "position": head + "\n".join(" ".join(grid[lo:lo + w]) for lo in range(0, len(grid), w)) + "\n",
            "label": " / ".join(" ".join(r) for r in rows.values()) + suffix,
        }


@lru_cache(maxsize=32)
def _writer(board) -> _NodeWriter:
    return _NodeWriter(board)


def node_label(pos: Position) -> str:
    """The tops row by row (``7*`` stacked), ``/`` between rows, with the sea animals and effect."""
    return tops_label([(s.cell, s.card, s.stacked) for s in pos.stacks], pos.shark, pos.whale, pos.pending)


def tops_label(tops, shark: bool, whale: bool, pending: str | None) -> str:
    """:func:`node_label` from a position's parts, ``tops`` as (cell, card, stacked)."""
    rows: dict = {}
    for cell, card, stacked in sorted(tops):
        rows.setdefault(cell[0], []).append(f"{card}*" if stacked else str(card))
    text = " / ".join(" ".join(r) for r in rows.values())
    extra = [x for x in (shark and "shark", whale and "whale", pending) if x]
    return text + (f" [{', '.join(extra)}]" if extra else "")


def label_edges(G: nx.DiGraph, board, cards: CardTable, eng=None, progress=None) -> None:
    """Give every edge ``turn``: one legal turn that makes it, in the JSON notation."""
    from .bitboard.codec import position_of
    from .bitboard.engine import Engine

    eng = eng or Engine(board, cards)
    for i, n in enumerate(G):
        check_interrupt()
        if not G.out_degree(n):
            continue
        key = tuple(int(x, 16) for x in n.split(":"))
        label = _labels(position_of(board, key), cards, eng, key)
        for ch in G.successors(n):
            G.edges[n, ch]["turn"] = json.dumps([a.to_json() for a in label[tuple(int(x, 16) for x in ch.split(":"))]])
        if progress:
            progress(i + 1, None)


# -- analyses --------------------------------------------------------------------------

def root(G: nx.DiGraph) -> str:
    return G.graph["root"]


def terminals(G: nx.DiGraph) -> list[str]:
    return [n for n in G if G.out_degree(n) == 0]


def winning_terminals(G: nx.DiGraph, target: int) -> list[str]:
    return [n for n in terminals(G) if G.nodes[n]["count"] <= target]


def counts(G: nx.DiGraph, target: int = 3) -> dict:
    """States, terminal states by result, and states from which ``target`` is still reachable."""
    by_result = Counter(G.nodes[n]["count"] for n in terminals(G))
    return {
        "states": G.number_of_nodes(),
        "edges": G.number_of_edges(),
        "terminal_by_result": dict(sorted(by_result.items())),
        "winnable_states": sum(1 for n in G if G.nodes[n]["min_result"] <= target),
        "min_result": G.nodes[root(G)]["min_result"],
    }


def path_counts(G: nx.DiGraph, target: int = 3, layered: Layered | None = None) -> dict:
    """Distinct state sequences from the start: to a win, and complete games in all.

    Two turns that lead to the same state are one step here; ``turn_sequences``
    counts every distinct action sequence (weighting each edge by its ``turns``).
    ``layered`` is the graph as :meth:`Layered.of` gives it, when the caller has it already.
    """
    a = layered or Layered.of(G)
    ones = np.ones(len(a), np.int64)
    won = np.array([G.nodes[n]["count"] <= target for n in a.nodes], np.int64)
    r = a.index[root(G)]
    games, wins = path_sums(a, ones, False)[r], path_sums(a, won, False)[r]
    tgames, twins = path_sums(a, ones, True)[r], path_sums(a, won, True)[r]
    return {"winning_lines": int(wins), "complete_games": int(games), "winning_turn_sequences": int(twins),
            "turn_sequences": int(tgames)}


def critical_states(G: nx.DiGraph, target: int = 3, layered: Layered | None = None) -> list[str]:
    """States that every winning line passes through (dominators of the winning terminals), start first.

    The graph is acyclic (every turn eats), so each state's dominators are those its
    predecessors share, worked out layer by layer (:func:`.layered.dominator_chains`); every
    predecessor of a state that can still win can win too, so the states that cannot are left
    out without a subgraph (a copy of the perfect-play graph cost more than the rest of its
    analyses)."""
    a = layered or Layered.of(G)
    ends = a.ends()
    count = np.array([G.nodes[a.nodes[i]]["count"] for i in ends], np.int64)
    wins = ends[count <= target]
    if not len(wins):
        return []
    keep = np.array([G.nodes[n]["min_result"] <= target for n in a.nodes])
    chain = common_chain(dominator_chains(a, keep)[wins])[0]
    return [a.nodes[i] for i in chain[chain >= 0]]


def only_move_states(G: nx.DiGraph, target: int = 3) -> list[str]:
    """Winnable states where exactly one next state keeps the win."""
    out = []
    for n in G:
        if G.nodes[n]["min_result"] > target:
            continue
        keep = [s for s in G.successors(n) if G.nodes[s]["min_result"] <= target]
        if len(keep) == 1:
            out.append(n)
    return out


def by_depth(G: nx.DiGraph, target: int = 3) -> list[dict]:
    """Per depth (fewest turns from the start): states, mean branching factor, share still winnable."""
    rows = defaultdict(lambda: [0, 0, 0])
    for n, d in G.nodes(data="depth"):
        row = rows[d]
        row[0] += 1
        row[1] += G.out_degree(n)
        row[2] += G.nodes[n]["min_result"] <= target
    return [
        {"depth": d, "states": s, "branching": round(b / s, 3), "winnable_share": round(w / s, 4)}
        for d, (s, b, w) in sorted(rows.items())
    ]


def random_play_win_chance(G: nx.DiGraph, target: int = 3, start: str | None = None) -> Fraction:
    """Exact chance that a player picking uniformly among legal turns at every step ends with <= target."""
    p = {}
    for n in reversed(turn_order(G)):
        nbrs = G.succ[n]
        if not nbrs:
            p[n] = Fraction(1 if G.nodes[n]["count"] <= target else 0)
            continue
        # over the successors' common denominator, reduced once: a Fraction sum per edge (a gcd
        # of large numbers each) cost most of the analyses
        den = lcm(*(p[s].denominator for s in nbrs))
        total = num = 0
        for s, d in nbrs.items():
            q = p[s]
            total += d["turns"]
            num += d["turns"] * q.numerator * (den // q.denominator)
        p[n] = Fraction(num, den * total)
    return p[start or root(G)]


def line_lengths(G: nx.DiGraph, target: int = 3) -> tuple[int, int] | None:
    """Shortest and longest winning lines (in turns), or None if the target cannot be reached."""
    wins = set(winning_terminals(G, target))
    if not wins:
        return None
    lo, hi = {}, {}
    for n in reversed(turn_order(G)):
        nbrs = G.succ[n]
        if not nbrs:
            if n in wins:
                lo[n] = hi[n] = 0
            continue
        succ = [s for s in nbrs if s in lo]
        if succ:
            lo[n] = 1 + min(lo[s] for s in succ)
            hi[n] = 1 + max(hi[s] for s in succ)
    r = root(G)
    return (lo[r], hi[r]) if r in lo else None


def analyse(G: nx.DiGraph, target: int = 3) -> dict:
    """Everything above in one JSON-ready dict."""
    layered = Layered.of(G)  # the graph as arrays, for the two sweeps
    crit = critical_states(G, target, layered)
    lengths = line_lengths(G, target)
    chance = random_play_win_chance(G, target)
    return {
        "target": target,
        "counts": counts(G, target),
        "paths": path_counts(G, target, layered),
        "critical_states": [{"id": n, "depth": G.nodes[n]["depth"], "stacks": G.nodes[n]["stacks"]} for n in crit],
        "only_move_states": len(only_move_states(G, target)),
        "random_play_win_chance": {"fraction": str(chance), "decimal": float(chance)},
        "winning_line_lengths": list(lengths) if lengths else None,
        "by_depth": by_depth(G, target),
    }


# -- export ------------------------------------------------------------------------------

FORMATS = ("graphml", "gexf", "dot")


def write_graph(G: nx.DiGraph, path: str) -> str:
    """Write by file extension (.graphml, .gexf, .dot); returns the format used."""
    fmt = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if fmt not in FORMATS:
        raise FciError(f"unknown graph format for {path!r}: use a .graphml, .gexf or .dot file")
    # GraphML and GEXF hold plain values only: a graph attribute of another kind (the perfect-play
    # graph's states by turn, a mapping) stays out of the file, and in the graph
    whole = G.graph
    G.graph = {k: v for k, v in whole.items() if isinstance(v, (str, int, float))}
    try:
        with written_whole(path) as part:
            if fmt == "graphml":
                nx.write_graphml(G, part)
            elif fmt == "gexf":
                nx.write_gexf(G, part)
            else:
                write_dot(G, part)
    except OSError as e:
        raise FciError(f"cannot write {path!r}: {e.strerror}") from None
    finally:
        G.graph = whole
    return fmt


def _dot_value(v) -> str:
    return json.dumps(str(v) if not isinstance(v, (int, float)) or isinstance(v, bool) else v)


def write_dot(G: nx.DiGraph, path: str) -> None:
    """Graphviz DOT without extra dependencies (pydot/pygraphviz are not needed to write it)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("digraph fci {\n")
        for n, data in G.nodes(data=True):
            attrs = ", ".join(f"{k}={_dot_value(v)}" for k, v in data.items())
            f.write(f"  {json.dumps(n)} [{attrs}];\n")
        for a, b, data in G.edges(data=True):
            attrs = ", ".join(f"{k}={_dot_value(v)}" for k, v in data.items())
            f.write(f"  {json.dumps(a)} -> {json.dumps(b)} [{attrs}];\n")
        f.write("}\n")


def read_dot(path: str) -> nx.DiGraph:
    """Read back what :func:`write_dot` writes (not a general DOT parser)."""
    import re

    G = nx.DiGraph()
    q = r'"(?:[^"\\]|\\.)*"'
    val = rf'({q}|-?\d+(?:\.\d+)?)'
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        m = re.fullmatch(rf"({q})(?: -> ({q}))? \[(.*)\];", line)
        if not m:
            continue
        attrs = {k: json.loads(v) for k, v in re.findall(rf"(\w+)={val}", m.group(3))}
        if m.group(2):
            G.add_edge(json.loads(m.group(1)), json.loads(m.group(2)), **attrs)
        else:
            G.add_node(json.loads(m.group(1)), **attrs)
    return G
