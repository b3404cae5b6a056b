"""Import image files and folders into a project.

:func:`import_paths` walks files and folders (recursively), detects each file's format, hashes
it, skips duplicates (same SHA-256 as a file already in the project), reads only the headers it
needs, and adds each file with its images in one transaction
(:meth:`~slicereview.core.store.images.ImagesMixin.add_source`). Unreadable files are listed
with the reason and do not stop the import.

Only technical, non-identifying metadata is stored (see :mod:`.metadata`): never patient
name/ID/birth date, accession number, institution or dates.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np, skimage.io
>>> from slicereview.core.store import Project
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> skimage.io.imsave(folder / "a.png", np.zeros((4, 5), np.uint8), check_contrast=False)
>>> with Project.create(folder / "p.srproj") as project:
...     report = import_paths(project, [folder])
>>> report.summary()
'1 file added (1 image); 0 duplicates skipped; 0 unreadable'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from slicereview.core.imaging import dicom, raster, volume
from slicereview.core.imaging.errors import ImagingError, UnreadableImageError
from slicereview.core.imaging.formats import (
    DICOM,
    RASTER_FORMATS,
    SITK_FORMATS,
    detect_format,
    is_companion,
)
from slicereview.core.imaging.hashing import sha256_file
from slicereview.core.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.core.store.images import NewImage

if TYPE_CHECKING:
    from slicereview.core.store import Project

#: ``progress(done, total, current_path)``: called before each file and once at the end.
ProgressFn = Callable[[int, int, str], None]
#: ``cancel() -> True`` stops the import after the current file.
CancelFn = Callable[[], bool]

_MODES = ("middle", "all", "every", "range")


@dataclass(frozen=True)
class SliceSelection:
    """Which slices of a volume become images.

    ``axis`` is the numpy axis of the SimpleITK ``(z, y, x)`` array that is sliced (0: axial
    slices of a typical scan). ``mode``:

    - ``"middle"``: the middle slice only (index ``n // 2``);
    - ``"all"``: every slice;
    - ``"every"``: every ``step``-th slice starting at 0 (``start``/``stop`` optionally bound it);
    - ``"range"``: slices ``start`` to ``stop`` (exclusive, Python slice rules, negative counts
      from the end) every ``step``.

    Indices outside the volume are dropped; an empty selection is an error reported per file.

    Example
    -------
    >>> SliceSelection(mode="every", step=4).indices(10)
    [0, 4, 8]
    >>> SliceSelection().indices(10)
    [5]
    """

    axis: int = 0
    mode: str = "middle"
    step: int = 1
    start: int | None = None
    stop: int | None = None

    def __post_init__(self) -> None:
        if self.mode not in _MODES:
            raise ValueError(f"slice mode must be one of {', '.join(_MODES)}, not {self.mode!r}")
        if self.axis not in (0, 1, 2):
            raise ValueError(f"slice axis must be 0, 1 or 2, not {self.axis}")
        if self.step < 1:
            raise ValueError(f"slice step must be >= 1, not {self.step}")

    def indices(self, n: int) -> list[int]:
        """The selected slice indices of a volume with ``n`` slices along ``axis``."""
        if n <= 0:
            return []
        if self.mode == "middle":
            return [n // 2]
        if self.mode == "all":
            return list(range(n))
        return list(range(n))[slice(self.start, self.stop, self.step)]


def parse_slices(text: str, axis: int = 0) -> SliceSelection:
    """Parse the CLI form of a slice selection.

    ``"middle"``, ``"all"``, ``"every:K"`` or ``"range:START:STOP[:STEP]"`` (STOP exclusive).

    Example
    -------
    >>> parse_slices("every:4")
    SliceSelection(axis=0, mode='every', step=4, start=None, stop=None)
    >>> parse_slices("range:10:20", axis=2)
    SliceSelection(axis=2, mode='range', step=1, start=10, stop=20)
    """
    parts = text.strip().lower().split(":")
    try:
        if parts[0] in ("middle", "all") and len(parts) == 1:
            return SliceSelection(axis=axis, mode=parts[0])
        if parts[0] == "every" and len(parts) == 2:
            return SliceSelection(axis=axis, mode="every", step=int(parts[1]))
        if parts[0] == "range" and len(parts) in (3, 4):
            step = int(parts[3]) if len(parts) == 4 else 1
            start, stop = int(parts[1]), int(parts[2])
            if (start >= 0) == (stop >= 0) and stop <= start or step < 1:
                raise ValueError("STOP must be greater than START and STEP at least 1 "
                                 "(STOP is exclusive: range:10:20 picks slices 10-19)")
            return SliceSelection(axis=axis, mode="range", start=start, stop=stop, step=step)
    except ValueError as exc:
        raise ValueError(f"bad slice selection {text!r}: {exc}") from None
    raise ValueError(
        f"bad slice selection {text!r}: use middle, all, every:K or range:START:STOP[:STEP]"
    )


@dataclass
class ImportReport:
    """What one :func:`import_paths` call did.

    ``duplicates`` are the paths skipped because a file with the same SHA-256 is already in the
    project (or earlier in the same import) — for a volume or multi-frame file, only when the
    chosen slices/frames are all in the project already (new ones are added to it);
    ``failed`` pairs a path with the reason it could not be imported; ``warnings`` are
    import-wide remarks (e.g. this import made the project mix "FOR PROCESSING" and
    "FOR PRESENTATION" mammograms).
    """

    added_files: int = 0
    added_images: int = 0
    image_ids: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cancelled: bool = False

    def summary(self) -> str:
        """One line for the user, e.g. ``'3 files added (40 images); 1 duplicate skipped; ...'``."""
        def n(k: int, word: str) -> str:
            return f"{k} {word}{'' if k == 1 else 's'}"

        text = (f"{n(self.added_files, 'file')} added ({n(self.added_images, 'image')}); "
                f"{n(len(self.duplicates), 'duplicate')} skipped; {len(self.failed)} unreadable")
        if self.cancelled:
            text += "; cancelled"
        return text

    def details(self, limit: int = 20) -> list[str]:
        """Lines for a terminal or dialog: warnings, then each unreadable file with its reason
        and each duplicate (at most ``limit`` of each, then a count of the rest).

        Example
        -------
        >>> ImportReport(failed=[("a.txt", "not a recognised image format")]).details()
        ['unreadable: a.txt: not a recognised image format']
        """
        lines = [f"warning: {w}" for w in self.warnings]
        for title, items in (("unreadable", [f"{p}: {r}" for p, r in self.failed]),
                             ("duplicate, skipped", self.duplicates)):
            lines += [f"{title}: {item}" for item in items[:limit]]
            if len(items) > limit:
                lines.append(f"{title}: ... and {len(items) - limit} more")
        return lines


def iter_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named by ``paths``: files as given, folders walked recursively in sorted order.

    Hidden files and folders (name starting with ``.``) inside folders are skipped. A path
    that does not exist raises :class:`FileNotFoundError`.
    """
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                files.extend(Path(root) / n for n in sorted(names) if not n.startswith("."))
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return files


def read_entries(path: Path, fmt: str, slices: SliceSelection, *, isolated: bool = True,
                 limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[NewImage]]:
    """``(source info, images)`` of one file of format ``fmt``, verified by decoding one image.

    With ``isolated`` (the default) the headers are read and the image decoded in the child
    process of :mod:`.isolated`, so a decoder that aborts on a damaged file is reported as
    unreadable instead of ending the import. Raises
    :class:`~slicereview.core.imaging.errors.ImagingError` subclasses for files that cannot be
    imported.
    """
    if isolated:
        from slicereview.core.imaging import isolated as child

        return child.read_entries(path, fmt, slices, limits)
    return read_entries_here(path, fmt, slices, limits)


def read_entries_here(path: str | Path, fmt: str, slices: SliceSelection,
                      limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[NewImage]]:
    """:func:`read_entries` in this process: headers, then the first selected image is
    decoded once (a truncated volume or a missing decoder is refused at import)."""
    from slicereview.core.imaging.loader import load_display
    from slicereview.core.model import Image

    path = Path(path)
    if fmt == DICOM:
        info, images = dicom.import_entries(path, slices.indices, limits)
    elif fmt in SITK_FORMATS:
        info, images = volume.import_entries(path, slices.axis, slices.indices, limits)
    elif fmt in RASTER_FORMATS:
        info, images = raster.import_entries(path, limits)
    else:
        raise UnreadableImageError(f"{path.name} has the unknown format {fmt!r}; leave it out.")
    first = images[0]
    load_display(path, Image(0, 0, "", str(path), fmt, first.frame, first.axis,
                             first.slice_index), limits=limits)
    volume.clear_cache()
    return info, images


def import_paths(
    project: Project,
    paths: Sequence[str | os.PathLike[str]],
    *,
    slices: SliceSelection | None = None,
    progress: ProgressFn | None = None,
    cancel: CancelFn | None = None,
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
        Polled before each file; when it returns True the import stops, keeping what is
        already committed, and ``report.cancelled`` is True.

    Returns
    -------
    ImportReport
    """
    slices = slices or SliceSelection()
    files = iter_files(paths)
    report = ImportReport()
    seen: set[str] = set()
    intents: dict[str, int] = {}
    total = len(files)
    for done, path in enumerate(files):
        if cancel is not None and cancel():
            report.cancelled = True
            break
        if progress is not None:
            progress(done, total, str(path))
        _import_one(project, path, slices, report, seen, intents)
    if progress is not None and not report.cancelled:
        progress(total, total, "")
    warning = _intent_warning(project, intents)
    if warning:
        report.warnings.append(warning)
    return report


def _import_one(project: Project, path: Path, slices: SliceSelection, report: ImportReport,
                seen: set[str], intents: dict[str, int]) -> None:
    try:
        fmt = detect_format(path)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # one odd file must not stop the import
        report.failed.append((str(path), _UNEXPECTED))
        return
    if fmt is None:
        # Pixel-data files of a header (a.raw next to a.mhd) and project files (with their
        # SQLite -wal/-shm/-journal files) are not images: skip them without a complaint.
        if not (is_companion(path) or _is_project_file(path)):
            report.failed.append((str(path), "This is not an image format slicereview reads "
                                             "(DICOM, NIfTI, NRRD, MetaImage, PNG, TIFF, JPEG)."))
        return
    try:
        sha = sha256_file(path)
    except OSError as exc:
        report.failed.append((str(path), f"The file cannot be read ({exc.strerror or 'error'}); "
                                         "check its permissions."))
        return
    known = project.source_by_hash(sha)
    if sha in seen or (known is not None and fmt not in SITK_FORMATS and fmt != DICOM):
        report.duplicates.append(str(path))
        return
    try:
        info, images = read_entries(path, fmt, slices)
    except ImagingError as exc:
        report.failed.append((str(path), str(exc)))
        return
    except FileNotFoundError:
        report.failed.append((str(path), "The file disappeared during the import; import it "
                                         "again."))
        return
    except Exception:  # a reader bug or odd file must not stop a 10 000-file import
        report.failed.append((str(path), _UNEXPECTED))
        return
    seen.add(sha)
    if known is not None:
        # A volume or multi-frame file already in the project: add only the slices/frames this
        # selection picks that are not there yet (the user may pick more slices later).
        ids = project.add_images_to_source(known.id, images)
        if not ids:
            report.duplicates.append(str(path))
            return
        report.added_images += len(ids)
        report.image_ids.extend(ids)
        return
    ids = project.add_source(path, sha, fmt, images, info)
    report.added_files += 1
    report.added_images += len(ids)
    report.image_ids.extend(ids)
    intent = str(info.get("presentation_intent") or "").upper()
    if intent:
        intents[intent] = intents.get(intent, 0) + 1


_UNEXPECTED = ("slicereview could not read this file (an unexpected error; set "
               "SLICEREVIEW_DEBUG=1 and import it alone to see it), so it was left out.")


def _is_project_file(path: Path) -> bool:
    from slicereview.core.store.project import SUFFIX

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
    for image in project.images():
        intent = str(image.info.get("presentation_intent") or "").upper()
        if intent:
            counts[intent] = counts.get(intent, 0) + 1
    if len(counts) < 2:
        return None
    parts = " and ".join(f"{n} {k!r}" for k, n in sorted(counts.items()))
    return (f"the project now mixes {parts} DICOM images (Presentation Intent Type): "
            "'FOR PROCESSING' images are raw detector data and look different from "
            "'FOR PRESENTATION' ones; do not put both in one rating set")
