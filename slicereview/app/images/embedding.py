"""Holding the bytes of image files in the project (*held files*), the rule kept once:

* **a server project holds its images by default** — ``import`` into a server project stores
  each new file's bytes in the project (``project.blobs``), so that people who are not on the
  importer's disk see the images with only the URL and a login; ``--reference`` keeps path
  references instead (a site with shared storage; ``relink`` per machine). A project file
  references its files as before (``--embed`` holds them there too);
* **the bytes are the file's** — as it was imported, content-addressed by its SHA-256 (one
  copy per content; a compressed DICOM stays compressed); bytes that are not the hashed
  content (the file changed during the import) are refused and the file is reported;
* **one file, one blob** — a header that keeps its pixels in a second file (MetaImage
  ``.mhd``, NRRD ``.nhdr``) cannot be held: it stays a path reference, with a warning;
* **a PACS image is never held** — it is referenced by its UIDs (its pixels are fetched from
  the PACS into each machine's own cache).

:func:`hold_files` holds the referenced files of a whole project (``slicereview hold PROJECT``,
``slicereview copy FILE URL --hold``: a file's project copied to a server then works on every
machine).

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np, skimage.io
>>> from slicereview.store import Project
>>> from slicereview.app.images.importing import import_paths
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> skimage.io.imsave(folder / "a.png", np.zeros((4, 5), np.uint8), check_contrast=False)
>>> with Project.create(folder / "p.srproj") as project:
...     _ = import_paths(project, [folder / "a.png"])
...     before = len(project.blobs.held())
...     report = hold_files(project)
...     before, report.held, len(project.blobs.held())
(0, 1, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from slicereview.store import Project
from slicereview.store.blobs import ChangedFileError
from slicereview.store.file_names import shown

#: Header files whose pixels are in a second file: never held (see the module docstring).
TWO_FILE_SUFFIXES = (".mhd", ".nhdr")


def holds_by_default(project: Project) -> bool:
    """Whether ``import`` holds new files' bytes in ``project`` when not told: on a server."""
    return project.is_server


def why_not_held(path: Path) -> str | None:
    """``None`` when the file at ``path`` can be held, else the warning saying why not."""
    if path.name.lower().endswith(TWO_FILE_SUFFIXES):
        return (f"{shown(path)} keeps its pixels in a second file, so it is referenced by its "
                "path, not held in the project: people on other machines need the same "
                "folder (or relink)")
    return None


def hold(project: Project, path: Path, sha256: str) -> str | None:
    """Hold the bytes of the file at ``path`` (already a source with ``sha256``) inside the
    caller's transaction; returns a warning when it stays a path reference
    (:func:`why_not_held`). :class:`~slicereview.store.blobs.ChangedFileError` when its bytes
    are not ``sha256``'s."""
    warning = why_not_held(path)
    if warning is None:
        project.blobs.put(sha256, path)
    return warning


@dataclass
class HoldReport:
    """What :func:`hold_files` did: files ``held`` now, ``already`` held, on a ``pacs``,
    kept as references with a reason (``referenced``: path, why)."""

    held: int = 0
    already: int = 0
    pacs: int = 0
    referenced: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        text = f"{self.held} image file(s) now held in the project, {self.already} already"
        if self.pacs:
            text += f", {self.pacs} on a PACS (referenced by UID)"
        if self.referenced:
            text += f", {len(self.referenced)} still referenced by path"
        return text


def hold_files(project: Project,
               progress: Callable[[int, int, str], None] | None = None) -> HoldReport:
    """Hold the bytes of every file ``project`` references by path, one transaction per file
    (a missing or changed file is listed, not fatal)."""
    report = HoldReport()
    held = project.blobs.held()
    remote = set(project.dicomweb.refs())
    sources = project.images.sources()
    for k, source in enumerate(sources):
        if progress is not None:
            progress(k, len(sources), shown(source.path))
        if source.id in remote:
            report.pacs += 1
            continue
        if source.sha256 in held:
            report.already += 1
            continue
        path = project.images.resolve(source.path)
        if not path.is_file():
            report.referenced.append((shown(source.path), "the file is missing (relink "
                                                          "first)"))
            continue
        try:
            with project.transaction():
                warning = hold(project, path, source.sha256)
        except ChangedFileError:
            warning = (f"{shown(path)} is no longer the file that was imported (its SHA-256 "
                       "differs)")
        if warning is not None:
            report.referenced.append((shown(source.path), warning))
        else:
            report.held += 1
    if progress is not None:
        progress(len(sources), len(sources), "")
    return report
