"""Exact answers over many deals: a census of seeded deals stored in SQLite.

:mod:`.store` owns the database (one row per deal, committed as it finishes, so a killed run
loses only the deals in flight and a second run resumes), :mod:`.work` solves deals in worker
processes or on a Dask cluster, :mod:`.report` turns the rows into shares with Wilson intervals
and an SVG chart.
"""
