"""The census database: SQLite, one row per (layout, sea, margin, rules, seed).

The row's key also fixes what the deal means: a layout name is bound to its grid and a rules
name to its card table (by a hash) in the ``meta`` table, so a database cannot mix two different
layouts (or card tables) under one name.  Rows are committed one by one in WAL mode: a process
killed at any moment leaves every finished row, and none half-written.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass

from ..errors import FciError

FORMAT = "fci-census-1"
DEFAULT_DB = "fci-census.sqlite"
COLUMNS = ("layout", "sea", "margin", "rules", "seed", "deal", "minimum", "exact", "lower_bound", "states",
           "seconds", "line")


@dataclass(frozen=True)
class Row:
    layout: str
    sea: str
    margin: int
    rules: str
    seed: int
    deal: str
    minimum: int
    exact: bool
    lower_bound: int
    states: int
    seconds: float
    line: str  # the line in the JSON notation

    def key(self) -> tuple:
        return (self.layout, self.sea, self.margin, self.rules, self.seed)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Store:
    """A census database (created when missing)."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=2.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not tables:
                self._create()
            elif "meta" not in tables or self.meta("format") != FORMAT:
                raise FciError(f"{path!r} is not a census database (made by fci census run)")
        except sqlite3.DatabaseError as e:
            raise FciError(f"cannot use {path!r} as a census database: {e}") from None

    def _create(self) -> None:
        self.db.execute("BEGIN")
        self.db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        self.db.execute("""CREATE TABLE deals (layout TEXT, sea TEXT, margin INTEGER, rules TEXT, seed INTEGER,
                           deal TEXT, minimum INTEGER, exact INTEGER, lower_bound INTEGER, states INTEGER,
                           seconds REAL, line TEXT, PRIMARY KEY (layout, sea, margin, rules, seed))""")
        self.db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
        self.db.execute("COMMIT")

    def meta(self, key: str) -> str | None:
        r = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return r[0] if r else None

    def bind(self, kind: str, name: str, content: str) -> None:
        """Bind a layout or rules name to its content, or fail if the database has it bound otherwise."""
        key, value = f"{kind}:{name}", digest(content)
        try:
            self.db.execute("BEGIN IMMEDIATE")
            old = self.meta(key)
            if old is None:
                self.db.execute("INSERT INTO meta VALUES (?, ?)", (key, value))
            self.db.execute("COMMIT")
        except sqlite3.OperationalError as e:
            raise FciError(f"cannot write to {self.path!r}: {e} (is another census writing to it?)") from None
        if old is not None and old != value:
            raise FciError(f"{self.path!r} already holds deals of a different {kind} named {name!r}: "
                           f"use another --db, or another name for your {kind}")

    def done(self, layout: str, sea: str, margin: int, rules: str) -> set[int]:
        q = "SELECT seed FROM deals WHERE layout = ? AND sea = ? AND margin = ? AND rules = ?"
        return {r[0] for r in self.db.execute(q, (layout, sea, margin, rules))}

    def unresolved(self, layout: str, sea: str, margin: int, rules: str) -> set[int]:
        """The seeds stored with a time limit's answer, not an exact one."""
        q = "SELECT seed FROM deals WHERE layout = ? AND sea = ? AND margin = ? AND rules = ? AND exact = 0"
        return {r[0] for r in self.db.execute(q, (layout, sea, margin, rules))}

    def add(self, row: Row, replace: bool = False) -> None:
        """Store a deal's row; ``replace`` overwrites the row stored for its key (a retried deal)."""
        d = asdict(row)
        d["exact"] = int(row.exact)
        verb = "REPLACE" if replace else "IGNORE"
        try:
            self.db.execute(f"INSERT OR {verb} INTO deals VALUES ({', '.join('?' * len(COLUMNS))})",
                            [d[c] for c in COLUMNS])
        except sqlite3.OperationalError as e:
            raise FciError(f"cannot write to {self.path!r}: {e}") from None

    def rows(self) -> list[Row]:
        out = []
        for r in self.db.execute(f"SELECT {', '.join(COLUMNS)} FROM deals ORDER BY layout, sea, margin, rules, seed"):
            d = dict(zip(COLUMNS, r))
            d["exact"] = bool(d["exact"])
            out.append(Row(**d))
        return out

    def close(self) -> None:
        self.db.close()


def line_json(line) -> str:
    return json.dumps([[a.to_json() for a in turn] for turn in line], separators=(",", ":"))
