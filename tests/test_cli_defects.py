"""Defects a newcomer met, each pinned so that it cannot come back.

The process-level ones (closed streams, a full disk, Ctrl-C) run ``fci`` as a user does, in a
subprocess; the rest call ``main`` in-process and read the one-line error it prints.
"""

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from fci_solver import interrupt
from fci_solver.cli import main
from fci_solver.position import Deal
from fci_solver.search import solve

from helpers import CARDS, board

FCI = [sys.executable, "-c", "from fci_solver.launch import main; main()"]  # what the fci command runs


def run(args, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    return subprocess.run(FCI + args, stderr=subprocess.PIPE, text=True, timeout=120, **kw)


def one_line_error(r, status=2):
    assert r.returncode == status, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    return r.stderr


@pytest.mark.parametrize("args", [["solve", "--position", "-"], ["replay", "-"], ["play", "--random", "--seed", "3"]])
def test_a_closed_standard_input_is_a_one_line_error(args):
    err = one_line_error(run(args, stdin=None, preexec_fn=lambda: os.close(0)))
    assert "standard input is closed" in err


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_a_full_disk_is_a_one_line_error(extra):
    with open("/dev/full", "w") as full:
        err = one_line_error(run(["solve", "--random", "--seed", "1", "--sea", "none", "-q"] + extra, stdout=full))
    assert "cannot write the output" in err


@pytest.mark.parametrize("command", ["solve", "grade", "perft"])
def test_more_memory_than_the_machine_has_is_a_one_line_error(command):
    # tables and sets grow as they fill: a budget past the machine's memory let the system kill
    # the process mid-search instead of saying so
    from fci_solver.bitboard.memory import machine_bytes

    too_much = (machine_bytes() >> 20) + 1
    err = one_line_error(run([command, "--random", "--seed", "1", "--memory", str(too_much)]))
    assert f"Invalid value for '--memory': {too_much} is not in the range" in err


def test_a_graph_cap_past_the_machines_memory_is_a_one_line_error():
    # the error of a capped graph says "raise --max-nodes"; raised past the memory (about 2 KiB a
    # state), the build was killed by the system minutes later
    from fci_solver.bitboard.memory import machine_bytes

    n = machine_bytes() // 1024
    err = one_line_error(run(["graph", "--random", "--seed", "1", "--max-nodes", str(n)]))
    assert f"{n:,} states would take about" in err and "more than half of this machine's memory" in err


@pytest.mark.parametrize("doc", ["{}", "[]", '{"rows": [{"layout": "standard"}]}'])
def test_a_compare_file_that_is_not_a_bench_run_is_refused_before_the_bench(tmp_path, doc):
    # {} ran the whole suite and compared nothing; [] ran it and ended in a traceback
    f = tmp_path / "before.json"
    f.write_text(doc)
    err = one_line_error(run(["bench", "--compare", str(f)]))
    assert "is not a run of fci bench --json" in err


def test_a_closed_standard_output_fails_instead_of_losing_the_answer():
    r = subprocess.run(FCI + ["solve", "--random", "--seed", "1"], stderr=subprocess.PIPE, text=True, timeout=120,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode != 0 and "standard output is closed" in r.stderr


def test_the_reference_engine_honours_its_time_limit_with_the_whale():
    # the deal's first position has hundreds of thousands of Whale turns to list (221 s before)
    pos = Deal.random("standard", 1).position(2, True, True)
    t = time.perf_counter()
    r = solve(pos, CARDS, engine="reference", time_limit=1)
    assert time.perf_counter() - t < 4 and not r.exact
    assert r.line  # a real line all the same (the first turn each time)


@pytest.mark.parametrize("args", [
    ["grade", "--random", "--seed", "1", "-q", "--jobs", "2"],  # threads
    # the effort's searches from fresh tables, from 0.2 s on (seed 13 without sea animals, 9 s when this
    # case was written, took 3.7 s once the search cut children before entering them)
    ["grade", "--random", "--seed", "2", "--sea", "both", "--quick", "-q"],
    ["solve", "--random", "--seed", "1", "--engine", "reference", "-q"],
    # ten puzzles (23 s): three took 4.5 s once grading got faster, and the Ctrl-C at 4 s met the
    # process as it exited
    ["generate", "-d", "expert", "-n", "10", "-q"],
    ["aye", "analyse", "--players", "4"],  # the full hand: minutes of kernel calls
    # two threads past their head start, on a solve of about 9 s on two threads: without abilities
    # (the beam finds the lines of the slow deals with abilities at once; seed 1600 of the standard
    # layout, cross seed 151, tower seed 24, this layout's seed 1 without abilities and then its
    # seed 4 (4.2 s) each came to end in a few seconds in turn, and a Ctrl-C as it exits finds
    # Python's own handler back: killed, not 130)
    ["solve", "--random", "--seed", "4", "--plain", "--margin", "3", "-q", "--jobs", "2"],
    ["graph", "--optimal", "--random", "--seed", "13", "--sea", "none", "-q", "--jobs", "2"],  # a table of the whole budget
    ["perft", "--random", "--seed", "7", "--sea", "shark", "--depth", "3", "--jobs", "2"],  # listers and the adder
])
def test_ctrl_c_stops_within_a_second_with_status_130(args):
    p = subprocess.Popen(FCI + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)  # past start-up, into the search
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGINT)
    t = time.perf_counter()
    _, err = p.communicate(timeout=10)
    assert time.perf_counter() - t < 1.5
    assert p.returncode == 130 and err.strip().endswith("interrupted")
    assert "Traceback" not in err


def _largest(text: str, pattern: str) -> int:
    """The largest number the pattern's group reads in ``text`` (progress lines), 0 if none."""
    return max((int(m.replace(",", "")) for m in re.findall(pattern, text)), default=0)


def ctrl_c_once(args, progressed, timeout=60):
    """Run fci, send Ctrl-C once its progress on stderr satisfies ``progressed(stderr so far)``;
    returns (exit status, stdout, stderr)."""
    p = subprocess.Popen(FCI + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        err, end = "", time.perf_counter() + timeout
        while not progressed(err) and p.poll() is None and time.perf_counter() < end:
            if select.select([p.stderr], [], [], 0.1)[0]:
                err += os.read(p.stderr.fileno(), 4096).decode()
        assert progressed(err) and p.poll() is None, err
        p.send_signal(signal.SIGINT)
        text, rest = p.communicate(timeout=30)
    finally:
        p.kill()
    return p.returncode, text, err + rest


def test_ctrl_c_during_a_perfect_play_graph_keeps_what_it_found(tmp_path):
    # minutes of settling were thrown away: a Ctrl-C now stops the build as the time limit does
    # (the report and the --out file of what was found), with status 130
    out = tmp_path / "g.graphml"
    # the deal has 100 next positions: past them, the start is in the graph and turn 2 settles
    rc, text, err = ctrl_c_once(["graph", "--optimal", "--random", "--seed", "13", "--sea", "none", "--out", str(out)],
                                lambda err: _largest(err, r"([\d,]+) next positions settled") > 100)
    assert rc == 130 and err.strip().endswith("fci: interrupted") and "Traceback" not in err
    assert "stopped by Ctrl-C" in err and f"writing what it found to {out}" in err
    assert "Not finished:" in text and f"Wrote {out}" in text
    import networkx as nx

    G = nx.read_graphml(out)
    expanded = [n for n, d in G.nodes(data=True) if d["expanded"]]
    assert G.graph["root"] in expanded and G.number_of_nodes() >= 11  # the start and its 10 keeping turns
    assert all(d["position"] for _, d in G.nodes(data=True))
    assert [f.name for f in tmp_path.iterdir()] == ["g.graphml"]  # no temporary file left


def test_ctrl_c_during_grade_prints_what_was_proven():
    # a grade stopped after seconds printed only "interrupted"; now it prints the facts proven by
    # then (the decision profile's counts as bounds), as a time limit does, with status 130
    # on one thread the profile of deal 1 takes about 10 s, half of it done when its first progress
    # line comes (after 5 s); on two it may end before that line
    rc, text, err = ctrl_c_once(["grade", "--random", "--seed", "1", "--jobs", "1"],
                                lambda err: "next positions settled" in err)
    assert rc == 130 and err.strip().endswith("fci: interrupted") and "Traceback" not in err
    assert "fci: stopped by Ctrl-C; the facts not proven by then are unknown" in err
    assert "Minimum by sea animals: none 1, shark 1, whale 1, both 1" in text
    assert "Tier: " in text and "Random player's chance: not computed (stopped by Ctrl-C)" in text
    assert "(not settled when Ctrl-C stopped it)" in text or "between" in text


def test_ctrl_c_during_generate_prints_the_puzzles_found(tmp_path):
    # a search for 40 puzzles stopped after some were found threw them all away
    rc, text, err = ctrl_c_once(["generate", "-d", "easy", "-n", "40", "--seed", "3", "--svg", str(tmp_path)],
                                lambda err: _largest(err, r"\((\d+)/40 found\)") >= 2)
    assert rc == 130 and err.strip().endswith("fci: interrupted") and "Traceback" not in err
    found = text.count("\nPuzzle ") + text.startswith("Puzzle ")
    assert 2 <= found < 40 and f"stopped by Ctrl-C with {found} of 40 puzzles found; no files written" in err
    assert "Puzzle 2: " in text and not list(tmp_path.iterdir())


def test_a_second_ctrl_c_skips_the_file_but_not_the_report(tmp_path, monkeypatch, capsys):
    from fci_solver import cli, optimal as o

    real = o.optimal_graph

    def stopped_by_ctrl_c(start, cards, max_nodes, **k):
        try:
            real(start, cards, 5, **k)
        except o.CapReached as e:
            s = o.Stopped("stopped by Ctrl-C", e.partial, {**e.counts, "reason": "interrupt"})
            s.stats, s.found, s.depth = e.stats, e.found, e.depth
            raise s from None

    def cut_short(*a, **k):
        raise interrupt.Interrupted  # the second Ctrl-C, while the file is written

    o.load_kernels()  # with the real build, before the fake one below is put in its place
    monkeypatch.setattr(o, "optimal_graph", stopped_by_ctrl_c)
    monkeypatch.setattr(cli, "_write_optimal", cut_short)
    out = tmp_path / "g.graphml"
    with pytest.raises(SystemExit) as e:
        main(["graph", "--optimal", "--layout", "six", "9", "8", "7", "6", "5", "4", "--margin", "1", "--sea", "none",
              "--out", str(out)])
    interrupt.STOP.clear()
    got = capsys.readouterr()
    assert e.value.code == 130 and got.err.strip().endswith("fci: interrupted") and f"{out} not written" in got.err
    assert "Not finished:" in got.out and "Wrote" not in got.out and not out.exists()


def test_a_ctrl_c_inside_a_held_block_is_taken_when_the_block_ends():
    # the graph of perfect play adds a slice's positions in such a block: a Ctrl-C never leaves
    # half a position in the graph it keeps
    interrupt.install()
    done = []
    try:
        with pytest.raises(interrupt.Interrupted):
            with interrupt.held():
                interrupt._handler(signal.SIGINT, sys._getframe())  # does not raise here
                done.append("the rest of the block")
        assert done == ["the rest of the block"]
    finally:
        interrupt.STOP.clear()
        interrupt._deferred.clear()


# The main thread inside compiled code for good: Python would run its signal handler only when
# the call came back (a first run compiles kernels for seconds in LLVM).
IN_COMPILED_CODE = """
from numba import njit
from fci_solver import interrupt

@njit(nogil=True)
def spin(n):
    x = 88172645463325252
    for _ in range(n):
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
    return x

spin(1)
interrupt.install()
print("in", flush=True)
spin(1 << 62)
"""

# A handler that runs inside the compiler, which goes on compiling (as llvmlite does when its
# callback raises) and never reaches a look at Ctrl-C.
IN_THE_COMPILER = """
from fci_solver import interrupt

interrupt.install()
ns = {"__name__": "numba.core.compiler_stand_in"}
exec("def compile_forever():\\n    while True:\\n        pass\\n", ns)
print("in", flush=True)
ns["compile_forever"]()
"""


# A settling thread of the perfect-play graph held where no look at Ctrl-C comes: numba compiling
# the settling kernels on a first run, seconds in LLVM, while the main thread waits for it.
IN_A_POOL_THREAD = """
import time
from fci_solver import cli, optimal

def held(*args, **kwargs):
    print("in", flush=True)
    time.sleep(60)

optimal._settle = held
cli.main(["graph", "--optimal", "--random", "--seed", "2", "--sea", "none", "-q", "--jobs", "2"])
"""


@pytest.mark.parametrize("program", [IN_COMPILED_CODE, IN_THE_COMPILER, IN_A_POOL_THREAD])
def test_ctrl_c_while_a_thread_is_in_compiled_code_or_the_compiler_ends_within_a_second(program):
    p = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() == "in\n"
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        t = time.perf_counter()
        _, err = p.communicate(timeout=5)
        assert time.perf_counter() - t < 1.0
        assert p.returncode == 130 and err.strip() == "fci: interrupted"
    finally:
        p.kill()  # a spinning program that did not stop would spin on after the test


def test_ctrl_c_during_a_hint_stops_the_hint_and_the_game_goes_on():
    # the watchdog ends only a process that did not take the Ctrl-C: fci play takes it, clears it
    # at once and carries on (on a terminal, where Ctrl-C asks before it quits)
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, FCI + ["play", "--random", "--seed", "4", "--plain"])

    def read_until(text, timeout=60):
        out, end = "", time.perf_counter() + timeout
        while text not in out and time.perf_counter() < end:
            if select.select([fd], [], [], 0.1)[0]:
                out += os.read(fd, 4096).decode(errors="replace")
        assert text in out, out
        return out

    try:
        read_until("turn> ")
        os.write(fd, b"hint\n")
        # the hint's progress line (after its first second) shows the search is under way; deal 4
        # without abilities takes seconds more (about 8 s here), so the Ctrl-C lands in the search
        read_until("hint: ")
        os.kill(pid, signal.SIGINT)
        # the best turn found by then, which the player may take or not
        assert "Hint stopped. Best turn found so far: " in read_until("best reachable")
        time.sleep(1.0)  # past the watchdog's grace
        assert os.waitpid(pid, os.WNOHANG) == (0, 0)  # still playing
        os.write(fd, b"quit\n")
        read_until("Stopped with 16 stacks.")
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)


