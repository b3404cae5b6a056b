"""Checking a file's schema against the one its version should have: tables and columns,
indexes, and no unknown triggers or views (a project file from someone else is untrusted
input; a trigger added to it could silently delete answers).

:func:`expected_schema` builds the schema of a version by running the migrations
(:data:`~slicereview.store.schema.MIGRATIONS`) on an in-memory database;
:func:`describe_schema` reads a file's; :func:`schema_differences` names how they differ.
"""

from __future__ import annotations

import functools
import sqlite3

# -- validation ------------------------------------------------------------------------------
#: Objects SQLite itself may add to any database (ANALYZE statistics, AUTOINCREMENT counters).
_SQLITE_OWN = ("sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4",
               "sqlite_sequence")


def _names(value: object) -> list[str]:
    """The names in one part of a :func:`describe_schema` result (a dict or a list of names)."""
    if isinstance(value, dict | list | tuple | set):
        return [str(v) for v in value]
    raise TypeError(f"not a list of schema names: {value!r}")


def describe_schema(conn: object) -> dict[str, object]:
    """The shape of a database's schema, comparable between files.

    Returns ``{"tables": {name: [(column, type, notnull, pk, hidden), ...]}, "indexes":
    {name: table}, "triggers": [names], "views": [names]}``. Automatic indexes (UNIQUE and
    PRIMARY KEY constraints) and SQLite's own tables are left out. ``conn`` is an
    :class:`sqlite3.Connection`.
    """
    rows = conn.execute(  # type: ignore[attr-defined]
        "SELECT type, name, tbl_name FROM sqlite_master ORDER BY type, name").fetchall()
    tables: dict[str, list[tuple]] = {}
    indexes: dict[str, str] = {}
    triggers: list[str] = []
    views: list[str] = []
    for kind, name, table in rows:
        if name in _SQLITE_OWN or name.startswith("sqlite_autoindex_"):
            continue
        if kind == "table":
            quoted = '"' + name.replace('"', '""') + '"'
            columns = conn.execute(  # type: ignore[attr-defined]
                f"PRAGMA table_xinfo({quoted})").fetchall()
            tables[name] = [(c[1], str(c[2]).upper(), c[3], c[5], c[6]) for c in columns]
        elif kind == "index":
            indexes[name] = table
        elif kind == "trigger":
            triggers.append(name)
        elif kind == "view":
            views.append(name)
    return {"tables": tables, "indexes": indexes, "triggers": triggers, "views": views}


def expected_schema(migrations: list[str], version: int) -> dict[str, object]:
    """:func:`describe_schema` of a new file after ``migrations[:version]`` (cached)."""
    return _expected(tuple(migrations[:version]))


@functools.lru_cache(maxsize=8)
def _expected(scripts: tuple[str, ...]) -> dict[str, object]:

    conn = sqlite3.connect(":memory:")
    try:
        for script in scripts:
            conn.executescript(script)
        return describe_schema(conn)
    finally:
        conn.close()


def schema_differences(actual: dict[str, object], expected: dict[str, object]) -> list[str]:
    """Short phrases naming how ``actual`` differs from ``expected`` (empty: the same).

    Example
    -------
    >>> a = {"tables": {"t": [("x", "INT", 0, 0, 0)]}, "indexes": {}, "triggers": ["evil"],
    ...      "views": []}
    >>> e = {"tables": {"t": [("x", "INT", 0, 0, 0)], "u": []}, "indexes": {}, "triggers": [],
    ...      "views": []}
    >>> schema_differences(a, e)
    ['table u is missing', 'unknown trigger evil']
    """
    found: list[str] = []
    a_tables, e_tables = actual["tables"], expected["tables"]
    assert isinstance(a_tables, dict) and isinstance(e_tables, dict)
    for name in sorted(e_tables):
        if name not in a_tables:
            found.append(f"table {name} is missing")
        elif a_tables[name] != e_tables[name]:
            found.append(f"the columns of table {name} differ")
    found += [f"unknown table {n}" for n in sorted(set(a_tables) - set(e_tables))]
    a_idx, e_idx = actual["indexes"], expected["indexes"]
    assert isinstance(a_idx, dict) and isinstance(e_idx, dict)
    found += [f"index {n} is missing" for n in sorted(set(e_idx) - set(a_idx))]
    found += [f"unknown index {n}" for n in sorted(set(a_idx) - set(e_idx))]
    for kind in ("triggers", "views"):
        extra = sorted(set(_names(actual[kind])) - set(_names(expected[kind])))
        found += [f"unknown {kind[:-1]} {n}" for n in extra]
    return found


def undecodable_text(conn: sqlite3.Connection) -> list[str]:
    """The tables holding a text value that is not valid UTF-8 (byte flips in a data page
    that SQLite's ``quick_check`` does not look at; Python could not read those rows).

    Each column's text values are joined by SQLite (``group_concat``, a ``0x01`` byte between
    values so that no two values' bytes can form one character; numbers and blobs left out)
    and the joined bytes decoded strictly at once, :data:`_SCAN_ROWS` rows at a time: the
    same verdict as reading every value as the project's connection does (Python's
    ``sqlite3`` raises "Could not decode to UTF-8"), without a Python object per value.
    Measured on the shared 2-core machine at 20,000 images (~100,000 answers), alternating
    with the row-by-row read in one session: 1.3-2.4 s against 2.4-3.3 s under load; 0.6-1.0 s
    when quieter (``quick_check`` of the same file: 0.17 s).

    Example
    -------
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE t (a TEXT, b BLOB)")
    >>> _ = conn.execute("INSERT INTO t VALUES ('caf\u00e9', X'b5'), ('x', 2)")
    >>> undecodable_text(conn)
    []
    >>> _ = conn.execute("INSERT INTO t VALUES (CAST(X'41c3' AS TEXT), 3), "
    ...                  "(CAST(X'a942' AS TEXT), 4)")
    >>> undecodable_text(conn)
    ['t']
    """
    tables = [str(row[0]) for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    columns = {table: [_quoted(str(c[1])) for c in conn.execute(
        f"PRAGMA table_info({_quoted(table)})")] for table in tables}
    found = []
    factory = conn.text_factory
    conn.text_factory = bytes  # the joined text, undecoded
    try:
        for table in tables:
            quoted = _quoted(table)
            last = conn.execute(f"SELECT max(rowid) FROM {quoted}").fetchone()[0] or 0
            joined = ", ".join(f"group_concat(CASE WHEN typeof({c}) = 'text' THEN {c} END, "
                               "char(1))" for c in columns[table])
            sql = f"SELECT {joined} FROM {quoted} WHERE rowid > ? AND rowid <= ?"
            for start in range(0, last, _SCAN_ROWS):
                texts = conn.execute(sql, (start, start + _SCAN_ROWS)).fetchone()
                try:
                    for text in texts:
                        if text is not None:
                            text.decode("utf-8")
                except UnicodeDecodeError:
                    found.append(table)
                    break
    finally:
        conn.text_factory = factory
    return found


#: Rows joined per query by :func:`undecodable_text` (bounds its memory).
_SCAN_ROWS = 20000


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
