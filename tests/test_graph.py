"""The state graph against a brute-force enumeration of every game with the reference engine."""

import time

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fci_solver import graph as g
from fci_solver import rules
from fci_solver.layered import Layered, common_chain, dominator_chains
from fci_solver.bitboard.codec import key_of

from helpers import CARDS, COMPILE, board, slow_first_load

SMALL = [
    board("9 8 7\n6 5 .", sea="shark"),
    board("4 3 2\n1 0 .", sea="none"),
    board("12 10 9\n. 8 11", sea="whale"),
    board("7 5 4 3", sea="none", margin=1),
]


def brute_force(pos, target):
    """Every complete game as a list of state keys (all distinct-state sequences), and turn-sequence counts."""
    games = []

    def walk(p, path):
        succ = rules.successors(p, CARDS)
        if not succ:
            games.append((path, len(p)))
            return
        for key, (_, q) in succ.items():
            walk(q, path + [key_of(q)])

    def turn_sequences(p):
        total = wins = 0
        any_turn = False
        for _, q in rules.turns(p, CARDS):
            any_turn = True
            t, w = turn_sequences(q)
            total += t
            wins += w
        if not any_turn:
            return 1, int(len(p) <= target)
        return total, wins

    walk(pos, [key_of(pos)])
    return games, turn_sequences(pos)


@pytest.mark.parametrize("pos", SMALL)
def test_path_counts_and_critical_states_match_brute_force(pos):
    target = 1
    G = g.build_graph(pos, CARDS)
    games, (tseq, twins) = brute_force(pos, target)
    wins = [path for path, n in games if n <= target]
    paths = g.path_counts(G, target)
    assert paths["complete_games"] == len(games)
    assert paths["winning_lines"] == len(wins)
    assert (paths["turn_sequences"], paths["winning_turn_sequences"]) == (tseq, twins)
    expected = set.intersection(*(set(map(g.node_id, p)) for p in wins)) if wins else set()
    assert set(g.critical_states(G, target)) == expected
    assert G.nodes[g.root(G)]["min_result"] == min(n for _, n in games)


@pytest.mark.parametrize("pos", SMALL)
def test_states_by_stacks_left_are_a_topological_order(pos):
    # every turn eats, so a next state has fewer stacks than the state before it
    G = g.build_graph(pos, CARDS, labels=False)
    at = {n: i for i, n in enumerate(g.turn_order(G))}
    assert len(at) == G.number_of_nodes() and all(at[a] < at[b] for a, b in G.edges)
    plain = nx.DiGraph([("c", "b"), ("b", "a")])  # no counts: networkx's order
    assert g.turn_order(plain) == ["c", "b", "a"]


def test_random_play_chance_on_a_hand_counted_position():
    # 4 3 2 on a row, margin 0, plain rules. 4 eats 3 and lands next to 2, then eats it: 1 left.
    # 3 eats 2 and lands away from 4: 2 left. Two first turns, one wins.
    pos = board("4 3 2", sea="none", margin=0)
    G = g.build_graph(pos, CARDS.plain())
    assert g.random_play_win_chance(G, 1) == 0.5
    assert g.line_lengths(G, 1) == (2, 2)


@pytest.mark.parametrize("ext", g.FORMATS)
def test_export_round_trip(tmp_path, ext):
    G = g.build_graph(SMALL[0], CARDS)
    path = str(tmp_path / f"graph.{ext}")
    g.write_graph(G, path)
    back = {"graphml": nx.read_graphml, "gexf": nx.read_gexf, "dot": g.read_dot}[ext](path)
    assert (back.number_of_nodes(), back.number_of_edges()) == (G.number_of_nodes(), G.number_of_edges())
    n = g.root(G)
    assert int(back.nodes[n]["min_result"]) == G.nodes[n]["min_result"]


