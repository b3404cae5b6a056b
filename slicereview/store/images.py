"""``project.images`` (files, images, relinking moved folders) and ``project.image_sets``.

Paths are stored relative to the project file's folder when the image file lies below it
(forward slashes; a name that is not UTF-8 escaped, :mod:`.file_names`), absolute otherwise
(always on a server), plus the file's SHA-256 so that a moved folder can be relinked and
verified. On a server, a machine that sees the files under another folder applies its own
roots (:mod:`.local_roots`) when it resolves a path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from slicereview.model import Image, NewImage, NewSource, Source
from slicereview.store import local_roots
from slicereview.store._base import Part, dumps, loads, now_iso
from slicereview.store.database import Database, Row
from slicereview.store.file_names import from_text, to_text
from slicereview.store.privacy import ORIGIN_UPDATE, SERVED_A_COPY
from slicereview.store.privacy import visible_path as _path


def _image(row: Row) -> Image:
    return Image(
        id=row["id"], source_id=row["source_id"], case_id=row["case_id"], path=row["path"],
        format=row["format"], frame=row["frame"], axis=row["axis"],
        slice_index=row["slice_index"], rows=row["rows"], cols=row["cols"],
        info=loads(row["info"]),  # type: ignore[arg-type]
    )


_SOURCE_COLUMNS = ("id", "path", "sha256", "format", "size_bytes", "added_at", "info")
_IMAGE_COLUMNS = ("id", "source_id", "case_id", "frame", "axis", "slice_index", "rows", "cols",
                  "info")

#: Ids per ``IN (...)`` list (well below SQLite's and PostgreSQL's limits on parameters).
_IN_CHUNK = 500
_SOURCE_SELECT = f"SELECT id, {_path('sources')} AS path, sha256, format, size_bytes FROM sources"

_IMAGE_SELECT = (
    f"SELECT images.*, {_path('sources')} AS path, sources.format AS format "
    "FROM images JOIN sources ON sources.id = images.source_id"
)


def missing_files(folder: str, stored: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The ``(source id, stored path)`` of :meth:`Images.local_files` whose file is not there.
    Reads no project: any thread.

    Each folder is listed once (``os.scandir``: one read of the folder for its ~1,000 files,
    not a ``stat`` per file, which costs a round trip each on a network drive); a name the
    listing lacks is checked with ``os.path.isfile`` (a case-insensitive file system, a file
    behind a link; a folder that cannot be listed checks each of its files that way).
    """
    by_folder: dict[str, list[tuple[int, str, str]]] = {}
    split = _split if os.altsep is None else os.path.split
    for i, path in stored:
        head, name = split(from_text(path))
        by_folder.setdefault(head, []).append((i, path, name))
    missing = []
    for relative, files in by_folder.items():
        head = os.path.join(folder, relative)
        try:
            with os.scandir(head or ".") as entries:
                present = {e.name for e in entries if e.is_file()}
        except OSError:
            present = set()
        missing += [(i, path) for i, path, name in files
                    if name not in present and not os.path.isfile(os.path.join(head, name))]
    missing.sort()
    return missing


def _split(path: str) -> tuple[str, str]:
    """``os.path.split`` where ``/`` is the one separator, at a third of its cost (the folder
    keeps a trailing separator of a doubled one: the same folder to ``os.path.join``)."""
    head, _, name = path.rpartition("/")
    return (head or ("/" if path.startswith("/") else "")), name


