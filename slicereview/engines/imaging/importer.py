"""The pure half of importing: which slices to take, which files a path names, and the
entries (header info and frames/slices) one file contributes.

Nothing here touches a project; :mod:`slicereview.app.images.importing` writes the entries to the
project file.

Example
-------
>>> parse_slices("every:4").indices(10)
[0, 4, 8]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slicereview.engines.imaging.errors import UnreadableImageError
from slicereview.engines.imaging.formats import (
    DICOM,
    RASTER_FORMATS,
    SITK_FORMATS,
)
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits
from slicereview.model import NewImage

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
    :class:`~slicereview.engines.imaging.errors.ImagingError` subclasses for files that cannot be
    imported.
    """
    if isolated:
        from slicereview.engines.imaging import isolated as child

        return child.read_entries(path, fmt, slices, limits)
    return read_entries_here(path, fmt, slices, limits)


#: One file's entries, or the error that refused it.
EntriesOrError = tuple[dict[str, Any], list[NewImage]] | Exception


def read_entries_many(items: list[tuple[Path, str]], slices: SliceSelection, *,
                      isolated: bool = True, limits: Limits = DEFAULT_LIMITS, slot: int = 0
                      ) -> list[EntriesOrError]:
    """:func:`read_entries` of several ``(path, format)`` files, in order; each result is the
    entries or the exception that refused the file.

    Isolated, the whole group goes to the decoding child of ``slot`` (see
    :data:`.isolated.MAX_CHILDREN`) in one round trip (a round trip costs as much as reading a
    small DICOM); if the child dies on one of them, the group is read again one file at a time
    so that only the culprit is refused.
    """
    if not isolated:
        return [_entries_or_error(path, fmt, slices, limits) for path, fmt in items]
    from slicereview.engines.imaging import isolated as child

    return child.read_entries_many(items, slices, limits, slot)


def _entries_or_error(path: Path, fmt: str, slices: SliceSelection, limits: Limits
                      ) -> EntriesOrError:
    try:
        return read_entries_here(path, fmt, slices, limits)
    except Exception as exc:
        return exc


def read_entries_here(path: str | Path, fmt: str, slices: SliceSelection,
                      limits: Limits = DEFAULT_LIMITS) -> tuple[dict[str, Any], list[NewImage]]:
    """:func:`read_entries` in this process: headers, then the first selected image is
    decoded once (a truncated volume or a missing decoder is refused at import)."""
    # The readers (pydicom, SimpleITK, scikit-image) load on first use, not at start-up.
    from slicereview.engines.imaging import dicom, raster, volume
    from slicereview.engines.imaging.loader import load_display
    from slicereview.model import Image

    path = Path(path)
    if fmt == DICOM:  # one parse for the entries and the verifying decode
        ds = dicom.read_header(path, defer=False, limits=limits)
        info, images = dicom.entries_of(ds, path, slices.indices, limits)
        dicom.display_of(ds, path, images[0].frame)
        return info, images
    if fmt in SITK_FORMATS:
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