@pytest.mark.parametrize("ext", g.FORMATS)
def test_a_write_cut_short_leaves_the_earlier_file_whole(tmp_path, monkeypatch, ext):
    # a large graph takes seconds to write: a Ctrl-C (or a full disk) halfway must not leave half
    # a file where a whole one was
    from fci_solver.interrupt import Interrupted

    G = g.build_graph(SMALL[0], CARDS)
    path = tmp_path / f"graph.{ext}"
    path.write_text("the earlier graph")
    path.chmod(0o640)

    def cut_short(G, part, *a, **k):
        with open(part, "w") as f:
            f.write("<graphml><node")
        raise Interrupted

    monkeypatch.setattr(nx, "write_graphml", cut_short)
    monkeypatch.setattr(nx, "write_gexf", cut_short)
    monkeypatch.setattr(g, "write_dot", cut_short)
    with pytest.raises(Interrupted):
        g.write_graph(G, str(path))
    assert path.read_text() == "the earlier graph" and [f.name for f in tmp_path.iterdir()] == [path.name]
    monkeypatch.undo()
    g.write_graph(G, str(path))  # a whole write replaces it, with the file's mode
    assert path.read_text() != "the earlier graph" and path.stat().st_mode & 0o777 == 0o640
    assert [f.name for f in tmp_path.iterdir()] == [path.name]


def test_node_cap_gives_a_clear_error():
    from fci_solver.errors import FciError

    with pytest.raises(FciError, match="more than 10 states"):
        g.build_graph(SMALL[0], CARDS, max_nodes=10)


@pytest.mark.parametrize("pos", SMALL)
def test_fast_dag_walk_agrees_with_the_graph(pos):
    from fci_solver.bitboard.dag import dag_stats

    G = g.build_graph(pos, CARDS, labels=False)
    for target in (1, 2):
        fast = dag_stats(pos, CARDS, target)
        # the walk skips states whose lower bound exceeds the target, but never one that can win
        winnable = sum(1 for n in G if G.nodes[n]["min_result"] <= target)
        assert fast["states"] >= winnable
        if not pos.whale:  # (with the Whale it also counts after-Whale half-steps)
            assert fast["states"] <= G.number_of_nodes()
        assert abs(fast["random_win_chance"] - float(g.random_play_win_chance(G, target))) < 1e-12
        lengths = g.line_lengths(G, target)
        assert (fast["shortest_win"], fast["longest_win"]) == (lengths if lengths else (None, None))


# -- the graph of perfect play ----------------------------------------------------------------

@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("pos", SMALL)
def test_perfect_play_graph_is_the_full_graph_cut_to_perfect_positions(pos, jobs):
    from fci_solver import optimal as o

    full = g.build_graph(pos, CARDS)
    m = full.nodes[g.root(full)]["min_result"]
    keep = {n for n in full if full.nodes[n]["min_result"] == m}
    reached = nx.descendants(full.subgraph(keep), g.root(full)) | {g.root(full)}
    G = o.optimal_graph(pos, CARDS, jobs=jobs)  # threads settle the next positions; same graph
    assert set(G) == reached
    assert set(G.edges) == set(full.subgraph(reached).edges)
    for n in G:
        assert G.nodes[n]["options"] == full.out_degree(n)
        assert G.nodes[n]["keeping"] == sum(full.nodes[s]["min_result"] == m for s in full.successors(n))


def test_the_threads_table_grows_between_slices_and_the_graph_is_the_same(monkeypatch):
    # the settling threads' shared table starts small and grows 4x, between two slices, once
    # half full, into a table made while they searched: the graph is the one a single thread builds
    from fci_solver import optimal as o
    from fci_solver.bitboard import search as bs

    pos = SMALL[1]
    one = o.optimal_graph(pos, CARDS, jobs=1)
    sizes = []
    grow = bs.BitboardSolver._grow_shared

    def spy(solver, workers):
        spare = solver._spare  # made while the threads searched the old table
        assert spare is not None
        grow(solver, workers)
        sizes.append(solver.table.shape[0])
        assert solver.table is spare and solver._spare is None
        assert all(s.table is solver.table for _, s in workers)

    o.load_kernels()  # the loader builds a graph itself: not with the spy and sizes below
    monkeypatch.setattr(bs.BitboardSolver, "_grow_shared", spy)
    monkeypatch.setattr(bs, "INITIAL_ENTRIES", 64)
    monkeypatch.setattr(o, "START_ENTRIES", 64)
    monkeypatch.setattr(o, "SLICE", 16)
    G = o.optimal_graph(pos, CARDS, jobs=2)
    assert sizes[:2] == [256, 1024]
    assert set(G.edges) == set(one.edges)
    assert all(G.nodes[n] == one.nodes[n] for n in one)


