"""The census: resumable and loss-free, the same rows from every backend, and honest reports."""

import json
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from fci_solver.cli import main
from fci_solver.census.report import share, wilson
from fci_solver.census.store import Store
from fci_solver.position import Deal
from fci_solver.search import solve

from helpers import CARDS

FCI = [sys.executable, "-c", "from fci_solver.launch import main; main()"]  # what the fci command runs


def rows(db):
    """Every stored row but its seconds (the one column that depends on the machine)."""
    with sqlite3.connect(db) as c:
        return [r[:10] + r[11:] for r in c.execute("SELECT * FROM deals ORDER BY seed")]


def census(db, deals="1-200", *extra):
    return FCI + ["census", "run", "--layout", "ten", "--sea", "none", "--deals", deals, "--db", str(db), "-q", *extra]


WHOLE = "1-600"  # about 5 s on two idle cores: long enough to be killed part-way


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    db = tmp_path_factory.mktemp("census") / "whole.sqlite"
    subprocess.run(census(db, WHOLE, "--jobs", "2"), check=True, timeout=600)
    return rows(db)


def test_a_census_killed_three_times_and_resumed_has_the_rows_of_an_uninterrupted_one(tmp_path, uninterrupted):
    db = tmp_path / "killed.sqlite"
    rng = random.Random(7)
    killed = 0
    for _ in range(3):
        p = subprocess.Popen(census(db, WHOLE, "--jobs", "2"), stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.8, 2.0))
        killed += p.poll() is None
        p.kill()  # SIGKILL: no chance to clean up
        p.wait()
    assert killed == 3  # each run was still at work when it was killed
    subprocess.run(census(db, WHOLE, "--jobs", "2"), check=True, timeout=600)
    got = rows(db)
    assert len(got) == len({r[4] for r in got}) == 600  # every seed once
    assert got == uninterrupted


def test_ctrl_c_stops_within_2_seconds_with_exit_130_and_keeps_what_finished(tmp_path, uninterrupted):
    db = tmp_path / "int.sqlite"
    p = subprocess.Popen(census(db, "1-5000", "--jobs", "2"), stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    assert p.poll() is None  # still at work
    p.send_signal(signal.SIGINT)
    t = time.perf_counter()
    _, err = p.communicate(timeout=20)
    assert time.perf_counter() - t < 2 and p.returncode == 130, err
    kept = rows(db)
    assert kept and {r for r in kept if r[4] <= 600} <= set(uninterrupted)


def test_the_dask_backend_stores_the_same_rows(tmp_path, uninterrupted):
    db = tmp_path / "dask.sqlite"
    subprocess.run(census(db, "1-60", "--backend", "dask", "--scheduler", "local", "--jobs", "2"), check=True, timeout=600)
    assert rows(db) == uninterrupted[:60]


def test_running_again_skips_what_is_stored(tmp_path, capsys):
    db = str(tmp_path / "again.sqlite")
    for expect in ("20 deals solved now, 0 were already stored", "0 deals solved now, 20 were already stored"):
        with pytest.raises(SystemExit) as e:
            main(["census", "run", "-l", "six", "--sea", "none", "--deals", "1-20", "--db", db])
        assert e.value.code == 0 and expect in capsys.readouterr().out


def test_retrying_unresolved_deals_replaces_their_rows_with_exact_ones(tmp_path, capsys):
    db = str(tmp_path / "retry.sqlite")
    args = ["census", "run", "-l", "six", "--sea", "none", "--deals", "1-10", "--db", db]
    with pytest.raises(SystemExit):
        main(args)
    exact = rows(db)
    # deal 4 as a time limit would have left it: no minimum proven, only a bound
    with sqlite3.connect(db) as c:
        c.execute("UPDATE deals SET exact = 0, minimum = 6 WHERE seed = 4")
    with pytest.raises(SystemExit):
        main(args)  # without --retry-unresolved the stored row stands
    assert "0 deals solved now, 10 were already stored" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(args + ["--retry-unresolved"])
    assert "1 deal solved now (1 of them retried)" in capsys.readouterr().out
    assert rows(db) == exact


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_text("not a database at all" * 100), "cannot use"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE other (x)").connection.commit(), "is not a census database"),
])
def test_a_file_that_is_not_a_census_database_is_refused(tmp_path, capsys, make, message):
    db = tmp_path / "x.sqlite"
    make(db)
    with pytest.raises(SystemExit) as e:
        main(["census", "run", "-l", "six", "--deals", "1-2", "--db", str(db)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_locked_database_is_a_one_line_error(tmp_path, capsys):
    db = tmp_path / "locked.sqlite"
    Store(str(db)).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SystemExit) as e:
            main(["census", "run", "-l", "six", "--deals", "1-2", "--db", str(db)])
    finally:
        holder.execute("ROLLBACK")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "locked" in err and len(err.strip().splitlines()) == 1


def test_another_layout_under_the_same_name_is_refused(tmp_path, capsys):
    db = str(tmp_path / "names.sqlite")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "mine.txt").write_text("XXX\n")
    (b / "mine.txt").write_text("XX\nX.\n")
    with pytest.raises(SystemExit) as e:
        main(["census", "run", "-l", str(a / "mine.txt"), "--deals", "1-3", "--db", db, "-q"])
    assert e.value.code == 0
    with pytest.raises(SystemExit) as e:
        main(["census", "run", "-l", str(b / "mine.txt"), "--deals", "1-3", "--db", db, "-q"])
    assert e.value.code == 2 and "different layout named 'mine'" in capsys.readouterr().err