def test_a_ctrl_c_inside_the_compiler_is_taken_at_the_next_look_not_raised_there():
    # numba, caught mid-compile, reports "no compiled object yet" for the kernel; llvmlite prints
    # a traceback from its callback and compiles on
    ns = {"__name__": "numba.core.compiler_stand_in", "handler": interrupt._handler, "sys": sys}
    exec("def compiling():\n    handler(2, sys._getframe())\n", ns)
    interrupt.install()
    try:
        ns["compiling"]()  # does not raise
        assert interrupt.STOP.is_set()
        with pytest.raises(interrupt.Interrupted):
            interrupt.check()
    finally:
        interrupt.STOP.clear()


def test_an_error_that_a_ctrl_c_caused_in_a_library_is_still_one_line_and_130(monkeypatch, capsys):
    def compile_cut_short(*a, **k):
        interrupt.STOP.set()
        raise RuntimeError("no compiled object yet for <Library 'level_children'>")

    monkeypatch.setattr("fci_solver.bitboard.perft.load_perft_kernels", compile_cut_short)
    with pytest.raises(SystemExit) as e:
        main(["perft", "--random", "--seed", "7", "--depth", "1"])
    interrupt.STOP.clear()
    assert e.value.code == 130 and capsys.readouterr().err == "fci: interrupted\n"