def test_the_threads_take_smaller_runs_of_keys_as_the_end_nears():
    # guided scheduling: runs of at most BATCH keys, shrinking to one key at the end, so that
    # no thread waits long on the other's last hard refutation
    from fci_solver import optimal as o

    for n in (1, 7, 100, 5000):
        left, runs = n, []
        while left > 0:
            runs.append(o._run_size(left, 2))
            left -= runs[-1]
        assert sum(runs) == n and max(runs) <= o.BATCH
        assert runs == sorted(runs, reverse=True) and runs[-1] == 1
    assert o._run_size(100, 1) == o.BATCH  # one thread: no end to balance


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_perfect_play_graph_says_what_it_cost(jobs):
    # every state is counted once: the minimum's proof, then the settling of each turn's next
    # positions, whichever thread searched it; every distinct next position is settled once
    from fci_solver import optimal as o

    pos = SMALL[0]
    full = g.build_graph(pos, CARDS)
    G = o.optimal_graph(pos, CARDS, jobs=jobs)
    stats = o.analyse(G)["stats"]
    by_turn = [row["states"] for row in o.width_by_turn(G)]
    assert sum(by_turn) > 0 and stats["minimum_states"] > 0
    assert stats["states"] == stats["minimum_states"] + sum(by_turn)
    assert stats["settled"] == len({s for n in G for s in full.successors(n)})
    assert stats["seconds"] > 0


def test_a_first_build_leaves_the_compile_out_of_its_seconds(monkeypatch):
    # a first run's build said "Searched 1,059 states in 25.5 s" for 0.1 s of searching: its
    # kernels compiled inside it.  They now compile (or load) before its clock starts, and the
    # time is counted as the solve's compile is
    from fci_solver import optimal as o
    from fci_solver.bitboard import search as bs

    before = slow_first_load(monkeypatch, o)
    G = o.optimal_graph(SMALL[0], CARDS)
    assert G.graph["seconds"] < COMPILE <= bs.compile_seconds - before


def test_the_graph_kernels_loader_builds_a_graph_and_grows_a_map(monkeypatch):
    from fci_solver import optimal as o
    from fci_solver.bitboard.keymap import KeyMap

    builds, growths = [], []
    monkeypatch.setattr(o, "_loaded", __import__("threading").Event())
    real_build, real_grow = o.optimal_graph, KeyMap._grow
    monkeypatch.setattr(o, "optimal_graph", lambda *a, **k: builds.append(k) or real_build(*a, **k))
    monkeypatch.setattr(KeyMap, "_grow", lambda self: growths.append(1) or real_grow(self))
    o.load_kernels()
    o.load_kernels()  # once per process
    assert builds == [{"jobs": 2}] and growths


@pytest.mark.parametrize("pos", SMALL)
def test_perfect_lines_and_critical_positions_match_brute_force(pos):
    from fci_solver import optimal as o

    games, _ = brute_force(pos, 1)
    m = min(n for _, n in games)
    perfect = [path for path, n in games if n == m]
    G = o.optimal_graph(pos, CARDS)
    assert o.perfect_lines(G)["positions"] == len(perfect)
    common = set(perfect[0]).intersection(*map(set, perfect))
    assert {tuple(int(x, 16) for x in c.split(":")) for c in o.critical_positions(G)} == common
    # every node's position, solved on its own, has the root's minimum
    from fci_solver.position import parse_position_text
    from fci_solver.search import solve

    for n in list(G)[:20]:
        assert solve(parse_position_text(G.nodes[n]["position"]), CARDS).min_remaining == m


@pytest.mark.parametrize("pos", SMALL)
def test_size_at_least_counts_only_perfect_play_positions(pos):
    from fci_solver import optimal as o

    G = o.optimal_graph(pos, CARDS)
    whole = o.size_at_least(pos, CARDS, cap=10**6, budget=10**6)
    assert whole.exact and set(map(g.node_id, whole.found)) == set(G)
    # a budget of one state leaves most next positions unsettled: fewer positions, all in the graph
    few = o.size_at_least(pos, CARDS, cap=10**6, budget=1)
    assert set(map(g.node_id, few.found)) <= set(G)
    assert few.exact == (few.unresolved == 0)
    assert len(few.found) < len(G) or few.exact
    # budgets raised 1, 4, 16, ... until every next position is settled: the whole graph again
    ladder = o.size_at_least(pos, CARDS, cap=10**6, budget=1, max_budget=10**6)
    assert ladder.exact and ladder.found == whole.found and ladder.budget > 1


