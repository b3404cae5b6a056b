"""Import image files and folders into a project.

:func:`import_paths` walks files and folders (recursively), detects each file's format, hashes
it, skips duplicates (same SHA-256 as a file already in the project), reads only the headers it
needs, verifies each file by decoding one image in a decoding child, and adds the files with
their images (:meth:`~slicereview.store.images.Images.add_source`), a few hundred
milliseconds' worth of files per transaction. Unreadable files are listed
with the reason and do not stop the import.

Only technical, non-identifying metadata is stored (see :mod:`.metadata`): never patient
name/ID/birth date, accession number, institution or dates.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np, skimage.io
>>> from slicereview.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> skimage.io.imsave(folder / "a.png", np.zeros((4, 5), np.uint8), check_contrast=False)
>>> with Project.create(folder / "p.srproj") as project:
...     report = import_paths(project, [folder])
>>> report.summary()
'1 file added (1 image); 0 duplicates skipped; 0 unreadable'
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path

from slicereview.app.images import embedding
from slicereview.app.images.embedding import holds_by_default
from slicereview.app.images.import_report import ImportReport as ImportReport
from slicereview.app.images.limits import (
    DECODED_AT_IMPORT,
    FILE_STAMP,
    file_stamp,
    project_limits,
)
from slicereview.app.images.relinking import relink as relink  # (its home before it had its own)
from slicereview.engines.imaging.errors import ImagingError
from slicereview.engines.imaging.formats import DICOM, SITK_FORMATS, detect_format, is_companion
from slicereview.engines.imaging.hashing import sha256_file
from slicereview.engines.imaging.importer import (
    WARNING,
    EntriesOrError,
    SliceSelection,
    iter_files,
    read_entries_many,
)
from slicereview.engines.imaging.limits import Limits
from slicereview.engines.imaging.parallel import GroupReader, decoding_children
from slicereview.store import SUFFIX, Project
from slicereview.store.blobs import ChangedFileError
from slicereview.store.file_names import shown

#: Files go to a decoding child in groups of at most this many files and seconds of hashing:
#: two children share an import evenly, the first group starts at once, and round trips cost
#: little (see :func:`import_paths`).
GROUP_FILES = 8
GROUP_PREPARE_S = 0.05
#: Read files are written in one transaction when the import waits for a child anyway, at
#: most every COMMIT_IDLE_S, at least every COMMIT_EVERY_S, and at the end (or on Cancel).
COMMIT_IDLE_S = 0.05
COMMIT_EVERY_S = 0.25

#: ``progress(done, total, current_path)``: called before each file and once at the end.
ProgressFn = Callable[[int, int, str], None]
#: ``cancel() -> True`` stops the import after the current file.
CancelFn = Callable[[], bool]


def import_paths(
    project: Project,
    paths: Sequence[str | os.PathLike[str]],
    *,
    slices: SliceSelection | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
    limits: Limits | None = None,
    hold: bool | None = None,
) -> ImportReport:
    """Import files and folders into ``project``.

    Parameters
    ----------
    project
        The open project (a worker thread must pass its own connection's Project).
    paths
        Files and folders; folders are walked recursively (see :func:`iter_files`).
    slices
        Which slices of volumes (NIfTI, NRRD, MHA/MHD) become images; default the middle slice
        along axis 0.
    progress
        ``progress(done, total, current_path)``, called before each file and at the end
        (``done == total``).
    cancel
        Polled before each file; when it returns True the import stops, keeping every file
        imported so far, and ``report.cancelled`` is True.
    limits
        Size limits checked from each header (default: the project's, :func:`project_limits`).
    hold
        Hold each new file's bytes in the project (:mod:`.embedding`); default: on a server
        project yes, on a project file no (path references).

    Returns
    -------
    ImportReport

    Notes
    -----
    A pipeline (measured in ``tests/benchmarks/test_bench_decode.py``; docs/performance.md):
    this thread detects formats, hashes and looks up duplicates of groups of at most
    :data:`GROUP_FILES` files and hands each group to a decoding child
    (:class:`~slicereview.engines.imaging.parallel.GroupReader`: two children on a machine
    with two cores or more, each group one round trip, the next group of each child waiting
    in its pipe), keeping one group more in flight than the children hold, and writes the
    groups read, in file order, in one transaction whenever it is about to wait for a child
    anyway (see :class:`_Writer`), so that the writing overlaps the decoding. A durable
    commit costs a disk flush (1-8 ms) and a round trip about as much as reading a small
    DICOM, so neither is paid per file. A crash loses at most the files read since the last
    commit; importing the folder again adds exactly the missing files (the others are
    recognised by their SHA-256).
    Cancel stops the hashing; the groups already in a child are read and kept.
    """
    slices = slices or SliceSelection()
    limits = limits or project_limits(project)
    skipped: list[tuple[Path, str]] = []
    files = iter_files(paths, skipped)
    report = ImportReport(skipped=[(shown(p), reason) for p, reason in skipped])
    seen: set[str] = set()
    writer = _Writer(project, report, holds_by_default(project) if hold is None else hold, seen)
    total = len(files)
    children = decoding_children(total, GROUP_FILES)
    in_flight: deque[tuple[list[_Candidate], Future[list[EntriesOrError]]]] = deque()
    done = 0
    with GroupReader(read_entries_many, children, limits) as reader:
        try:
            while True:
                while (not report.cancelled and done < total
                       and len(in_flight) <= reader.capacity):
                    group, done = _prepare_group(project, files, done, report, seen,
                                                 progress, cancel)
                    if group:
                        future = reader.submit([(c.path, c.fmt) for c in group], slices,
                                               limits=limits)
                        in_flight.append((group, future))
                if not in_flight:
                    break
                group, future = in_flight.popleft()
                if not future.done():
                    writer.idle()
                last = not in_flight and (report.cancelled or done >= total)
                writer.add(group, future.result(), flush=last)
        except BaseException:  # Ctrl-C in the CLI: keep the files read or being read
            with contextlib.suppress(Exception):
                for group, future in in_flight if not writer.broken else ():
                    writer.add(group, future.result(), flush=False)
                writer.flush()
            raise
    writer.flush()
    _share(project, report)
    if progress is not None and not report.cancelled:
        progress(total, total, "")
    warning = _intent_warning(project, writer.intents)
    if warning:
        report.warnings.append(warning)
    return report


def _prepare_group(project: Project, files: list[str], done: int, report: ImportReport,
                   seen: set[str], progress: ProgressFn | None, cancel: CancelFn | None
                   ) -> tuple[list[_Candidate], int]:
    """The next group of candidates from ``files[done:]`` and the new ``done``."""
    group: list[_Candidate] = []
    started = time.monotonic()
    while (done < len(files) and len(group) < GROUP_FILES
           and time.monotonic() - started < GROUP_PREPARE_S):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        if progress is not None:
            progress(done, len(files), shown(files[done]))
        candidate = _prepare(project, Path(files[done]), report, seen)
        if candidate is not None:
            group.append(candidate)
        done += 1
    return group, done


class _Writer:
    """Read files waiting to be written: written in one transaction when the import is about
    to wait for a child anyway (at most every :data:`COMMIT_IDLE_S`), at least every
    :data:`COMMIT_EVERY_S` and at the end; no transaction stays open in between.

    ``seen``: the SHA-256 of the files read but not written yet (the import's duplicates among
    them are found there); a written file's leaves it, as the project finds it then -- so
    that an import of 100,000 files does not hold 100,000 digests.
    """

    def __init__(self, project: Project, report: ImportReport, hold: bool,
                 seen: set[str]) -> None:
        self.project, self.report, self.hold, self.seen = project, report, hold, seen
        self.intents: dict[str, int] = {}
        self.pending: list[tuple[_Candidate, EntriesOrError]] = []
        self.last = time.monotonic()
        self.broken = False  # a store error: write nothing more

    def add(self, group: list[_Candidate], results: list[EntriesOrError], flush: bool) -> None:
        self.pending.extend(zip(group, results, strict=True))
        if flush or time.monotonic() - self.last >= COMMIT_EVERY_S:
            self.flush()

    def idle(self) -> None:
        """The importing thread is about to wait for a child: write now, if it is time."""
        if self.pending and time.monotonic() - self.last >= COMMIT_IDLE_S:
            self.flush()

    def flush(self) -> None:
        """Write and commit what is waiting."""
        if self.pending:
            self.broken = True  # until the commit succeeded
            with self.project.transaction():
                for candidate, result in self.pending:
                    _store(self.project, candidate, result, self.report, self.intents,
                           self.hold)
            self.seen.difference_update(c.sha for c, _ in self.pending)
            self.pending, self.broken = [], False
        self.last = time.monotonic()


@dataclass(frozen=True)
class _Candidate:
    """A file that is an image and not a duplicate, waiting to be read and stored."""

    path: Path
    fmt: str
    sha: str
    known_source: int | None
    stamp: dict[str, int]


def _prepare(project: Project, path: Path, report: ImportReport, seen: set[str]
             ) -> _Candidate | None:
    """Detect the format and hash the file; report what is not an image or a duplicate."""
    try:
        fmt = detect_format(path)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # one odd file must not stop the import
        report.failed.append((shown(path), _UNEXPECTED))
        return None
    if fmt is None:
        # Pixel-data files of a header (a.raw next to a.mhd) and project files (with their
        # SQLite -wal/-shm/-journal files) are not images: skip them without a complaint.
        if not (is_companion(path) or _is_project_file(path)):
            report.failed.append((shown(path), "This is not an image format slicereview reads "
                                             "(DICOM, NIfTI, NRRD, MetaImage, PNG, TIFF, JPEG)."))
        return None
    try:
        stamp = file_stamp(path)  # (before the hash: a later change shows as a mismatch)
        sha = sha256_file(path)
    except OSError as exc:
        report.failed.append((shown(path), f"The file cannot be read ({exc.strerror or 'error'}); "
                                         "check its permissions."))
        return None
    known = project.images.source_by_hash(sha)
    if sha in seen or (known is not None and fmt not in SITK_FORMATS and fmt != DICOM):
        report.duplicates.append(shown(path))
        return None
    seen.add(sha)
    return _Candidate(path, fmt, sha, None if known is None else known.id, stamp)


def _store(project: Project, c: _Candidate, result: EntriesOrError, report: ImportReport,
           intents: dict[str, int], hold: bool) -> None:
    """Add a read file (or report why it was refused); ``hold``: with its bytes."""
    if isinstance(result, ImagingError):
        report.failed.append((shown(c.path), shown(str(result))))
        return
    if isinstance(result, FileNotFoundError):
        report.failed.append((shown(c.path), "The file disappeared during the import; import it "
                                           "again."))
        return
    if isinstance(result, Exception):  # a reader bug or odd file must not stop the import
        report.failed.append((shown(c.path), _UNEXPECTED))
        return
    info, images = result
    warning = (images[0].info or {}).get(WARNING) if images else None
    if warning:
        report.warnings.append(f"{shown(c.path)}: {warning}")
    # The first selected frame or slice was decoded in the decoding child to verify the file:
    # the viewer may decode exactly that image in-process (see DECODED_AT_IMPORT) while the
    # file keeps the size and modification time it had (FILE_STAMP, app/images/limits.py).
    images = [replace(im, info={**(im.info or {}), FILE_STAMP: c.stamp,
                                **({DECODED_AT_IMPORT: True} if k == 0 else {})})
              for k, im in enumerate(images)]
    if c.known_source is not None:
        # A volume or multi-frame file already in the project: add only the slices/frames this
        # selection picks that are not there yet (the user may pick more slices later).
        ids = project.images.add_to_source(c.known_source, images)
        if hold:
            _held(project, c, report, new=False)
        if not ids:
            report.duplicates.append(shown(c.path))
            return
        report.added_images += len(ids)
        report.image_ids.extend(ids)
        return
    ids = project.images.add_source(c.path, c.sha, c.fmt, images, info)
    if hold and not _held(project, c, report, new=True):
        return
    report.added_files += 1
    report.added_images += len(ids)
    report.image_ids.extend(ids)
    intent = str(info.get("presentation_intent") or "").upper()
    if intent:
        intents[intent] = intents.get(intent, 0) + 1


def _held(project: Project, c: _Candidate, report: ImportReport, *, new: bool) -> bool:
    """Hold the file's bytes (:func:`.embedding.hold`); False when it changed since it was
    hashed: a ``new`` source is taken out again and the file reported (a known one keeps
    its path reference, with a warning)."""
    try:
        warning = embedding.hold(project, c.path, c.sha)
    except ChangedFileError as exc:
        if not new:
            report.warnings.append(f"{shown(c.path)}: {exc}")
            return False
        source = project.images.source_by_hash(c.sha)
        if source is not None:
            project.images.remove_source(source.id)
        report.failed.append((shown(c.path), str(exc)))
        return False
    if warning:
        report.warnings.append(warning)
    return True


_UNEXPECTED = ("slicereview could not read this file (an unexpected error; set "
               "SLICEREVIEW_DEBUG=1 and import it alone to see it), so it was left out.")


def _share(project: Project, report: ImportReport) -> None:
    """Make the shared copies of what was added (docs/privacy.md) and say what the owner
    must know: images no rule can de-identify, images that may show burned-in text."""
    from slicereview.app.images import sharing

    if not report.image_ids or not project.privacy.is_owner_login():
        return
    sources = {i.source_id for i in project.images.all(report.image_ids)}
    made = sharing.prepare(project, sources)
    if made.refused:
        report.warnings.append(f"{len(made.refused)} file(s) cannot be de-identified and will "
                               "not be shared: " + "; ".join(f"{c} ({w})"
                                                             for c, w in made.refused[:5]))
    flagged = sharing.flagged(project, sorted(sources))
    if flagged:
        report.warnings.append(f"{len(flagged)} image(s) may show text burned into the pixels "
                               "(check them before sharing: `slicereview privacy PROJECT`): "
                               + ", ".join(case for case, _ in flagged[:10]))


def _is_project_file(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(SUFFIX) or any(
        name.endswith(SUFFIX + extra) for extra in ("-wal", "-shm", "-journal")
    )


def _intent_warning(project: Project, added: dict[str, int]) -> str | None:
    """A warning when this import brings "FOR PROCESSING" and "FOR PRESENTATION" images
    together in the project (within the import, or with images imported before)."""
    if not added:
        return None
    counts: dict[str, int] = {}
    for image in project.images.all():
        intent = str(image.info.get("presentation_intent") or "").upper()
        if intent:
            counts[intent] = counts.get(intent, 0) + 1
    if len(counts) < 2:
        return None
    parts = " and ".join(f"{n} {k!r}" for k, n in sorted(counts.items()))
    return (f"the project now mixes {parts} DICOM images (Presentation Intent Type): "
            "'FOR PROCESSING' images are raw detector data and look different from "
            "'FOR PRESENTATION' ones; do not put both in one rating set")