def test_the_report_counts_what_fci_solve_finds_deal_by_deal(tmp_path, capsys):
    db = str(tmp_path / "report.sqlite")
    with pytest.raises(SystemExit):
        main(["census", "run", "-l", "eight", "--sea", "none", "--deals", "1-40", "--db", db, "-q"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["census", "report", "--db", db, "--json", "--plot", str(tmp_path / "c.svg")])
    assert e.value.code == 0
    [g] = json.loads(capsys.readouterr().out)["groups"]
    minima = [solve(Deal.random("eight", s).position(2, False, False), CARDS).min_remaining for s in range(1, 41)]
    assert g["deals"] == 40
    assert {int(k): v["count"] for k, v in g["minimum"].items()} == {m: minima.count(m) for m in set(minima)}
    assert g["reaches"]["1"]["count"] == minima.count(1)
    assert g["above_1"] == [s for s, m in zip(range(1, 41), minima) if m > 1]
    assert (tmp_path / "c.svg").read_text().startswith("<svg")


def test_the_report_names_a_command_that_solves_a_deal_that_cannot_reach_1(tmp_path, capsys):
    # it said "fci solve --layout L --sea S --random --seed N", to be filled in by hand
    db = str(tmp_path / "look.sqlite")
    with pytest.raises(SystemExit):
        main(["census", "run", "-l", "six", "--sea", "shark", "--margin", "1", "--plain", "--deals", "1-5", "--db", db, "-q"])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["census", "report", "--db", db])
    command = capsys.readouterr().out.split("(look at one: ")[1].split(")")[0]
    assert command == "fci solve --layout six --sea shark --margin 1 --plain --random --seed 1"
    with pytest.raises(SystemExit) as e:
        main(command.split()[1:] + ["--json"])
    assert e.value.code == 0 and json.loads(capsys.readouterr().out)["min_remaining"] > 1


def test_unresolved_deals_count_both_ways_in_the_interval():
    lo, hi = wilson(90, 100)
    s = share(90, 5, 100)
    assert s["interval"][0] == pytest.approx(lo, abs=1e-4)
    assert s["interval"][1] == pytest.approx(wilson(95, 100)[1], abs=1e-4)
    assert s["interval"][1] > hi