def test_size_at_least_stops_past_the_cap():
    from fci_solver import optimal as o
    from fci_solver.position import Deal

    pos = Deal.random("standard", 2).position(2, False, False)
    b = o.size_at_least(pos, CARDS, cap=50, budget=200)
    assert b.over_cap and len(b.found) > 50 and not b.exact and b.minimum == 1


def test_size_at_least_stops_at_the_deadline():
    from fci_solver import optimal as o
    from fci_solver.position import Deal

    pos = Deal.random("standard", 1).position(2, False, False)
    t = time.perf_counter()
    b = o.size_at_least(pos, CARDS, cap=10**7, budget=200, max_budget=10**7, deadline=t + 1)
    assert time.perf_counter() - t < 10
    assert not b.exact and not b.over_cap and len(b.found) > 1


def test_perfect_play_graph_cap_gives_partial_counts():
    from fci_solver import optimal as o

    whole = o.optimal_graph(SMALL[1], CARDS)
    with pytest.raises(o.CapReached, match=r"more than 5 positions; raise --max-nodes \(\d+ positions? expanded, \d+ found") as e:
        o.optimal_graph(SMALL[1], CARDS, max_nodes=5)
    c = e.value.counts
    assert c["reason"] == "cap" and c["found"] > 5 and c["expanded"] >= 1
    # the partial graph holds only expanded positions, each with the counts of the whole graph
    part = e.value.partial
    assert part.number_of_nodes() == c["expanded"]
    stats = e.value.stats
    assert stats["settled"] == c["settled"]
    assert stats["states"] == stats["minimum_states"] + sum(part.graph["settle_states"].values())
    for n, d in part.nodes(data=True):
        assert (d["options"], d["keeping"]) == (whole.nodes[n]["options"], whole.nodes[n]["keeping"])


@pytest.mark.parametrize("pos", SMALL)
def test_the_full_graph_lists_each_states_next_states_as_the_engine_does(pos):
    # the graph lists a run of states' turns in one kernel call; its edges (and so an export's
    # order) still come as the engine's turn counts list them, each with its number of turns
    from fci_solver.bitboard.engine import Engine

    G = g.build_graph(pos, CARDS)
    eng = Engine(pos.board, CARDS)
    for n in G:
        key = tuple(int(x, 16) for x in n.split(":"))
        want = [(g.node_id(ch), m) for ch, m in eng.turn_counts(key).items()]
        assert [(ch, d["turns"]) for ch, d in G.succ[n].items()] == want


def test_perfect_play_graph_cap_stops_within_a_turn():
    # the deal's first turn alone keeps more than 50 positions: the build stops inside turn 2's
    # settling, long before the (large) graph of a full deal would be done
    from fci_solver import optimal as o
    from fci_solver.position import Deal

    pos = Deal.random("standard", 2).position(2, False, False)
    with pytest.raises(o.CapReached) as e:
        o.optimal_graph(pos, CARDS, max_nodes=50)
    assert e.value.counts["expanded"] == 1 and e.value.counts["turn"] == 2


def test_perfect_play_graph_cap_stops_the_slice_being_settled(monkeypatch):
    # the next slice's positions are settled on another thread while this one is added to the
    # graph: when the cap is reached there, that settling stops too instead of running to its end.
    # Here each settling waits until the build either asks for its answers or stops, so the one
    # under way when the cap is met is known, whatever the timing.
    import threading

    from fci_solver import optimal as o

    asked = [threading.Event() for _ in range(1000)]
    calls, ended = [0], []
    settle, collect = o._settle, o._Build._collect

    def waiting(workers, *args, **kw):
        i = calls[0]
        calls[0] += 1
        stop = workers[0][1].cancel
        for _ in range(100):  # 10 s at most
            if asked[i].wait(0.1) or stop.is_set():
                break
        try:
            out = settle(workers, *args, **kw)
        except o._OutOfTime:
            ended.append("stopped")
            raise
        ended.append("done")
        return out

    def asking(self, future, m):
        asked[len(ended)].set()
        return collect(self, future, m)

    o.load_kernels()  # the loader builds a graph itself: its slices are not the ones counted here
    monkeypatch.setattr(o, "_settle", waiting)
    monkeypatch.setattr(o._Build, "_collect", asking)
    monkeypatch.setattr(o, "SLICE", 8)  # a position a slice: turn 2's 89 positions, 89 slices
    with pytest.raises(o.CapReached):
        o.optimal_graph(SMALL[1], CARDS, max_nodes=200)  # 1 + 89 positions to turn 1, 932 kept after turn 2
    assert ended[-1] == "stopped" and ended.count("stopped") == 1 and "done" in ended


