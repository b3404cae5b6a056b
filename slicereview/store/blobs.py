"""``project.blobs``: the original bytes of source files held in the project (schema format 8).

A server project stores each imported file's bytes once (``slicereview import`` on a server,
``--embed`` on a file), so that someone who is not on the importer's disk can see the image
with only the project's location and a login. The bytes are kept as the file was (a
compressed DICOM stays compressed), in parts of at most :data:`PART_BYTES`, keyed by the
SHA-256 the project already keeps of the file (``sources.sha256``): one copy per content.
Deleting a source deletes its bytes.

Writing reads the file in parts and hashes what it stores: bytes that are not the SHA-256
given (the file changed since it was hashed) raise :class:`ChangedFileError` and nothing of
them is kept. Reading writes them into a file, hashing again
(:meth:`Blobs.write_to`); a reader never holds more than one part in memory.

Example
-------
>>> import hashlib, tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "a.png").write_bytes(b"not really a png")
16
>>> sha = hashlib.sha256(b"not really a png").hexdigest()
>>> with Project.create(folder / "p.srproj") as project:
...     _ = project.images.add_source(folder / "a.png", sha, "png", [NewImage(1, 1)])
...     _ = project.blobs.put(sha, folder / "a.png")
...     size = project.blobs.write_to(sha, folder / "copy.png")
...     project.blobs.held() == {sha}, size
(True, 16)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from slicereview.store._base import Part

#: The largest part of a file stored in one row (4 MiB: one round trip moves a few parts
#: of a mammogram, and no reader holds a whole file in memory).
PART_BYTES = 4 << 20


class ChangedFileError(ValueError):
    """The file's bytes are not the SHA-256 the project was told (it changed since)."""


class Blobs(Part):
    """The bytes of source files held in the project (see the module docstring)."""

    def put(self, sha256: str, file: str | Path) -> int:
        """Store the bytes of ``file``, whose SHA-256 is ``sha256`` (a source of the project
        must have it), unless they are held already; one transaction. Returns the bytes
        stored (0 when held already). :class:`ChangedFileError` when the bytes read are not
        ``sha256``'s: nothing is kept."""
        with self.transaction():
            if self.has(sha256):
                return 0
            digest = hashlib.sha256()
            size = 0
            with open(file, "rb") as fh:
                for part in _parts(fh):
                    digest.update(part)
                    self.db.execute("INSERT INTO blobs (sha256, part, data) VALUES (?, ?, ?)",
                                    (sha256, size // PART_BYTES, part))
                    size += len(part)
                if size == 0:  # an empty file is one empty part (held, not missing)
                    self.db.execute("INSERT INTO blobs (sha256, part, data) VALUES (?, 0, ?)",
                                    (sha256, b""))
            if digest.hexdigest() != sha256:
                self.db.execute("DELETE FROM blobs WHERE sha256 = ?", (sha256,))
                raise ChangedFileError(
                    f"{Path(file).name} changed while it was imported (its content is not "
                    "what was hashed); import it again.")
        return size

    def has(self, sha256: str) -> bool:
        return self.db.execute("SELECT 1 FROM blobs WHERE sha256 = ? AND part = 0",
                               (sha256,)).fetchone() is not None

    def held(self) -> set[str]:
        """The SHA-256 of every file whose bytes the project holds."""
        return {r[0] for r in self.db.execute("SELECT sha256 FROM blobs WHERE part = 0")}

    def total_bytes(self) -> int:
        """The bytes held (every part of every file)."""
        row = self.db.execute("SELECT coalesce(sum(length(data)), 0) FROM blobs").fetchone()
        return int(row[0])

    def write_to(self, sha256: str, dest: str | Path) -> int:
        """Write the held bytes of ``sha256`` into the file ``dest`` (made or replaced) and
        return their size; ``KeyError`` when the project does not hold them,
        :class:`ChangedFileError` when what was read is not ``sha256``'s (``dest`` is then
        removed)."""
        dest = Path(dest)
        digest = hashlib.sha256()
        size, found = 0, False
        with open(dest, "wb") as out:
            for part in self.parts(sha256):
                found = True
                digest.update(part)
                out.write(part)
                size += len(part)
            out.flush()
            os.fsync(out.fileno())
        if not found or digest.hexdigest() != sha256:
            dest.unlink(missing_ok=True)
            if not found:
                raise KeyError(f"the project holds no file with SHA-256 {sha256[:12]}…")
            raise ChangedFileError(
                f"the stored bytes of {sha256[:12]}… are damaged (their SHA-256 differs); "
                "import the file again.")
        return size

    def parts(self, sha256: str) -> Iterable[bytes]:
        """The held parts of ``sha256`` in order, one query per part (a reader holds one)."""
        k = 0
        while True:
            row = self.db.execute("SELECT data FROM blobs WHERE sha256 = ? AND part = ?",
                                  (sha256, k)).fetchone()
            if row is None:
                return
            yield bytes(row[0])
            k += 1


def _parts(fh: object) -> Iterable[bytes]:
    while True:
        part = fh.read(PART_BYTES)  # type: ignore[attr-defined]
        if not part:
            return
        yield part
