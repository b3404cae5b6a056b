"""The bounded pixel cache of images that live on a PACS, and the reference to one of them.

Each retrieved instance is one file ``<cache folder>/<key>.dcm`` (the key: a hash of the
service URL and the SOP Instance UID). The folder is ``SLICEREVIEW_DICOMWEB_CACHE`` or
``dicomweb`` in the user cache folder (platformdirs); its size is bounded by
``SLICEREVIEW_DICOMWEB_CACHE_MB`` (default 4096 MB): after each new file the least recently
used files go until the rest fit (the new file stays even when it alone is larger). Deleting
any of it is harmless: a missing file is fetched again when the image is shown, in the
decoding child (:func:`fetch`), with the limits and refusals of any file, and must have the
SHA-256 it had at import.

Example
-------
>>> ref = RemoteInstance("http://pacs/dicom-web", "1.2", "1.2.3", "1.2.3.4")
>>> ref.name, ref.wado_url
('instance 1.2.3.4', 'http://pacs/dicom-web/studies/1.2/series/1.2.3/instances/1.2.3.4')
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.engines.dicomweb.errors import DicomwebError
from slicereview.engines.imaging.cache_dirs import cache_budget, cache_dir

if TYPE_CHECKING:  # (requests loads only when a PACS is asked something)
    from slicereview.engines.dicomweb.auth import Auth
    from slicereview.engines.dicomweb.http import NetLimits

_DEFAULT_MB = 4096


def cache_folder() -> Path:
    return cache_dir("SLICEREVIEW_DICOMWEB_CACHE", "dicomweb")


def budget_bytes() -> int:
    return cache_budget("SLICEREVIEW_DICOMWEB_CACHE_MB", _DEFAULT_MB)


def cache_file(url: str, sop_uid: str, folder: str | Path | None = None) -> Path:
    """The cache file of one instance, in ``folder`` (default :func:`cache_folder`)."""
    key = hashlib.sha256(f"{url.rstrip('/')}\0{sop_uid}".encode()).hexdigest()[:40]
    return (Path(folder) if folder else cache_folder()) / f"{key}.dcm"


def trim(keep: Path | None = None, budget: int | None = None) -> int:
    """Remove the least recently used cache files until the folder (``keep``'s, else
    :func:`cache_folder`) fits ``budget`` (default :func:`budget_bytes`); ``keep`` is never
    removed. Returns the files removed."""
    budget = budget_bytes() if budget is None else budget
    entries = []
    folder = keep.parent if keep is not None else cache_folder()
    for path in folder.glob("*.dcm"):
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


@dataclass(frozen=True)
class RemoteInstance(os.PathLike):
    """An image file that lives on a PACS: the service URL and the instance's UIDs, the
    SHA-256 it had at import (``""``: not known yet), the credentials to fetch it again
    (kept in memory only) and the cache folder (default: :func:`cache_folder` of the process
    that asks; the viewer passes its own, so the decoding child uses the same one).
    ``os.fspath()`` of it is its cache file."""

    url: str
    study_uid: str
    series_uid: str
    sop_uid: str
    sha256: str = ""
    auth: Auth | None = field(default=None, compare=False, repr=False)
    folder: str = field(default="", compare=False, repr=False)

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return self.wado_url

    @property
    def path(self) -> Path:
        """The cache file (present or not)."""
        return cache_file(self.url, self.sop_uid, self.folder or None)

    @property
    def name(self) -> str:
        return f"instance {self.sop_uid}"

    @property
    def wado_url(self) -> str:
        return (f"{self.url}/studies/{self.study_uid}/series/{self.series_uid}"
                f"/instances/{self.sop_uid}")

    def cached(self) -> bool:
        return self.path.is_file()

    def is_file(self) -> bool:
        """True: an image on a PACS is never a missing file (a path-like's question, asked by
        the image list); its cache file is fetched again when needed."""
        return True


def fetch(remote: RemoteInstance, max_bytes: int, limits: NetLimits | None = None) -> Path:
    """The cache file of ``remote``: touched when present, else retrieved (WADO-RS) and
    checked against the SHA-256 it had at import, then the cache is trimmed."""
    from slicereview.engines.dicomweb.client import InstanceRow, Server

    path = remote.path
    if path.is_file():
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used
        return path
    row = InstanceRow(remote.study_uid, remote.series_uid, remote.sop_uid)
    with Server(remote.url, remote.auth, limits) as server:
        digest, _ = server.retrieve(row, path, max_bytes)
    if remote.sha256 and digest != remote.sha256:
        path.unlink(missing_ok=True)
        raise DicomwebError(
            f"The PACS at {server.where} now sends different data for {remote.name} than when "
            "it was imported (its SHA-256 changed), so it is not shown; import the study "
            "again if the change is expected.")
    trim(keep=path)
    return path