def _wait_until_loaded(pid: int, library: str, timeout: float = 30) -> None:
    """Wait until process ``pid`` has mapped a file whose path holds ``library``."""
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        with open(f"/proc/{pid}/maps") as f:
            if library in f.read():
                return
        time.sleep(0.002)
    raise AssertionError(f"{library} was never loaded")


def test_ctrl_c_while_the_command_is_still_starting_is_one_line_and_130():
    # the first half second imports numpy, numba and click; the signal is sent as numpy's compiled
    # core is mapped, which is after fci's entry point has run (a fixed sleep raced the
    # interpreter's own start-up on a loaded machine, where Python's default handler answers)
    p = subprocess.Popen(FCI + ["solve", "--random", "--seed", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    _wait_until_loaded(p.pid, "_multiarray_umath")
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=10)
    assert p.returncode == 130 and err.strip() == "fci: interrupted"


def test_a_capped_graph_fails_at_once_and_a_missing_folder_before_any_work(tmp_path, capsys):
    t = time.perf_counter()
    with pytest.raises(SystemExit) as e:
        main(["graph", "--random", "--seed", "1", "--max-nodes", "100", "-q"])
    assert e.value.code == 2 and time.perf_counter() - t < 5  # labels are built only for a written graph
    with pytest.raises(SystemExit) as e:
        main(["graph", "--random", "--seed", "1", "--out", str(tmp_path / "no" / "g.dot")])
    assert e.value.code == 2 and "does not exist" in capsys.readouterr().err


def test_a_cold_compile_is_announced_and_kept_out_of_the_search_seconds(monkeypatch):
    from fci_solver.bitboard import search as bs

    said = []
    monkeypatch.setattr(bs, "_loaded", type(bs._loaded)())  # as in a fresh process
    slow = bs.BitboardSolver.solve

    def compiling(self, pos):
        time.sleep(1.8)  # what a first call does while numba compiles
        return slow(self, pos)

    monkeypatch.setattr(bs.BitboardSolver, "solve", compiling)
    spent = bs.load_search_kernels(lambda: said.append("compiling"))
    assert said == ["compiling"] and spent >= 1.8
    monkeypatch.setattr(bs.BitboardSolver, "solve", slow)
    r = solve(board("9 8 7"), CARDS)
    assert r.extra["compile_seconds"] >= 1.8 > r.seconds


@pytest.mark.parametrize("args, message", [
    (["solve", "5", "-1", "0"], "cards are numbered 0 to 15; -1 is not a card"),
    (["solve", "--position", "{line}"], "this is a solution line (what fci solve --json writes), not a position"),
    (["solve", "--layout", "{two}", "1"], "has 2 cells but the deal lists 1 card"),
    (["aye", "analyse", "--players", "9"], "fci aye analyse: error"),
    (["fattest", "order", "--hand", "Bucky:99"], "Forage cards are numbered 1 to 7"),
    (["fattest", "order", "--hand", "Bucky:7,7"], "holds a Forage number twice"),
    (["fattest", "forage", "--critter", "Bucky:30", "--deck", "Trap:1"], "Bucky plays 30 Forage cards"),
    (["fattest", "forage", "--critter", "Bucky:3", "--deck", "Trap:20"], "the food deck has 12 in all"),
    (["foodfighters", "duel", "--a", "Steak>Onion", "--b", ""], "has no fighter"),
])
def test_messages_say_what_is_wrong_in_the_users_terms(tmp_path, capsys, args, message):
    line = tmp_path / "line.json"
    line.write_text(json.dumps({"layout": "standard", "deal": "0 1", "line": [], "min_remaining": 2}))
    two = tmp_path / "two.txt"
    two.write_text("XX\n")
    args = [a.replace("{line}", str(line)).replace("{two}", str(two)) for a in args]
    with pytest.raises(SystemExit) as e:
        main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_result_above_3_has_no_title_and_the_gator_is_named(capsys):
    pos = "sea: none\npending: caiman\nmargin: 0\n15 . . . 0\n"
    from click.testing import CliRunner
    from fci_solver.cli import cli

    r = CliRunner().invoke(cli, ["solve", "--position", "-", "--target", "1"], input=pos)
    assert "Minimum result: 2 (Accidental Matchmaker; a loss with target 1)" in r.output
    assert "pending: Gator (13)" in r.output and "caiman" not in r.output
    r = CliRunner().invoke(cli, ["solve", "--position", "-", "--json"], input="sea: none\nmargin: 0\n15 . 0 . 9 . 4 . 13\n")
    assert json.loads(r.stdout)["rank"] is None


def test_grid_cells_never_run_together():
    # a stack of 11 under a 12 has a five-character label
    pos = board("12:11 10:2 3")
    row = pos.grid().splitlines()[2]
    assert row.split() == ["2", ".", "12:11", "10:2", "3", "."]
    assert "*12:11" in pos.grid(highlight={(0, 0)}).replace("  ", " ")
    assert " 12:11" in pos.grid(highlight={(0, 1)})


def test_svg_labels_fit_their_cells():
    from fci_solver.svg import label_size

    for label in ("7", "10:11", "15:16"):
        width = 0.6 * len(label) * label_size(label, 30, 30 * 0.36)
        assert width <= 0.8 * 30


def test_a_progress_line_measures_the_rate_of_its_own_phase_and_says_the_time_left():
    # a grade's profile said "472/s" after 300 s, counted from the start of the grade: the three
    # minutes of the effort line before it were in the rate, and no line said how long was left
    import io

    from fci_solver.progress import Progress

    now = [0.0]
    out = io.StringIO()
    p = Progress("grade", after=0, every=0, stream=out, clock=lambda: now[0])
    now[0] = 180.0
    p(5_000, None, "states")
    p(0, None, "next positions settled", 10_000)  # the profile begins at 180 s
    now[0] = 190.0
    p(1_000, None, "next positions settled", 10_000)
    last = out.getvalue().splitlines()[-1]
    assert last == "grade: 1,000 of 10,000 next positions settled, 100/s, 190.0 s, about 2 min left"


def test_the_effort_line_reports_its_options_as_it_searches_them():
    # with both sea animals the effort line of a standard deal searched 747,596 first turns for
    # three minutes, and said nothing on stderr
    from fci_solver.grade import grade
    from fci_solver.position import Deal
    from helpers import CARDS

    reports = []
    grade(Deal.random("eight", 3).position(2, True, True), CARDS, tier_only=True,
          progress=lambda done, best, unit, total: reports.append((unit, done, total)))
    first = [(done, total) for unit, done, total in reports
             if unit == "options searched for the effort of turn 1 (within 16 states)"]
    # reported as the kernel calls end (1,000 states each): many times, up to every option
    done = [d for d, _ in first]
    assert first[-1][0] == first[-1][1] > 10_000 and len(first) > 10 and done == sorted(set(done))


def _ctrl_c_after(calls: int):
    """A progress callback that presses Ctrl-C (as the handler does: STOP set) at its ``calls``-th call."""
    seen = [0]

    def progress(*_):
        seen[0] += 1
        if seen[0] == calls:
            interrupt.STOP.set()
    return progress


def test_ctrl_c_during_a_solve_keeps_the_best_line_found():
    # Ctrl-C during fci solve printed only "interrupted"; now the solve stops as a time limit
    # stops it, with the best line found by then and the bound proven (seed 4 without abilities:
    # minimum 3, about 11 s on one thread)
    from fci_solver import rules
    from fci_solver.bitboard.search import BitboardSolver
    from fci_solver.search import Stopped

    cards = CARDS.plain()
    pos = Deal.random("standard", 4).position(2, True, True)
    try:
        with pytest.raises(Stopped) as e:
            BitboardSolver(cards, progress=_ctrl_c_after(3), chunk=2000).solve(pos)
    finally:
        interrupt.resume()
    r = e.value.result
    assert r.extra["interrupted"] and r.lower_bound <= 3 <= r.min_remaining and r.states >= 4000
    p = pos
    for turn in r.line:
        p = rules.play_turn(p, turn, cards)
    assert len(p) == r.min_remaining and rules.is_over(p, cards)


def test_ctrl_c_during_a_reference_solve_keeps_the_best_line_found():
    # the reference engine printed only "interrupted" on Ctrl-C; it now stops as the fast one does
    from fci_solver import rules
    from fci_solver.reference import ReferenceSolver
    from fci_solver.search import Stopped

    pos = Deal.random("standard", 4).position(2, False, False)
    try:
        with pytest.raises(Stopped) as e:
            ReferenceSolver(CARDS, progress=_ctrl_c_after(8)).solve(pos)
    finally:
        interrupt.resume()
    r = e.value.result
    assert r.extra["interrupted"] and r.engine == "reference" and not r.exact
    assert 1 <= r.lower_bound < r.min_remaining < len(pos) and r.states >= 8 * 16
    p = pos
    for turn in r.line:
        p = rules.play_turn(p, turn, CARDS)
    assert len(p) == r.min_remaining and rules.is_over(p, CARDS)


def test_ctrl_c_during_fci_solve_prints_the_best_line_and_exits_130():
    rc, text, err = ctrl_c_once(["solve", "--random", "--seed", "4", "--plain"], lambda err: "solve:" in err)
    assert rc == 130 and err.strip().endswith("fci: interrupted") and "Traceback" not in err
    assert "fci: stopped by Ctrl-C; the best line found by then follows" in err
    assert "NOT EXACT (stopped by Ctrl-C): best found" in text or "Minimum result: 3" in text
    assert "\nTurn 1: " in text


def test_ctrl_c_during_a_hint_gives_the_best_turn_found():
    from fci_solver.play import HintStopped, hint

    cards = CARDS.plain()
    pos = Deal.random("standard", 4).position(2, True, True)
    try:
        with pytest.raises(HintStopped) as e:
            hint(pos, cards, progress=_ctrl_c_after(2))
    finally:
        interrupt.resume()
    h = e.value.hint
    assert h.turn is not None and h.lower_bound <= 3 <= h.min_remaining and not h.exact


def test_ctrl_c_during_a_held_block_of_most_of_a_second_keeps_the_work():
    # a held block (a slice added to the graph of perfect play) that ran past the watchdog's half
    # second on a loaded machine was ended with the file half written; the watchdog now waits
    # for a held block to end, up to a second more
    script = (
        "import sys, time\n"
        "from fci_solver import interrupt\n"
        "interrupt.install()\n"
        "try:\n"
        "    with interrupt.held():\n"
        "        print('in the block', flush=True)\n"
        "        time.sleep(0.9)\n"
        "        print('block done', flush=True)\n"
        "except interrupt.Interrupted:\n"
        "    print('saved', flush=True)\n"
        "    sys.exit(130)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "in the block\n"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 130 and out == "block done\nsaved\n", (out, err)