class Images(Part):
    """The project's files (*sources*) and the 2-D *images* shown to people.

    ``folder``: the project file's folder, where relative paths start; ``None`` on a server,
    which stores absolute paths only (a server has no folder of its own).
    """

    def __init__(self, db: Database, folder: Path | None) -> None:
        super().__init__(db)
        self.folder = folder
        self._roots: list[tuple[str, str]] | None = None

    def local_roots(self) -> list[tuple[str, str]]:
        """This machine's roots of a server project (:mod:`.local_roots`; none for a file,
        whose paths start at its folder), read once."""
        if self._roots is None:
            self._roots = []
            if self.folder is None:
                row = self.db.execute("SELECT value FROM meta WHERE key = 'project_uuid'"
                                      ).fetchone()
                self._roots = local_roots.load(row[0]) if row else []
        return self._roots

    def set_local_roots(self, roots: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """Add roots of this machine (kept in the user's config, never in the project)."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'project_uuid'").fetchone()
        self._roots = local_roots.save(row[0], roots)
        return self._roots

    # -- paths -----------------------------------------------------------------------------
    def stored_path(self, file: str | Path) -> str:
        """How ``file`` is stored: relative to the project folder when below it."""
        file = Path(file).absolute()
        if self.folder is not None:
            try:
                return to_text(PurePosixPath(*file.relative_to(self.folder).parts).as_posix())
            except ValueError:
                pass
            return to_text(file.as_posix())
        return to_text(local_roots.to_stored(self.local_roots(), file.as_posix()))

    def resolve(self, stored: str) -> Path:
        """The absolute path of a stored path."""
        if self.folder is None:
            return Path(local_roots.to_local(self.local_roots(), from_text(stored)))
        p = Path(from_text(stored))
        return p if p.is_absolute() else self.folder / p

    # -- sources and images ----------------------------------------------------------------
    def source_by_hash(self, sha256: str) -> Source | None:
        row = self.db.execute(f"{_SOURCE_SELECT} WHERE sha256 = ?", (sha256,)).fetchone()
        return None if row is None else Source(
            row["id"], row["path"], row["sha256"], row["format"], row["size_bytes"]
        )

    def add_source(
        self, file: str | Path, sha256: str, fmt: str, images: Sequence[NewImage],
        info: dict | None = None,
    ) -> list[int]:
        """Add one file and its images in one transaction. Returns the new image ids.

        Case ids are ``C000001``-style, allocated in order; they are what the UI shows instead
        of anything from the file's header.
        """
        file = Path(file)
        with self.transaction():
            new_id = self.db.insert(
                "INSERT INTO sources (path, sha256, format, size_bytes, added_at, info) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (self.stored_path(file), sha256, fmt, file.stat().st_size, now_iso(),
                 dumps(info or {})),
            )
            return self.insert_images(new_id, images)

    def add_sources(self, files: Sequence[NewSource]) -> list[list[int]]:
        """Add many files and their images in one transaction, in bulk (the store's bulk load:
        ``COPY`` on a server); returns each file's new image ids. The same rows as
        :meth:`add_source` per file, at a fraction of the cost per row. A SHA-256 already in
        the project fails the whole call (the importer drops duplicates before)."""
        if not files:
            return []
        added = now_iso()
        with self.transaction():
            source_id = self.db.execute("SELECT coalesce(max(id), 0) FROM sources").fetchone()[0]
            image_id = self.db.execute("SELECT coalesce(max(id), 0) FROM images").fetchone()[0]
            sources, images, ids = [], [], []
            for f in files:
                source_id += 1
                sources.append((source_id, self.stored_path(f.path), f.sha256, f.format,
                                int(f.size_bytes), added, dumps(f.info or {})))
                mine = []
                for im in f.images:
                    image_id += 1
                    mine.append(image_id)
                    images.append((image_id, source_id, f"C{image_id:06d}", im.frame, im.axis,
                                   im.slice_index, im.rows, im.cols, dumps(im.info or {})))
                ids.append(mine)
            self.db.load_rows("sources", _SOURCE_COLUMNS, sources)
            self.db.load_rows("images", _IMAGE_COLUMNS, images)
            self.db.reset_ids(("sources", "images"))
        return ids

    def insert_images(self, source_id: int, images: Sequence[NewImage]) -> list[int]:
        """Add ``images`` to source ``source_id`` with the next case ids (inside the caller's
        transaction); returns their ids."""
        first = self.db.execute("SELECT coalesce(max(id), 0) FROM images").fetchone()[0]
        ids = []
        for k, im in enumerate(images, start=1):
            new_id = self.db.insert(
                "INSERT INTO images (source_id, case_id, frame, axis, slice_index, rows, "
                "cols, info) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (source_id, f"C{first + k:06d}", im.frame, im.axis, im.slice_index,
                 im.rows, im.cols, dumps(im.info or {})),
            )
            ids.append(new_id)
        return ids

    def add_to_source(self, source_id: int, images: Sequence[NewImage]) -> list[int]:
        """Add the frames/slices of ``images`` that the source does not have yet (one
        transaction). Returns the new image ids (empty when all were there)."""
        with self.transaction():
            have = {
                tuple(r) for r in self.db.execute(
                    "SELECT frame, axis, slice_index FROM images WHERE source_id = ?",
                    (source_id,))
            }
            new = [im for im in images if (im.frame, im.axis, im.slice_index) not in have]
            return self.insert_images(source_id, new)

    def remove_source(self, source_id: int) -> None:
        """Delete a source with its images and held bytes (an import taking back a file
        that changed while it was read; nothing may refer to its images yet)."""
        with self.transaction():
            self.db.execute("DELETE FROM sources WHERE id = ?", (source_id,))

    def get(self, image_id: int) -> Image:
        """One image; ``KeyError`` when the project has none with that id."""
        row = self.db.execute(f"{_IMAGE_SELECT} WHERE images.id = ?", (image_id,)).fetchone()
        if row is None:
            raise KeyError(f"no image {image_id} in this project")
        return _image(row)

    def all(self, ids: Iterable[int] | None = None) -> list[Image]:
        """All images in import order (or those with ``ids``, in that order: one SELECT per
        :data:`_IN_CHUNK` ids; ``KeyError`` for an id the project does not have)."""
        if ids is None:
            rows = self.db.execute(f"{_IMAGE_SELECT} ORDER BY images.id").fetchall()
            return [_image(r) for r in rows]
        wanted = list(ids)
        found: dict[int, Image] = {}
        for k in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[k:k + _IN_CHUNK]
            marks = ", ".join("?" * len(chunk))
            for row in self.db.execute(f"{_IMAGE_SELECT} WHERE images.id IN ({marks})", chunk):
                found[row["id"]] = _image(row)
        missing = [i for i in wanted if i not in found]
        if missing:
            raise KeyError(f"no image {missing[0]} in this project")
        return [found[i] for i in wanted]

    def ids(self, fmt: str | None = None) -> list[int]:
        """Every image's id in import order (of the files of format ``fmt`` only, if given):
        one SELECT of one integer column, the image list's index."""
        if fmt is None:
            rows = self.db.execute("SELECT id FROM images ORDER BY id")
        else:
            rows = self.db.execute(
                "SELECT images.id FROM images JOIN sources ON sources.id = images.source_id "
                "WHERE sources.format = ? ORDER BY images.id", (fmt,))
        return [r[0] for r in rows]

    def formats(self) -> list[str]:
        """The formats of the project's files, sorted (one aggregate query)."""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT format FROM sources ORDER BY format")]

    def names(self) -> list[tuple[int, str, str]]:
        """``(image id, case id, file name)`` of every image in import order (what the image
        list's text filter matches)."""
        rows = self.db.execute(
            f"SELECT images.id, images.case_id, {_path('sources')} FROM images "
            "JOIN sources ON sources.id = images.source_id ORDER BY images.id")
        return [(r[0], r[1], Path(from_text(r[2])).name) for r in rows]

    def volume_slices(self, source_id: int, axis: int) -> list[Image]:
        """The slices of one volume along ``axis``, in slice order (for slice scrolling)."""
        rows = self.db.execute(
            f"{_IMAGE_SELECT} WHERE images.source_id = ? AND images.axis = ? "
            "ORDER BY images.slice_index",
            (source_id, axis),
        ).fetchall()
        return [_image(r) for r in rows]

    def cases(self, ids: Iterable[int] | None = None) -> dict[int, tuple[str, int, int]]:
        """image id → ``(case_id, rows, cols)`` of every image (one SELECT), or of those with
        ``ids`` (one SELECT per :data:`_IN_CHUNK`; an id the project lacks is left out)."""
        sql = "SELECT id, case_id, rows, cols FROM images"
        if ids is None:
            return {r[0]: (r[1], r[2], r[3]) for r in self.db.execute(f"{sql} ORDER BY id")}
        wanted, found = list(ids), {}
        for k in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[k:k + _IN_CHUNK]
            rows = self.db.execute(f"{sql} WHERE id IN ({', '.join('?' * len(chunk))})", chunk)
            found.update({r[0]: (r[1], r[2], r[3]) for r in rows})
        return found

    def sources(self) -> list[Source]:
        rows = self.db.execute(f"{_SOURCE_SELECT} ORDER BY id").fetchall()
        return [Source(r["id"], r["path"], r["sha256"], r["format"], r["size_bytes"]) for r in rows]

    def held_source(self, source_id: int) -> Source | None:
        """The source ``source_id`` when the project holds its file's bytes (:mod:`.blobs`),
        else ``None`` (one SELECT by key: what is held is asked per image shown, not read
        whole at open)."""
        row = self.db.execute(
            f"SELECT s.id, {_path('s')}, s.sha256, s.format, s.size_bytes FROM sources s JOIN "
            "blobs b ON b.sha256 = s.sha256 AND b.part = 0 WHERE s.id = ?", (source_id,)).fetchone()
        return None if row is None else Source(row[0], row[1], row[2], row[3], row[4])

    # -- missing files and relinking -------------------------------------------------------
    def local_files(self) -> tuple[str, list[tuple[int, str]]]:
        """The folder stored paths are relative to (``""`` for none) and ``(source id,
        stored path)`` of every source read from disk, not from a PACS nor from the bytes the
        project holds (one SELECT; for :func:`missing_files`, which may run in another
        thread)."""
        folder = "" if self.folder is None else os.fspath(self.folder)
        stored = [(r[0], r[1]) for r in self.db.execute(
            f"SELECT id, {_path('sources')} FROM sources WHERE id NOT IN (SELECT source_id "
            "FROM dicomweb_sources) AND sha256 NOT IN (SELECT sha256 FROM blobs WHERE part = 0)"
            f" AND NOT {SERVED_A_COPY} ORDER BY id")]
        roots = self.local_roots()  # (this machine's paths, on a server)
        return folder, [(i, to_text(local_roots.to_local(roots, from_text(path))))
                        for i, path in stored] if roots else stored

    def missing_sources(self) -> list[Source]:
        """Sources whose file is not where the project says it is (a source on a PACS is
        never missing: its pixels are fetched again; nor is one whose bytes the project
        holds, :mod:`.blobs`)."""
        missing = {i for i, _ in missing_files(*self.local_files())}
        return [s for s in self.sources() if s.id in missing] if missing else []

    def digests(self) -> dict[int, tuple[str, int]]:
        """source id → ``(SHA-256, size in bytes)`` of every source (one SELECT)."""
        return {r[0]: (r[1], r[2]) for r in self.db.execute(
            "SELECT id, sha256, size_bytes FROM sources")}

    def signature(self) -> tuple[int, ...]:
        """What changes when images are added or removed or a file is relinked: counts and
        largest ids of images and sources, and the total length of the stored paths (two
        aggregate queries; a relink to paths of the same total length is not seen)."""
        images = self.db.execute("SELECT count(*), coalesce(max(id), 0) FROM images")
        sources = self.db.execute("SELECT count(*), coalesce(max(id), 0), "
                                  "coalesce(sum(length(path)), 0) FROM sources")
        return (*images.fetchone(), *sources.fetchone())

    def set_source_paths(self, updates: Sequence[tuple[int, str | Path]]) -> int:
        """Store new locations ``(source id, file)`` in one transaction; returns how many."""
        with self.transaction():
            for source_id, file in updates:
                stored = (self.stored_path(file), source_id)  # (the owner's original path,
                if self.db.execute(ORIGIN_UPDATE, stored).rowcount == 0:  # if it has one)
                    self.db.execute("UPDATE sources SET path = ? WHERE id = ?", stored)
        return len(updates)

    def set_stored_paths(self, paths: dict[int, str]) -> None:
        """Replace stored source paths as given (source id → path relative to the project
        file's folder, forward slashes), one transaction."""
        with self.transaction():
            self.db.executemany("UPDATE sources SET path = ? WHERE id = ?",
                                [(p, i) for i, p in paths.items()])


class ImageSets(Part):
    """Named, ordered sets of images (what a session or a batch works on)."""

    def create(self, name: str, image_ids: Sequence[int]) -> int:
        """A new image set ``name`` holding ``image_ids`` in this order; returns its id."""
        with self.transaction():
            set_id = self.db.insert(
                "INSERT INTO image_sets (name, created_at) VALUES (?, ?)", (name, now_iso())
            )
            self.db.executemany(
                "INSERT INTO image_set_members (image_set_id, image_id, position) "
                "VALUES (?, ?, ?)",
                [(set_id, image_id, k) for k, image_id in enumerate(image_ids)],
            )
        return set_id

    def add(self, set_id: int, image_ids: Sequence[int]) -> None:
        """Append ``image_ids`` to a set (those already in it stay where they are)."""
        with self.transaction():
            start = self.db.execute(
                "SELECT coalesce(max(position) + 1, 0) FROM image_set_members "
                "WHERE image_set_id = ?", (set_id,)
            ).fetchone()[0]
            self.db.executemany(
                "INSERT INTO image_set_members (image_set_id, image_id, position) "
                "VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(set_id, image_id, start + k) for k, image_id in enumerate(image_ids)],
            )

    def members(self, set_id: int) -> list[int]:
        """The image ids of a set, in set order."""
        rows = self.db.execute(
            "SELECT image_id FROM image_set_members WHERE image_set_id = ? ORDER BY position",
            (set_id,),
        ).fetchall()
        return [r[0] for r in rows]

    def all(self) -> dict[int, str]:
        """image set id → name, oldest first."""
        rows = self.db.execute("SELECT id, name FROM image_sets ORDER BY id").fetchall()
        return {r[0]: r[1] for r in rows}

    def id_by_name(self, name: str) -> int | None:
        row = self.db.execute("SELECT id FROM image_sets WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])
