"""``project.privacy``: shared copies, the owner's UID map and seed, the original paths of
sources named neutrally, and the privacy setting with its log (the migration's text,
:mod:`.schema_privacy`, says what each table holds; the rules are in
:mod:`slicereview.app.privacy`).

On a server the UID map, the seed and the original paths are readable by the owner's login
alone, and the original bytes (``blobs``) too while the project shares de-identified copies
(:mod:`.postgres_privacy`); a read another login may not make returns nothing.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj") as project:
...     before = project.privacy.setting().images
...     project.privacy.add_uids({"1.2.3": "2.25.9"})
...     before, project.privacy.uid_map(), len(project.privacy.seed())
(<SharedImages.DEIDENTIFIED: 'deidentified'>, {'1.2.3': '2.25.9'}, 32)
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from slicereview.model import PrivacySetting, SharedImages, SharedNames, SharedSource
from slicereview.store._base import Part, now_iso
from slicereview.store.blobs import PART_BYTES, ChangedFileError

_COLUMNS = ("source_id, sha256, name, size_bytes, header, keep_start, keep_end, warnings, "
            "rules")


def visible_path(table: str) -> str:
    """SQL for a source's path as this login may see it: the original path the owner keeps in
    ``source_origins`` where the source is named neutrally (other logins read no row of it
    there), else ``sources.path``."""
    return (f"coalesce((SELECT o.path FROM source_origins o WHERE o.source_id = {table}.id), "
            f"{table}.path)")


#: SQL: the source (``sources.id``) is served as its held shared copy to this login, which
#: reads no seed (not the owner's): it is never read from disk.
SERVED_A_COPY = ("(EXISTS (SELECT 1 FROM shared_copies c JOIN shared_parts p ON p.sha256 = "
                 "c.sha256 AND p.part = 0 WHERE c.source_id = sources.id) AND NOT EXISTS "
                 "(SELECT 1 FROM privacy_keys))")
#: SQL: relinking a neutrally named source changes the owner's original path.
ORIGIN_UPDATE = "UPDATE source_origins SET path = ? WHERE source_id = ?"


def _shared(row) -> SharedSource:
    keep = None if row[5] is None else (int(row[5]), int(row[6]))
    header = None if row[4] is None else bytes(row[4])
    return SharedSource(row[0], row[1], row[2], row[3], header, keep,
                        tuple(json.loads(row[7])), row[8])


class Privacy(Part):
    """Shared copies, the UID map and the privacy setting (see the module docstring)."""

    # -- the setting -------------------------------------------------------------------
    def setting(self) -> PrivacySetting:
        """The setting in force (the newest log row; the default when there is none)."""
        row = self.db.execute("SELECT images, names, changed_by, changed_at FROM privacy_log "
                              "ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return PrivacySetting()
        return PrivacySetting(SharedImages(row[0]), SharedNames(row[1]), row[2], row[3])

    def set_setting(self, images: SharedImages, names: SharedNames, by: str) -> None:
        """Record a new setting, made by ``by``; one transaction."""
        with self.transaction():
            self.db.execute("INSERT INTO privacy_log (images, names, changed_by, changed_at) "
                            "VALUES (?, ?, ?, ?)", (str(images), str(names), by, now_iso()))

    def log(self) -> list[PrivacySetting]:
        """Every recorded setting, oldest first."""
        return [PrivacySetting(SharedImages(r[0]), SharedNames(r[1]), r[2], r[3])
                for r in self.db.execute("SELECT images, names, changed_by, changed_at FROM "
                                         "privacy_log ORDER BY id")]

    def is_owner_login(self) -> bool:
        """Whether this connection is the owner's: always on a file (whoever holds it); on a
        server a login whose rater is an owner, the tables' owner or a superuser."""
        login = self.db.login()
        if login is None:
            return True
        row = self.db.execute("SELECT role FROM raters WHERE name = ?", (login,)).fetchone()
        if row is not None and row[0] == "owner":
            return True
        return self.db.execute(
            "SELECT (SELECT tableowner FROM pg_tables WHERE tablename = 'raters' AND "
            "schemaname = current_schema()) = current_user OR (SELECT rolsuper FROM pg_roles "
            "WHERE rolname = current_user)").fetchone()[0] is True

    def enforced(self) -> bool:
        """Whether the database keeps the originals from logins other than the owner's (a
        server whose policies :mod:`.postgres_privacy` made, with the first ``people add``);
        ``False`` on a file and on a server whose logins were given all rights by hand."""
        if self.db.login() is None:
            return False
        return self.db.execute("SELECT 1 FROM pg_policies WHERE schemaname = current_schema() "
                               "AND policyname = 'slicereview_privacy_select' LIMIT 1"
                               ).fetchone() is not None

    # -- the seed and the UID map (the owner's) ------------------------------------------
    def seed(self, create: bool = True) -> str | None:
        """The project's secret seed (made on first use when ``create``); ``None`` when this
        login may not read it (or there is none and ``create`` is false)."""
        row = self.db.execute("SELECT value FROM privacy_keys WHERE key = 'seed'").fetchone()
        if row is not None or not create:
            return None if row is None else str(row[0])
        with self.transaction():
            self.db.execute("INSERT INTO privacy_keys (key, value) VALUES ('seed', ?) "
                            "ON CONFLICT DO NOTHING", (secrets.token_hex(16),))
        return self.seed(create=False)

    def add_uids(self, mapping: dict[str, str]) -> None:
        """Remember original → replacement UIDs (kept ones stay); one transaction."""
        if mapping:
            with self.transaction():
                self.db.executemany("INSERT INTO uid_map (original, replacement) VALUES (?, ?) "
                                    "ON CONFLICT DO NOTHING", sorted(mapping.items()))

    def uid_map(self) -> dict[str, str]:
        """Every original UID and its replacement (empty to a login that may not read it)."""
        return dict(self.db.execute("SELECT original, replacement FROM uid_map ORDER BY 1"))

    def original_uid(self, replacement: str) -> str | None:
        row = self.db.execute("SELECT original FROM uid_map WHERE replacement = ?",
                              (replacement,)).fetchone()
        return None if row is None else str(row[0])

    # -- original paths of neutrally named sources ------------------------------------
    def set_origin(self, source_id: int, path: str, neutral: str) -> None:
        """Keep ``path`` as the source's origin (owner only) and name it ``neutral``."""
        with self.transaction():
            self.db.execute("INSERT INTO source_origins (source_id, path) VALUES (?, ?) "
                            "ON CONFLICT DO NOTHING", (source_id, path))
            self.db.execute("UPDATE sources SET path = ? WHERE id = ?", (neutral, source_id))

    def name_sources(self, neutral: bool) -> None:
        """Name every source that has a shared copy by its copy's neutral name, keeping its
        path as its origin (``neutral``), or give every source its original path back;
        one transaction."""
        with self.transaction():
            if neutral:
                self.db.execute(
                    "INSERT INTO source_origins (source_id, path) SELECT s.id, s.path FROM "
                    "sources s JOIN shared_copies c ON c.source_id = s.id WHERE s.id NOT IN "
                    "(SELECT source_id FROM source_origins)")
                self.db.execute(
                    "UPDATE sources SET path = (SELECT name FROM shared_copies c WHERE "
                    "c.source_id = sources.id) WHERE id IN (SELECT source_id FROM "
                    "source_origins) AND id IN (SELECT source_id FROM shared_copies)")
            else:
                self.db.execute(
                    "UPDATE sources SET path = (SELECT path FROM source_origins o WHERE "
                    "o.source_id = sources.id) WHERE id IN (SELECT source_id FROM "
                    "source_origins)")
                self.db.execute("DELETE FROM source_origins")

    def origins(self) -> dict[int, str]:
        return dict(self.db.execute("SELECT source_id, path FROM source_origins ORDER BY 1"))

    # -- shared copies ----------------------------------------------------------------
    def put_copy(self, copy: SharedSource) -> None:
        """Store (or replace) a source's shared copy record; one transaction."""
        keep = copy.keep or (None, None)
        with self.transaction():
            old = self.copy_of(copy.source_id)
            if old is not None and old.sha256 != copy.sha256:
                self.db.execute("DELETE FROM shared_copies WHERE source_id = ?",
                                (copy.source_id,))
            self.db.execute(
                f"INSERT INTO shared_copies ({_COLUMNS}, made_at) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source_id) DO UPDATE SET "
                "name = excluded.name, header = excluded.header, warnings = excluded.warnings,"
                " rules = excluded.rules",
                (copy.source_id, copy.sha256, copy.name, copy.size_bytes, copy.header, keep[0],
                 keep[1], json.dumps(list(copy.warnings)), copy.rules, now_iso()))

    def copy_of(self, source_id: int) -> SharedSource | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM shared_copies WHERE source_id = ?",
                              (source_id,)).fetchone()
        return None if row is None else _shared(row)

    def copy_rules(self) -> dict[int, int]:
        """source id → the rules version of its shared copy (no header read)."""
        return dict(self.db.execute("SELECT source_id, rules FROM shared_copies ORDER BY 1"))

    def copies(self) -> dict[int, SharedSource]:
        """Every source's shared copy record, by source id."""
        return {r[0]: _shared(r) for r in self.db.execute(
            f"SELECT {_COLUMNS} FROM shared_copies ORDER BY source_id")}

    def source_of_copy(self, sha256: str) -> int | None:
        row = self.db.execute("SELECT source_id FROM shared_copies WHERE sha256 = ?",
                              (sha256,)).fetchone()
        return None if row is None else int(row[0])

    def hold_copy(self, sha256: str, chunks: Iterable[bytes | memoryview]) -> int:
        """Store the bytes of the shared copy ``sha256`` (its record must exist) in parts,
        unless held; ``ChangedFileError`` when they are not ``sha256``'s (nothing kept)."""
        with self.transaction():
            if self.holds_copy(sha256):
                return 0
            digest, size, buffer = hashlib.sha256(), 0, bytearray()
            part = 0
            for chunk in chunks:
                digest.update(chunk)
                buffer += chunk
                while len(buffer) >= PART_BYTES:
                    self._part(sha256, part, bytes(buffer[:PART_BYTES]))
                    del buffer[:PART_BYTES]
                    part += 1
                size += len(chunk)
            if buffer or part == 0:
                self._part(sha256, part, bytes(buffer))
            if digest.hexdigest() != sha256:
                self.db.execute("DELETE FROM shared_parts WHERE sha256 = ?", (sha256,))
                raise ChangedFileError("the shared copy's bytes are not the ones hashed")
        return size

    def _part(self, sha256: str, part: int, data: bytes) -> None:
        self.db.execute("INSERT INTO shared_parts (sha256, part, data) VALUES (?, ?, ?)",
                        (sha256, part, data))

    def holds_copy(self, sha256: str) -> bool:
        return self.db.execute("SELECT 1 FROM shared_parts WHERE sha256 = ? AND part = 0",
                               (sha256,)).fetchone() is not None

    def write_copy_to(self, sha256: str, dest: str | Path) -> int:
        """Write the held bytes of the shared copy ``sha256`` to ``dest``, checking them;
        ``KeyError`` when not held, ``ChangedFileError`` when damaged (``dest`` removed)."""
        dest = Path(dest)
        digest, size, k = hashlib.sha256(), 0, 0
        with open(dest, "wb") as out:
            while (row := self.db.execute("SELECT data FROM shared_parts WHERE sha256 = ? AND "
                                          "part = ?", (sha256, k)).fetchone()) is not None:
                data = bytes(row[0])
                digest.update(data)
                out.write(data)
                size, k = size + len(data), k + 1
            out.flush()
            os.fsync(out.fileno())
        if k == 0 or digest.hexdigest() != sha256:
            dest.unlink(missing_ok=True)
            if k == 0:
                raise KeyError(f"the project holds no shared copy {sha256[:12]}…")
            raise ChangedFileError(f"the shared copy {sha256[:12]}… is damaged")
        return size
