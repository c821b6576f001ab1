"""Solving the deals of a census: in this process, in worker processes, or on a Dask cluster.

A :class:`Job` says what every deal of a run shares (layout, sea animals, margin, rules, time
limit); :func:`solve_seed` solves one seed and returns its :class:`~.store.Row`, the same
wherever it runs.  Worker processes load the compiled kernels once, in their initializer (a
jitted function sent to another process would compile again there), ignore Ctrl-C (the main
process stops them), and are reused for every deal.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from dataclasses import dataclass
from functools import partial

from .. import interrupt
from ..cards import CardTable
from ..layouts import Layout
from ..position import Deal, parse_sea
from .store import Row, line_json


@dataclass(frozen=True)
class Job:
    layout: Layout
    sea: str
    margin: int
    rules: str  # the rules' name in the database
    cards: CardTable
    time_limit: float | None = None


def solve_seed(job: Job, seed: int) -> Row:
    from ..bitboard.search import load_search_kernels
    from ..search import solve

    load_search_kernels()  # once per process; a no-op after the first deal
    deal = Deal.random(job.layout, seed)
    pos = deal.position(job.margin, *parse_sea(job.sea))
    t = time.perf_counter()
    r = solve(pos, job.cards, time_limit=job.time_limit)
    return Row(job.layout.name, job.sea, job.margin, job.rules, seed, str(deal), r.min_remaining, r.exact,
               r.lower_bound, r.states, round(time.perf_counter() - t, 4), line_json(r.line))


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    from ..bitboard.search import load_search_kernels

    load_search_kernels()


def run_local(job: Job, seeds: list[int], jobs: int, on_row) -> None:
    """Solve ``seeds``, calling ``on_row`` in this process as each finishes (in any order)."""
    if jobs <= 1 or len(seeds) <= 1:
        for seed in seeds:
            interrupt.check()
            on_row(solve_seed(job, seed))
        return
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(jobs, initializer=_init_worker) as pool:  # leaving it terminates the workers
        for row in pool.imap_unordered(partial(solve_seed, job), seeds, chunksize=1):
            on_row(row)


def run_dask(job: Job, seeds: list[int], scheduler: str, on_row, workers: int = 2) -> None:
    """The same on a Dask cluster (``scheduler`` an address, or ``local`` for a LocalCluster).

    A deal whose worker dies is run again elsewhere by the scheduler; rows are keyed by seed, so
    none is stored twice.
    """
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        from ..errors import FciError

        raise FciError("the Dask backend needs dask.distributed: pip install 'fci-solver[dask]'") from None
    cluster = None
    try:
        if scheduler == "local":
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
        else:
            client = Client(scheduler, timeout=10)
        try:
            futures = client.map(partial(solve_seed, job), seeds, pure=False)
            for fut in as_completed(futures):
                interrupt.check()
                on_row(fut.result())
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
