"""A DAG as numpy arrays in layers, and the sweeps over it that the graph analyses need.

The analyses of :mod:`.graph` walk a state graph from its ends back to its start (path counts)
and from its start out (dominators).  Node by node in Python over networkx's dictionaries, they
cost 1.4 s and 1.3 s (under cProfile) on the perfect-play graph of an expert puzzle (172,000
positions, 290,000 edges); layer by layer over arrays, it is one pass of Python over the edges
to build them and a few numpy calls a layer.  A layer is a set of nodes with no edge between
them and every edge going to a later layer: the states with the same number of stacks (every
turn eats), or networkx's topological generations for a graph without that attribute.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

# Path counts are summed in int64 when a float64 sum says every count stays below this, and as
# Python integers (object arrays) when not: the number of games of a full graph passes 2^63.
INT64_SAFE = 2.0 ** 61


@dataclass(frozen=True)
class Layered:
    """A DAG's nodes in layer order (``layers[i]:layers[i+1]`` is layer i) and its edges by
    source (``succ[off[v]:off[v+1]]`` are v's successors, ``weight`` their edges' ``turns``)."""

    nodes: list
    index: dict
    layers: np.ndarray
    off: np.ndarray
    succ: np.ndarray
    weight: np.ndarray

    @classmethod
    def of(cls, G: nx.DiGraph, weight: str = "turns") -> "Layered":
        nodes, layers = layer_order(G)
        index = {n: i for i, n in enumerate(nodes)}
        succ, w, deg = [], [], []
        for n in nodes:
            nbrs = G.succ[n]
            deg.append(len(nbrs))
            for s, d in nbrs.items():
                succ.append(index[s])
                w.append(d.get(weight, 1))
        off = np.zeros(len(nodes) + 1, np.int64)
        np.cumsum(deg, out=off[1:])
        return cls(nodes, index, layers, off, np.array(succ, np.int64), np.array(w, np.int64))

    def __len__(self) -> int:
        return len(self.nodes)

    def ends(self) -> np.ndarray:
        """The nodes with no successor."""
        return np.flatnonzero(self.off[1:] == self.off[:-1])


def layer_order(G: nx.DiGraph) -> tuple[list, np.ndarray]:
    """The nodes in layer order, a topological order, and where each layer starts (then the
    number of nodes).  A sort by the ``count`` attribute is several times quicker than
    networkx's topological sort on the perfect-play graph's 172,000 states."""
    counts = dict(G.nodes(data="count"))
    if None in counts.values():  # not a state graph: networkx's layers
        layers = list(nx.topological_generations(G))
        sizes = [len(layer) for layer in layers]
        return [n for layer in layers for n in layer], np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    nodes = sorted(counts, key=counts.__getitem__, reverse=True)
    c = np.array([counts[n] for n in nodes], np.int64)
    return nodes, np.concatenate([[0], np.flatnonzero(c[1:] != c[:-1]) + 1, [len(c)]]).astype(np.int64)


def path_sums(a: Layered, end_values: np.ndarray, weighted: bool) -> np.ndarray:
    """For every node, the sum over its paths to an end of that end's value (times the product
    of the edges' weights when ``weighted``): with 1 at every end, the number of paths.  Exact:
    int64 where that cannot overflow, Python integers where it could."""
    approx = _sweep_back(a, end_values.astype(np.float64), weighted)
    dtype = np.int64 if approx.max(initial=0.0) < INT64_SAFE else object
    return _sweep_back(a, end_values.astype(dtype), weighted)


def _sweep_back(a: Layered, end_values: np.ndarray, weighted: bool) -> np.ndarray:
    v = np.zeros(len(a), end_values.dtype)
    ends = a.ends()
    v[ends] = end_values[ends]
    for i in range(len(a.layers) - 2, -1, -1):  # the last layer's nodes are all ends
        lo, hi = a.layers[i], a.layers[i + 1]
        e0, e1 = a.off[lo], a.off[hi]
        if e0 == e1:
            continue
        part = v[a.succ[e0:e1]]
        if weighted:
            part = part * a.weight[e0:e1].astype(v.dtype)
        starts = a.off[lo:hi]
        inner = starts != a.off[lo + 1:hi + 1]  # nodes with a successor
        # reduceat sums each run from one start to the next: only the non-empty runs are given
        v[lo:hi][inner] = np.add.reduceat(part, starts[inner] - e0)
    return v


def dominator_chains(a: Layered, keep: np.ndarray) -> np.ndarray:
    """Each kept node's dominators from the first node (the start, alone in the first layer):
    row v holds them by depth in the dominator tree, then -1.  Only kept nodes and edges between
    them count; every predecessor of a kept node must be kept.

    A node's immediate dominator is the deepest node its predecessors' chains share, and the
    chains agree up to some depth and not after, so it is read off the segment minima and maxima
    of the predecessors' rows, a layer at a time."""
    n = len(a)
    depth = len(a.layers)  # a chain gains at most a node a layer
    chains = np.full((n, depth), -1, np.int64)
    chains[0, 0] = 0
    src = np.repeat(np.arange(n), np.diff(a.off))
    ok = keep[src] & keep[a.succ]
    by_dst = np.argsort(a.succ[ok], kind="stable")
    dst, src = a.succ[ok][by_dst], src[ok][by_dst]
    for i in range(1, len(a.layers) - 1):
        lo, hi = a.layers[i], a.layers[i + 1]
        e0, e1 = np.searchsorted(dst, [lo, hi])
        if e0 == e1:
            continue
        d = dst[e0:e1]
        first = np.concatenate([[True], d[1:] != d[:-1]])
        v = d[first]
        chains[v] = _extend(chains, common_chain(chains[src[e0:e1]], np.flatnonzero(first)), v)
    return chains


def common_chain(rows: np.ndarray, starts=None) -> np.ndarray:
    """The chain shared by all ``rows`` (by runs from each of ``starts`` when given): equal
    entries up to the first disagreement, then -1."""
    if starts is None:
        starts = np.zeros(1, np.int64)
    lo, hi = np.minimum.reduceat(rows, starts, axis=0), np.maximum.reduceat(rows, starts, axis=0)
    same = np.logical_and.accumulate((lo == hi) & (lo >= 0), axis=1)
    return np.where(same, lo, -1)


def _extend(chains: np.ndarray, shared: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``shared`` chains with each node of ``v`` added after its last entry."""
    out = shared.copy()
    out[np.arange(len(v)), (shared >= 0).sum(axis=1)] = v
    return out
