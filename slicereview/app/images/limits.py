"""Where and within which limits the project's images are decoded.

Two rules, kept here once for the GUI, the CLI and the import:

* **the project's size limits** (:func:`project_limits`): the defaults of
  :class:`~slicereview.engines.imaging.limits.Limits`, with the values a user raised or
  lowered (``slicereview import --max-frame-pixels ...``), so that the viewer reads what the
  import admitted;
* **which images may be decoded in the viewer's own process** (:func:`decodes_in_process`):
  the one frame or slice of each file that the import already decoded without harm in the
  decoding child (:data:`DECODED_AT_IMPORT`), and only while the file is still the one that
  was imported (:class:`ImportedFiles`: its size and modification time as stored at import,
  or else its SHA-256). Every other image goes to the child, where a decoder that aborts on
  a damaged file cannot end the program; a file whose content changed since the import is
  not decoded at all (:class:`FileChangedError`: relink or import it again).

This module imports no decoder: the main window imports it before its first paint.

Example
-------
>>> from slicereview.model import Image
>>> first = Image(1, 1, "case", "a.dcm", "dicom", info={DECODED_AT_IMPORT: True})
>>> second = Image(2, 1, "case", "a.dcm", "dicom", frame=1)
>>> decodes_in_process(first), decodes_in_process(second)
(True, False)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.fetched import FetchedFile
from slicereview.engines.imaging.limits import Limits
from slicereview.store.file_names import shown as shown  # (a file name fit to show)

if TYPE_CHECKING:
    from slicereview.engines.dicomweb.cache import RemoteInstance
    from slicereview.model import Image
    from slicereview.store import Project

#: Image info key: this frame or slice was decoded without harm in the decoding child when it
#: was imported, so the viewer may decode it in its own process (no child start-up on the first
#: image shown). Every other image (other frames of the file, images of older projects) is
#: decoded in the child.
DECODED_AT_IMPORT = "decoded_at_import"

#: Image info key: ``{"size": bytes, "mtime_ns": ns}`` of the file when it was imported.
FILE_STAMP = "file_stamp"

_LIMITS_KEY = "limits"


class FileChangedError(UnreadableImageError):
    """The file at an image's path is no longer the file that was imported."""


class ImportedFiles:
    """Checks, before any decode, that an image's file is still the one imported.

    The rule (issue: a file swapped after its import for one that crashes a decoder used to
    abort the viewer on every open): the file's size and modification time are compared with
    those stored at import (:data:`FILE_STAMP`); when they differ (or a project imported
    before stamps has none), the file's SHA-256 is compared with the stored one, once per
    file version and session. A file with the same content may be decoded in-process (if
    :func:`decodes_in_process`); a changed one raises :class:`FileChangedError`. A file
    changed without its size and modification time changing is not noticed.

    Built on the GUI thread from the project's sources (:meth:`refresh` after imports and
    relinks); :meth:`check` may run in worker threads (it reads no project).
    """

    def __init__(self, project: Project | None = None) -> None:
        self._sources: dict[int, tuple[str, int]] = {}
        self._verdicts: dict[tuple[str, int, int], bool] = {}
        self.refresh(project)

    def refresh(self, project: Project | None) -> None:
        """Read the sources' hashes and sizes again (on the project's own thread)."""
        self._sources = {} if project is None else project.images.digests()

    def check(self, image: Image, path: Path | RemoteInstance | FetchedFile) -> bool:
        """Whether ``image`` may be decoded in this process; raises
        :class:`FileChangedError` when the file at ``path`` is not the imported one. A file
        that cannot be looked at (missing) gives ``False``: the loader says what is wrong.
        A file whose bytes the project holds (a :class:`FetchedFile`) gives ``False``: its
        copy was checked against the SHA-256 when it was fetched, and the decoding child
        reads it (a copy in the user's cache folder is not trusted further)."""
        if isinstance(path, FetchedFile):
            return False
        try:
            st = os.stat(path)
        except OSError:
            return False
        stamp = (image.info or {}).get(FILE_STAMP)
        same = isinstance(stamp, dict) and stamp.get("size") == st.st_size and stamp.get(
            "mtime_ns") == st.st_mtime_ns
        if not same:
            source = self._sources.get(image.source_id)
            if source is None:  # (imported since the last refresh: no claim, the child)
                return False
            key = (os.fspath(path), st.st_size, st.st_mtime_ns)
            same = self._verdicts.get(key)
            if same is None:
                from slicereview.engines.imaging.hashing import sha256_file

                same = st.st_size == source[1] and sha256_file(os.fspath(path)) == source[0]
                self._verdicts[key] = same
        if not same:
            raise FileChangedError(
                f"{path.name} has changed since it was imported (its content is not the "
                "imported file's), so it is not shown; relink the project to the original "
                "file (File > Relink moved files, or `slicereview relink`) or import the "
                "new file as a new image.")
        return decodes_in_process(image)


def file_stamp(path: Path) -> dict[str, int]:
    """The :data:`FILE_STAMP` of the file at ``path`` now."""
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def decodes_in_process(image: Image) -> bool:
    """True if the viewer may decode ``image`` in its own process (see the module's text)."""
    return bool((image.info or {}).get(DECODED_AT_IMPORT))


def project_limits(project: Project) -> Limits:
    """The project's size limits (:class:`~slicereview.engines.imaging.limits.Limits`): the
    defaults, with the values a user raised or lowered (``slicereview import
    --max-frame-pixels ...``) stored in the project, so that the viewer reads what the import
    admitted."""
    import json

    stored = json.loads(project.meta(_LIMITS_KEY) or "{}")
    known = Limits.__dataclass_fields__
    return Limits(**{k: v for k, v in stored.items() if k in known})


def set_project_limits(project: Project, **changes: float) -> Limits:
    """Store changed limits in the project (one transaction) and return the new limits."""
    import dataclasses
    import json

    limits = dataclasses.replace(project_limits(project), **changes)  # type: ignore[arg-type]
    default = Limits()
    changed = {f.name: getattr(limits, f.name) for f in dataclasses.fields(limits)
               if getattr(limits, f.name) != getattr(default, f.name)}
    project.set_meta(_LIMITS_KEY, json.dumps(changed, sort_keys=True))
    return limits
