"""The migration that adds shared copies and the owner's UID map (store/schema_privacy.py),
on a file and on a server: a project of the previous format opens, keeps its rows and gets
the default setting; ``project.privacy`` keeps copies, parts, UIDs and the setting's log."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from slicereview.model import SharedImages, SharedNames, SharedSource
from slicereview.store import Project
from slicereview.store.blobs import ChangedFileError
from slicereview.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from slicereview.store.schema_privacy import _SHARED_COPIES_AND_UID_MAP

BEFORE = MIGRATIONS.index(_SHARED_COPIES_AND_UID_MAP)
_ROWS = ("INSERT INTO meta (key, value) VALUES ('name', 'old')",
         "INSERT INTO sources (id, path, sha256, format, size_bytes, added_at) VALUES "
         f"(4, '/data/a.dcm', '{'a' * 64}', 'dicom', 10, '2020-01-01T00:00:00.000Z')",
         "INSERT INTO images (id, source_id, case_id, rows, cols) VALUES (7, 4, 'C000007', 8, 8)")


def _previous(location) -> None:
    if isinstance(location, Path):
        conn = sqlite3.connect(location)
        conn.execute("PRAGMA foreign_keys = ON")
        for script in MIGRATIONS[:BEFORE]:
            conn.executescript(script)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {BEFORE}")
        for statement in _ROWS:
            conn.execute(statement)
        conn.commit()
        conn.close()
        return
    import psycopg

    from slicereview.store.postgres_schema import (
        STATE_DDL,
        STATE_INSERT,
        STATE_TABLE,
        migration_statements,
    )

    with psycopg.connect(location, autocommit=True) as conn:
        conn.execute(STATE_DDL)
        conn.execute(STATE_INSERT)
        for step in range(BEFORE):
            for statement in migration_statements(step):
                conn.execute(statement)
        conn.execute(f"UPDATE {STATE_TABLE} SET schema_version = {BEFORE}")
        for statement in _ROWS:
            conn.execute(statement)


def test_a_project_of_the_previous_format_is_upgraded_with_its_rows(location):
    where = location("old.srproj")
    _previous(where)
    with Project.open(where) as project:
        [source] = project.images.sources()
        assert (source.id, source.path, project.images.get(7).case_id) == (
            4, "/data/a.dcm", "C000007")
        assert project.privacy.setting().images is SharedImages.DEIDENTIFIED
        assert project.privacy.copies() == {} and project.privacy.log() == []
        if not project.is_server:
            assert project.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_copies_parts_uids_origins_and_the_log(location, tmp_path):
    from slicereview.model import NewImage

    (tmp_path / "a.png").write_bytes(b"x")
    with Project.create(location()) as project:
        [image] = project.images.add_source(tmp_path / "a.png", "b" * 64, "png", [NewImage(1, 1)])
        source = project.images.sources()[0]
        data = b"a de-identified copy"
        sha = hashlib.sha256(data).hexdigest()
        project.privacy.put_copy(SharedSource(source.id, sha, "C000001.png", len(data),
                                              warnings=("look",)))
        assert project.privacy.copy_of(source.id).warnings == ("look",)
        assert project.privacy.hold_copy(sha, [data[:5], data[5:]]) == len(data)
        assert project.privacy.hold_copy(sha, [data]) == 0  # held already
        out = tmp_path / "copy.png"
        assert project.privacy.write_copy_to(sha, out) == len(data) and out.read_bytes() == data
        with pytest.raises(KeyError):
            project.privacy.write_copy_to("c" * 64, out)
        project.privacy.put_copy(SharedSource(source.id, "d" * 64, "C000001.png", 3))
        with pytest.raises(ChangedFileError):
            project.privacy.hold_copy("d" * 64, [b"not those bytes"])
        assert not project.privacy.holds_copy(sha)  # (the old copy went with its record)
        project.privacy.add_uids({"1.2.3": "2.25.1", "1.2.4": "2.25.2"})
        project.privacy.add_uids({"1.2.3": "2.25.99"})  # (a kept one stays)
        assert project.privacy.uid_map() == {"1.2.3": "2.25.1", "1.2.4": "2.25.2"}
        assert project.privacy.original_uid("2.25.2") == "1.2.4"
        seed = project.privacy.seed()
        assert project.privacy.seed() == seed and len(seed) == 32
        project.privacy.set_origin(source.id, "/data/Smith.png", "C000001.png")
        assert project.images.sources()[0].path == "/data/Smith.png"  # (the owner's view)
        assert project.images.get(image).path == "/data/Smith.png"
        project.privacy.set_setting(SharedImages.ORIGINALS, SharedNames.FILE_NAMES, "anna")
        project.privacy.set_setting(SharedImages.DEIDENTIFIED, SharedNames.CASE_IDS, "anna")
        assert [s.images for s in project.privacy.log()] == [SharedImages.ORIGINALS,
                                                             SharedImages.DEIDENTIFIED]
        assert project.privacy.is_owner_login()