@pytest.mark.parametrize("stop, raised", [("clock", "OutOfTime"), ("ctrl-c", "Stopped")])
@pytest.mark.parametrize("share", ["all", "half"])
def test_a_build_stopped_while_a_slice_is_settled_keeps_what_it_settled(monkeypatch, stop, raised, share):
    # A slice early in a deal can take minutes.  When the clock runs out (or Ctrl-C comes) while
    # it is being settled, the next positions settled so far are kept and counted, and a position
    # of the slice whose next positions are all settled is added to the graph.  Here the fourth
    # settling (turn 2's third position: one position a slice) settles all or half of its next
    # positions and then stops.
    from fci_solver import optimal as o
    from fci_solver.interrupt import Interrupted

    whole = o.optimal_graph(SMALL[1], CARDS)
    settle, sizes = o._settle, []

    def stopping(workers, keys, m, tick=None, deadline=None, out=None):
        sizes.append(len(keys))
        if len(sizes) < 4:
            return settle(workers, keys, m, tick, deadline, out)
        h = len(keys) if share == "all" else len(keys) // 2
        settle(workers, keys[:h], m, None, None, out[:h])
        raise o._OutOfTime if stop == "clock" else Interrupted

    o.load_kernels()  # the loader builds a graph itself: its slices are not the ones counted here
    monkeypatch.setattr(o, "_settle", stopping)
    monkeypatch.setattr(o, "SLICE", 8)  # a position a slice
    with pytest.raises(getattr(o, raised)) as e:
        o.optimal_graph(SMALL[1], CARDS, max_nodes=10**6)
    c = e.value.counts
    kept = sum(sizes[:3]) + (sizes[3] if share == "all" else sizes[3] // 2)
    assert c["settled"] == e.value.stats["settled"] == kept
    # the start and turn 2's first two positions, and the third once all its next positions are in
    assert c["expanded"] == (4 if share == "all" else 3)
    for n, d in e.value.partial.nodes(data=True):
        assert (d["options"], d["keeping"]) == (whole.nodes[n]["options"], whole.nodes[n]["keeping"])
        assert set(e.value.found.succ[n]) == set(whole.succ[n])


def test_a_ctrl_c_before_any_position_is_expanded_still_reports_the_starts_minimum(monkeypatch):
    # with the Whale, the start's first slice (854,053 next positions on a standard deal) takes
    # minutes: a Ctrl-C there printed only "interrupted", and the minimum proven was lost
    from fci_solver import optimal as o
    from fci_solver.interrupt import Interrupted

    whole = o.optimal_graph(SMALL[1], CARDS)

    def interrupted(*args, **kwargs):
        raise Interrupted

    monkeypatch.setattr(o, "_settle", interrupted)
    with pytest.raises(o.Stopped, match=r"stopped by Ctrl-C \(0 positions expanded, 1 found") as e:
        o.optimal_graph(SMALL[1], CARDS)
    assert o.partial_report(e.value)["minimum"] == whole.graph["minimum"] == 1


def test_a_slow_slice_reports_progress_with_the_states_searched_while_it_is_settled(monkeypatch):
    # the start's next positions, each an exact search, gave no progress line for minutes
    from fci_solver import optimal as o

    o.load_kernels()
    settle, calls = o._settle, []

    def slow(*args, **kwargs):
        time.sleep(0.3)
        return settle(*args, **kwargs)

    monkeypatch.setattr(o, "_settle", slow)
    monkeypatch.setattr(o, "PROGRESS_WAIT", 0.05)
    G = o.optimal_graph(SMALL[1], CARDS, progress=lambda settled, states: calls.append((settled, states)))
    waiting = [c for c in calls if c[0] == 0]
    assert len(waiting) >= 3 and all(states >= 0 for _, states in calls)
    assert [n for n, _ in calls] == sorted(n for n, _ in calls) and calls[-1] == (G.graph["settled"], G.graph["states"])


def test_perfect_play_graph_time_limit_gives_partial_counts():
    from fci_solver import optimal as o
    from fci_solver.position import Deal

    pos = Deal.random("standard", 13).position(2, False, False)
    t = time.perf_counter()
    with pytest.raises(o.OutOfTime, match="the time limit ran out") as e:
        o.optimal_graph(pos, CARDS, max_nodes=10**7, time_limit=0.5)
    assert time.perf_counter() - t < 20  # stops at the first look at the clock after 0.5 s
    assert e.value.counts["reason"] == "time"
    assert o.partial_report(e.value)["complete"] is False


def test_graph_optimal_stops_at_a_default_time_limit(monkeypatch, capsys):
    # a full deal's perfect-play graph can take days: without --time-limit the command still
    # stops (after 600 s; here the default is shortened) with the partial counts, exit 3
    import json

    from fci_solver import cli as c

    monkeypatch.setattr(c, "OPTIMAL_TIME_LIMIT", 0.5)
    with pytest.raises(SystemExit) as e:
        c.main(["graph", "--optimal", "--random", "--seed", "13", "--sea", "none", "--json", "-q"])
    assert e.value.code == 3
    d = json.loads(capsys.readouterr().out)
    assert d["complete"] is False and d["reason"] == "time"


def test_a_stopped_perfect_play_graph_is_written_with_every_position_it_found(tmp_path, capsys):
    # a build stopped by the cap (or the clock) after hours of settling still writes --out: the
    # positions expanded, with their counts, and the keeping next positions found from them
    import json

    from fci_solver import cli as c, optimal as o
    from fci_solver.position import parse_position_text, position_text

    whole = o.optimal_graph(SMALL[1], CARDS)
    start = tmp_path / "start.txt"
    start.write_text(position_text(SMALL[1]))
    out = str(tmp_path / "part.graphml")
    with pytest.raises(SystemExit) as e:
        c.main(["graph", "--optimal", "--position", str(start), "--max-nodes", "5", "--out", out, "--json", "-q"])
    assert e.value.code == 3
    d = json.loads(capsys.readouterr().out)
    assert d["complete"] is False and d["written"] == out
    back = nx.read_graphml(out)
    assert back.number_of_nodes() == d["found"] and d["found"] > d["expanded"] >= 1
    expanded = [n for n, a in back.nodes(data=True) if a["expanded"]]
    assert len(expanded) == d["expanded"]
    for n in expanded:  # an expanded position has all its keeping turns, as in the whole graph
        assert set(back.succ[n]) == set(whole.succ[n])
        assert back.nodes[n]["keeping"] == whole.nodes[n]["keeping"]
    for n, a in back.nodes(data=True):  # each one a perfect-play position, described as the whole graph's
        assert n in whole and key_of(parse_position_text(a["position"])) == tuple(int(x, 16) for x in n.split(":"))
        assert a["depth"] == whole.nodes[n]["depth"] and a["label"] == whole.nodes[n]["label"]
    assert all(back.edges[u, v]["turn"] for u, v in back.edges)


@pytest.mark.parametrize("ext", g.FORMATS)
def test_every_exported_node_has_a_position_and_a_label(tmp_path, ext):
    from fci_solver import optimal as o
    from fci_solver.position import parse_position_text

    G = o.optimal_graph(SMALL[0], CARDS)
    path = str(tmp_path / f"perfect.{ext}")
    g.write_graph(G, path)
    assert G.graph["settle_states"]  # left out of the file (no format holds a mapping), kept in the graph
    back = {"graphml": nx.read_graphml, "gexf": nx.read_gexf, "dot": g.read_dot}[ext](path)
    for n in back:
        pos = parse_position_text(back.nodes[n]["position"])
        assert key_of(pos) == tuple(int(x, 16) for x in n.split(":"))
        assert back.nodes[n]["label"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=16, max_size=16), st.randoms(),
       st.integers(0, 31))
