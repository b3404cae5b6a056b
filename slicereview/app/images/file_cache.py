"""Images whose bytes the project holds (*held files*) and this machine's copies of them.

A server project holds the original bytes of its imported files (``project.blobs``,
:mod:`slicereview.store.blobs`), so anyone with its URL and a login can see every image. To be
decoded, such an image must be a file on this machine: :class:`HeldFile` is the path-like
reference the viewer, the exports and the packages get for it (a
:class:`~slicereview.engines.imaging.fetched.FetchedFile`); the first read copies its bytes
from the project into the *file cache* and verifies their SHA-256, and from then on it is
decoded exactly as a file on disk (the same decoding child, limits and refusals).

**The file cache** is one folder, ``SLICEREVIEW_FILE_CACHE`` or ``files`` in the user cache
folder (platformdirs), one file per content (``<SHA-256><suffix>``). Its size is bounded by
``SLICEREVIEW_FILE_CACHE_MB`` (default :data:`DEFAULT_MB`, 2 GB): after each new file the least
recently used files go until the rest fit (the new file stays even when it alone is larger).
Deleting any of it is harmless: a missing copy is fetched again. The cache holds the files as
imported, not decoded pixels: a compressed mammogram is a fifth of its decoded size, so the
same budget keeps five times the images, and thumbnails and display pyramids are then made
from it as from any file.

**Connections.** A fetch runs in the thread that reads the image (a worker, the viewer's
prefetch), on a connection of its own to the project (``Project.open(location,
read_only=True)``), so a long transfer never holds the GUI's connection; a server project's
connections are kept for the next fetch (:data:`_KEPT` per location).

Example
-------
>>> import hashlib, os, tempfile, pathlib
>>> from slicereview.model import NewImage
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> os.environ["SLICEREVIEW_FILE_CACHE"] = str(folder / "cache")
>>> (folder / "a.png").write_bytes(b"PNG bytes")
9
>>> sha = hashlib.sha256(b"PNG bytes").hexdigest()
>>> with Project.create(folder / "p.srproj") as project:
...     _ = project.images.add_source(folder / "a.png", sha, "png", [NewImage(1, 1)])
...     _ = project.blobs.put(sha, folder / "a.png")
...     held = HeldFile(project.location, sha, "/elsewhere/a.png")
>>> held.name, held.local().read_bytes(), held.local().parent.name
('a.png', b'PNG bytes', 'cache')
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path, PurePath

from slicereview.engines.imaging.cache_dirs import cache_budget, cache_dir
from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.fetched import FetchedFile
from slicereview.store.blobs import ChangedFileError
from slicereview.store.location import Location

#: Why an image cannot be read (or packaged) by a login other than the owner's.
NO_COPY_YET = ("it has no de-identified copy yet: ask the project's owner to run "
               "`slicereview privacy PROJECT --prepare`")

#: The file cache's default size bound in MB (``SLICEREVIEW_FILE_CACHE_MB``).
DEFAULT_MB = 2048
#: Idle connections kept per server project for the next fetch.
_KEPT = 2


def cache_folder() -> Path:
    """The file cache's folder (see the module docstring)."""
    return cache_dir("SLICEREVIEW_FILE_CACHE", "files")


def budget_bytes() -> int:
    """The file cache's size bound in bytes (``SLICEREVIEW_FILE_CACHE_MB``, default 2 GB)."""
    return cache_budget("SLICEREVIEW_FILE_CACHE_MB", DEFAULT_MB)


def _suffix(name: str) -> str:
    """The suffix a copy keeps (``.nii.gz`` whole: SimpleITK reads by name)."""
    lower = name.lower()
    for double in (".nii.gz",):
        if lower.endswith(double):
            return double
    suffix = PurePath(lower).suffix
    return suffix if suffix.isascii() and len(suffix) <= 8 else ""


