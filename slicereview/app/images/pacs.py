"""Images that live on a PACS: credentials, and where each image of a project is read from.

**Credentials** (:class:`Credentials`) are kept in memory only, per server (scheme, host and
port), never in the project or the settings. They come from the environment, checked in this
order, or from a prompt (the CLI asks on a terminal, the GUI in a dialog):

* ``SLICEREVIEW_DICOMWEB_TOKEN``: an HTTP bearer token;
* ``SLICEREVIEW_DICOMWEB_USER`` and ``SLICEREVIEW_DICOMWEB_PASSWORD``: HTTP basic (without
  the password, the prompt asks for it).

**Where an image is read from** (:class:`Locator`): a file's absolute path; for an image
imported over DICOMweb a :class:`~slicereview.engines.dicomweb.cache.RemoteInstance` (its
cached copy, fetched again in the decoding child when the cache lost it); for a file whose
bytes the project holds (a server project's import) a
:class:`~slicereview.app.images.file_cache.HeldFile` (its copy in the file cache, fetched from
the project when missing). A server login that may not read the originals (annotators and
reviewers while the project shares de-identified copies, docs/privacy.md) gets each image's
shared copy instead (:class:`~slicereview.app.images.file_cache.SharedFile`), never its path
or PACS reference.

Example
-------
>>> creds = Credentials(environ={"SLICEREVIEW_DICOMWEB_TOKEN": "t0k"})
>>> creds.get("http://pacs:8042/dicom-web")
Auth(kind='bearer', user='')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.app.images.file_cache import HeldFile, SharedFile
from slicereview.app.images.file_cache import cache_folder as file_cache_folder
from slicereview.app.images.privacy import reads_originals
from slicereview.engines.dicomweb.auth import Auth, origin
from slicereview.engines.dicomweb.cache import RemoteInstance, cache_folder

if TYPE_CHECKING:
    from slicereview.model import Image, Source
    from slicereview.store import Project

ENV_TOKEN = "SLICEREVIEW_DICOMWEB_TOKEN"
ENV_USER = "SLICEREVIEW_DICOMWEB_USER"
ENV_PASSWORD = "SLICEREVIEW_DICOMWEB_PASSWORD"

#: ``prompt(server, user) -> Auth | None``: ask the user (``user`` pre-filled, may be "").
Prompt = Callable[[str, str], "Auth | None"]


class Credentials:
    """Credentials per server, in memory (see the module text)."""

    def __init__(self, prompt: Prompt | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        self.prompt = prompt
        self.environ = os.environ if environ is None else environ
        self._known: dict[str, Auth | None] = {}

    def from_environment(self) -> Auth | None:
        token = self.environ.get(ENV_TOKEN, "").strip()
        if token:
            return Auth.bearer(token)
        user = self.environ.get(ENV_USER, "").strip()
        password = self.environ.get(ENV_PASSWORD)
        if user and password is not None:
            return Auth.basic(user, password)
        return None

    def get(self, url: str) -> Auth | None:
        """The credentials for ``url``'s server: given earlier, else from the environment
        (``None``: none; the server may not need any)."""
        where = origin(url)
        if where not in self._known:
            self._known[where] = self.from_environment()
        return self._known[where]

    def set(self, url: str, auth: Auth | None) -> None:
        self._known[origin(url)] = auth

    def ask(self, url: str) -> Auth | None:
        """Ask the prompt for ``url``'s server (after a refusal); remembers the answer.
        ``None`` when there is no prompt or the user declined."""
        if self.prompt is None:
            return None
        auth = self.prompt(origin(url), self.environ.get(ENV_USER, ""))
        if auth is not None:
            self.set(url, auth)
        return auth


class Locator:
    """Where each image of ``project`` is read from (see the module text). Call
    :meth:`refresh` after an import."""

    def __init__(self, project: Project, credentials: Credentials | None = None) -> None:
        self.project = project
        self.credentials = credentials or Credentials()
        self.refresh()

    def refresh(self) -> None:
        self._remote = self.project.dicomweb.refs()
        self._folder = str(cache_folder())
        # Source id -> the source when the project holds its bytes, read when an image of it
        # is first asked for (reading every source here made opening O(images): 3 s at 100,000).
        self._held: dict[int, Source | None] = {}
        self._files = file_cache_folder()
        self._shared_only = not reads_originals(self.project)

    def _held_source(self, source_id: int) -> Source | None:
        if source_id not in self._held:
            self._held[source_id] = self.project.images.held_source(source_id)
        return self._held[source_id]

    def is_remote(self, image: Image) -> bool:
        return image.source_id in self._remote

    def file_of(self, image: Image, original: bool = False
                ) -> Path | RemoteInstance | HeldFile:
        """Where ``image`` is read from; ``original``: the original file even where this
        connection would be given the shared copy (the app layer's own reads, e.g. making a
        copy, which only the owner can)."""
        if self._shared_only and not original:
            copy = self.project.privacy.copy_of(image.source_id)
            return SharedFile(self.project.location, copy.sha256 if copy else "",
                              copy.name if copy else f"{image.case_id}", self._files)
        held = self._held_source(image.source_id)
        if held is not None:
            return HeldFile(self.project.location, held.sha256, held.path, self._files)
        entry = self._remote.get(image.source_id)
        if entry is None:
            return self.project.images.resolve(image.path)
        ref, sha = entry
        return RemoteInstance(ref.url, ref.study_uid, ref.series_uid, ref.sop_uid, sha,
                              auth=self.credentials.get(ref.url), folder=self._folder)


def local_file(location: Path | RemoteInstance | HeldFile, max_bytes: int) -> Path:
    """A readable file for ``location``: the file itself, the PACS image's cache file
    (fetched when missing; used for headers only, e.g. by the DICOM export), or a held
    file's copy in the file cache."""
    if isinstance(location, HeldFile):
        return location.local()
    if isinstance(location, RemoteInstance):
        from slicereview.engines.dicomweb.cache import fetch

        return fetch(location, max_bytes)
    return location


def imported_studies(project: Project) -> dict[str, set[str]]:
    """The project's PACS servers (DICOMweb addresses) with the studies imported from each
    (Study Instance UIDs), the server with the most imported images first; empty for a
    project with no PACS image. *Import from PACS…* opens on the first and marks these."""
    counts: dict[str, int] = {}
    studies: dict[str, set[str]] = {}
    for ref, _sha in project.dicomweb.refs().values():
        counts[ref.url] = counts.get(ref.url, 0) + 1
        studies.setdefault(ref.url, set()).add(ref.study_uid)
    return {url: studies[url] for url in sorted(counts, key=lambda u: -counts[u])}
