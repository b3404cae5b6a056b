"""Copying a whole project between locations (file → server, server → file, file → file):
``slicereview copy SOURCE DEST``.

The copy is lossless: every row of every table with its id, so queues, reports and exports of
the copy equal the original's byte for byte, and a work package made from one merges into the
other (the project's UUID is copied too). The one change is where image files are written down:
a server project stores absolute paths (it has no folder of its own), a project file stores
paths below its folder relative to it (see :mod:`.images`). The destination is new (a file
that does not exist, an empty database) and is written in one transaction, so a failed copy
leaves no half project: the new file is removed, the database stays empty.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> with Project.create(folder / "a.srproj", name="study") as project:
...     _ = project.raters.add("ann")
>>> copy_project(folder / "a.srproj", folder / "b.srproj")["raters"]
1
>>> with Project.open(folder / "b.srproj") as copy:
...     copy.name, [r.name for r in copy.raters.all()]
('study', ['ann'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath

from slicereview.store.database import Database
from slicereview.store.file_names import ESCAPED, from_text, to_text
from slicereview.store.location import Location, is_server
from slicereview.store.schema import MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_check import expected_schema

#: Every table, parents before children (foreign keys hold after each table is loaded).
TABLES = (
    "meta", "sources", "dicomweb_sources", "images", "raters", "image_sets",
    "image_set_members", "sessions", "answers", "grades", "guidelines", "annotations",
    "polygons", "questions", "reviews", "review_features", "batches", "batch_assignments",
    "gold", "gold_scores", "qualifications", "image_flags", "guideline_views",
    "guideline_entries", "merge_conflicts", "blobs", "slots", "shared_copies", "shared_parts",
    "uid_map", "privacy_keys", "source_origins", "privacy_log", "preannotation",
    "preannotation_shown", "project_models",
)

#: Rows per batch read from the source (memory stays small for big projects).
_BATCH = 2000


def columns(table: str) -> list[str]:
    """The stored columns of ``table`` (generated columns left out), in schema order."""
    tables = expected_schema(MIGRATIONS, SCHEMA_VERSION)["tables"]
    assert isinstance(tables, dict)
    return [c[0] for c in tables[table] if not c[4]]


def _order(table: str) -> str:
    """The primary key of ``table`` (rows are copied in this order)."""
    tables = expected_schema(MIGRATIONS, SCHEMA_VERSION)["tables"]
    assert isinstance(tables, dict)
    key = sorted((c[3], c[0]) for c in tables[table] if c[3])
    return ", ".join(name for _, name in key) if key else "rowid"


def _rows(db: Database, table: str, names: Sequence[str],
          convert: Callable[[tuple], tuple] | None) -> Iterator[tuple]:
    if table == "blobs":  # parts of files: one at a time (a driver may read a whole result)
        keys = db.execute("SELECT sha256, part FROM blobs ORDER BY sha256, part").fetchall()
        for sha, part in keys:
            data = db.execute("SELECT data FROM blobs WHERE sha256 = ? AND part = ?",
                              (sha, part)).fetchone()[0]
            yield sha, part, bytes(data)
        return
    cur = db.execute(f"SELECT {', '.join(names)} FROM {table} ORDER BY {_order(table)}")
    while True:
        batch = cur.fetchmany(_BATCH)
        if not batch:
            return
        for row in batch:
            values = tuple(row)
            yield convert(values) if convert is not None else values


def copy_tables(source: Database, dest: Database,
                source_path: Callable[[str], str] | None = None,
                without: Sequence[str] = ()) -> dict[str, int]:
    """Copy every row of every table from ``source`` into ``dest`` (same schema version, inside
    a transaction of ``dest``, after ``dest``'s own ``meta`` rows are deleted). ``source_path``
    rewrites ``sources.path`` (and the owner's ``source_origins.path``); the tables named in
    ``without`` are left empty. Returns rows per table."""
    counts: dict[str, int] = {}
    dest.execute("DELETE FROM meta")
    with dest.bulk_loading():
        for table in TABLES:
            if table in without:
                continue
            names = columns(table)
            convert = None
            if table in ("sources", "source_origins") and source_path is not None:
                k = names.index("path")
                rewrite = source_path

                def convert(row: tuple, k: int = k, rewrite: Callable[[str], str] = rewrite
                            ) -> tuple:
                    return (*row[:k], rewrite(row[k]), *row[k + 1:])
            counts[table] = dest.load_rows(table, names, _rows(source, table, names, convert))
    dest.reset_ids(t for t in TABLES if "id" in columns(t))
    return counts


def map_path(stored: str, source_folder: Path | None, dest_folder: Path | None) -> str:
    """A stored image path as the destination stores it (see :func:`path_mapper`)."""
    if "://" in stored:  # an image on a PACS: its WADO-RS URL stays as it is
        return stored
    path = Path(from_text(stored))
    if not path.is_absolute():
        if source_folder is None:  # a relative path on a server: nothing to resolve it by
            return stored
        path = source_folder / path
    if dest_folder is not None:
        try:
            return to_text(PurePosixPath(*path.relative_to(dest_folder).parts).as_posix())
        except ValueError:
            pass
    return to_text(path.as_posix())


def path_mapper(source_folder: Path | None, dest_folder: Path | None
                ) -> Callable[[str], str] | None:
    """How stored image paths change between two locations: absolute on a server (folder
    ``None``), relative below the folder of a project file; ``None`` when nothing changes.
    Each folder is mapped once (:func:`map_path` of every path cost a copy of 20,000 images
    0.8 s): a plain ``folder/name`` becomes the mapped folder, ``/``, the name."""
    if source_folder == dest_folder:
        return None
    folders: dict[str, str] = {}

    def mapped(stored: str) -> str:
        head, _, name = stored.rpartition("/")
        if (not head or name in ("", ".", "..") or "://" in stored or head.endswith(":")
                or stored.startswith(("//", ESCAPED))
                or (dest_folder is not None and name == dest_folder.name)):
            # (no folder, a URL, a drive or share root, escaped; or maybe the destination's
            # folder itself, which its parent is not below)
            return map_path(stored, source_folder, dest_folder)
        folder = folders.get(head)
        if folder is None:
            folder = folders[head] = map_path(head, source_folder, dest_folder)
        if folder.endswith("/") or folder.startswith(ESCAPED):
            return map_path(stored, source_folder, dest_folder)
        return name if folder == "." else f"{folder}/{name}"

    return mapped


def copy_project(source: Location, dest: Location) -> dict[str, int]:
    """Copy the project at ``source`` to the new location ``dest``; returns rows per table.

    The source is opened read-only (it must be in the current format: open it once to
    upgrade an older file); ``dest`` must be a file that does not exist or an empty database.
    """
    from slicereview.store.project import Project

    with Project.open(source, read_only=True) as original:
        mapper = path_mapper(original.folder, None if is_server(dest) else
                             Path(dest).absolute().parent)
        counts: dict[str, int] = {}

        def fill(db: Database) -> None:
            counts.update(copy_tables(original.db, db, mapper))

        Project.create_empty(dest, fill)
    return counts