class HeldFile(FetchedFile):
    """An image file whose bytes the project at ``location`` holds (SHA-256 ``sha256``),
    imported from ``stored_path`` (its name is shown; the path itself is not read)."""

    def __init__(self, location: Location, sha256: str, stored_path: str,
                 folder: str | Path | None = None) -> None:
        self.location = location
        self.sha256 = sha256
        self.stored_path = stored_path
        self.path = Path(folder or cache_folder()) / (sha256 + _suffix(stored_path))

    @property
    def name(self) -> str:
        return PurePath(self.stored_path.replace("\\", "/")).name

    def __repr__(self) -> str:
        return f"HeldFile({self.name!r}, {self.sha256[:12]}…)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeldFile) and (other.sha256, other.path) == (
            self.sha256, self.path)

    def __hash__(self) -> int:
        return hash((self.sha256, self.path))

    def cached(self) -> bool:
        return self.path.is_file()

    def local(self) -> Path:
        """The copy in the file cache: touched when present, else fetched from the project
        (SHA-256 checked) and the cache trimmed to its budget.

        Raises
        ------
        UnreadableImageError
            The project does not hold the bytes (any more), or they are damaged.
        ProjectError
            The project cannot be reached (its message says why)."""
        path = self.path
        if path.is_file():
            with contextlib.suppress(OSError):
                os.utime(path)  # recently used
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.partial-{os.getpid()}-{threading.get_ident()}")
        try:
            with _connection(self.location) as project:
                self._fetch(project, partial)
            os.replace(partial, path)
        except (KeyError, ChangedFileError) as exc:
            raise UnreadableImageError(f"{self.name}: {exc.args[0]}") from exc
        finally:
            partial.unlink(missing_ok=True)
        trim(keep=path)
        return path


    def _fetch(self, project: object, dest: Path) -> None:
        project.blobs.write_to(self.sha256, dest)  # type: ignore[attr-defined]


class SharedFile(HeldFile):
    """The shared (de-identified) copy ``sha256`` of an image, which the project at
    ``location`` holds for the logins that may not read the original (docs/privacy.md);
    ``name`` is its neutral name. Cached like a held file, under the copy's own SHA-256."""

    def __init__(self, location: Location, sha256: str, name: str,
                 folder: str | Path | None = None) -> None:
        super().__init__(location, sha256, name, folder)

    def __repr__(self) -> str:
        return f"SharedFile({self.name!r}, {self.sha256[:12]}…)"

    def _fetch(self, project: object, dest: Path) -> None:
        if not self.sha256:
            raise KeyError(NO_COPY_YET)
        project.privacy.write_copy_to(self.sha256, dest)  # type: ignore[attr-defined]


def trim(keep: Path | None = None, budget: int | None = None,
         folder: Path | None = None) -> int:
    """Remove the least recently used copies until the cache (``keep``'s folder, else
    ``folder`` or :func:`cache_folder`) fits ``budget`` (default :func:`budget_bytes`);
    ``keep`` is never removed. Returns the files removed."""
    budget = budget_bytes() if budget is None else budget
    where = keep.parent if keep is not None else (folder or cache_folder())
    entries = []
    for path in where.iterdir() if where.is_dir() else ():
        if ".partial-" in path.name:
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        entries.append((st.st_mtime_ns, st.st_size, path))
    total = sum(size for _, size, _ in entries)
    removed = 0
    for _, size, path in sorted(entries):
        if total <= budget:
            break
        if keep is not None and path == keep:
            continue
        path.unlink(missing_ok=True)
        total -= size
        removed += 1
    return removed


# -- connections for fetching -----------------------------------------------------------------
_idle: dict[str, list[object]] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def _connection(location: Location):
    """A read-only project at ``location`` for one fetch: a kept server connection, or a new
    one (a project file's connection belongs to its thread, so it is closed after use)."""
    from slicereview.store import Project
    from slicereview.store.location import is_server

    key = str(location)
    project = None
    if is_server(location):
        with _lock:
            kept = _idle.get(key)
            project = kept.pop() if kept else None
    if project is None:
        project = Project.open(location, read_only=True)
    ok = False
    try:
        yield project
        ok = True
    finally:
        keep = False
        if ok and is_server(location):
            with _lock:
                kept = _idle.setdefault(key, [])
                if len(kept) < _KEPT:
                    kept.append(project)
                    keep = True
        if not keep:
            project.close()  # type: ignore[attr-defined]


def close_connections() -> None:
    """Close the kept connections (a project closed; tests)."""
    with _lock:
        kept = [p for ps in _idle.values() for p in ps]
        _idle.clear()
    for project in kept:
        with contextlib.suppress(Exception):
            project.close()  # type: ignore[attr-defined]