def test_any_key_is_described_as_its_position_is_written(tops, rnd, meta):
    # the node's text is joined from pieces made once per board: it must still be the text
    # position_text and node_label write, for any tops, cells, sea animals and effect
    from fci_solver.bitboard.codec import position_of
    from fci_solver.position import position_text

    b = board("1 2\n3 4", margin=2).board
    cells = rnd.sample(range(b.n_rows * b.n_cols), 16)
    k = [0, 0]
    for card, (on, stacked) in enumerate(tops):
        if on:
            k[card // 8] |= (1 + 2 * cells[card] + stacked) << (8 * (card % 8))
    key = (k[0], k[1], meta)  # shark, whale and any of the 7 effects (or none)
    back = position_of(b, key)
    attrs = g.node_attributes(b, key, 2)
    assert attrs["position"] == position_text(back) and attrs["label"] == g.node_label(back)
    assert attrs["count"] == len(back) and attrs["pending"] == (back.pending or "")
    assert attrs["stacks"] == " ".join(f"{b.name(s.cell)}={s.card}{'*' if s.stacked else ''}" for s in back.stacks)


@pytest.mark.parametrize("pos", [
    board("15 14:2 13\n. 12 11\n10 9 .", sea="both", pending="fox"),
    board("3 . 7:2\n. 5 .", sea="shark", margin=2),
    board("0 1 2 3 4 5 6 7 8 9", sea="whale", pending="raccoon", margin=0),
])
def test_a_node_is_described_as_its_position_is_written(pos):
    # node_attributes reads the key's bytes; the text must be the position's own
    from fci_solver.bitboard.codec import position_of
    from fci_solver.position import position_text

    key = key_of(pos)
    back = position_of(pos.board, key)  # heights as a key keeps them: 1 or 2
    assert g.node_attributes(pos.board, key, 4) == {
        "stacks": " ".join(f"{pos.board.name(s.cell)}={s.card}{'*' if s.stacked else ''}" for s in back.stacks),
        "shark": back.shark, "whale": back.whale, "pending": back.pending or "", "count": len(back), "depth": 4,
        "position": position_text(back), "label": g.node_label(back),
    }


def diamonds(n: int, turns: int, counts: bool = True) -> nx.DiGraph:
    """s0 -> a0, b0 -> s1 -> ... -> sn: 2^n lines, every edge ``turns`` ways to play.

        s0 ─┬─ a0 ─┬─ s1 ─┬─ a1 ─┬─ s2 ...
            └─ b0 ─┘      └─ b1 ─┘
    """
    G = nx.DiGraph(root="s0")
    for i in range(n):
        for mid in (f"a{i}", f"b{i}"):
            G.add_edge(f"s{i}", mid, turns=turns)
            G.add_edge(mid, f"s{i + 1}", turns=turns)
    for v in G:
        kind, i = v[0], int(v[1:])
        G.nodes[v].update(min_result=1, count=3 * n - 2 * i - (kind != "s") + 1)
    if not counts:
        for v in G:
            del G.nodes[v]["count"]
    return G


def test_path_counts_stay_exact_past_64_bits():
    G = diamonds(70, 3)
    end = G.nodes["s70"]["count"]
    assert g.path_counts(G, target=end) == {"winning_lines": 2 ** 70, "complete_games": 2 ** 70,
                                         "winning_turn_sequences": 18 ** 70, "turn_sequences": 18 ** 70}
    assert g.path_counts(G, target=end - 1)["winning_lines"] == 0
    assert g.critical_states(G, target=end) == [f"s{i}" for i in range(71)]


def test_critical_states_of_a_graph_without_stack_counts_follow_its_generations():
    # layers from networkx's topological generations; only the diamonds' joins are critical
    G = diamonds(4, 1, counts=False)
    G.add_edge("a1", "s3", turns=1)  # a way round s2: it is no longer on every line
    wins = ["s4"]
    a = Layered.of(G)
    chain = common_chain(dominator_chains(a, np.ones(len(a), bool))[[a.index[w] for w in wins]])[0]
    assert [a.nodes[i] for i in chain[chain >= 0]] == ["s0", "s1", "s3", "s4"]
    assert nx.immediate_dominators(G, "s0")["s3"] == "s1"
