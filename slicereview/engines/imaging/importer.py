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


def iter_files(paths: Iterable[str | os.PathLike[str]],
               skipped: list[tuple[Path, str]] | None = None) -> list[str]:
    """Regular files named by ``paths``: files as given, folders walked recursively in sorted
    order. As text, not :class:`~pathlib.Path` (a third of the memory: an import of 100,000
    files holds the list while it runs).

    Hidden files and folders (name starting with ``.``) inside folders are skipped, as are
    links to folders inside them (not followed). Every other name that is not a regular file
    (or a link to one) -- a named pipe (FIFO), a device such as ``/dev/zero``, a socket, a
    link that loops or leads nowhere, a path that does not exist, a folder that cannot be
    read -- is appended to ``skipped`` as ``(path, reason)`` and left out; it is never opened
    (``lstat``/``stat`` only), so nothing blocks on it. Names that are not valid UTF-8 stay
    as the operating system gave them (Python's ``surrogateescape``), so they open.

    Example
    -------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "a.png").write_bytes(b"")
    0
    >>> os.mkfifo(folder / "pipe")
    >>> skipped = []
    >>> [os.path.basename(p) for p in iter_files([folder, folder / "gone.png"], skipped)]
    ['a.png']
    >>> [(p.name, reason.split(":")[0].split(";")[0]) for p, reason in skipped]
    [('pipe', 'It is a named pipe (FIFO), not a file'), ('gone.png', 'It does not exist')]
    """
    files: list[str] = []
    out = skipped if skipped is not None else []
    for p in paths:
        path = Path(p)
        kind = _kind(path)
        if kind == "file":
            files.append(os.fspath(path))
        elif kind == "folder":
            def unreadable(error: OSError, top: Path = path) -> None:
                out.append((Path(error.filename or top), _REASONS["unreadable folder"]))

            for root, dirs, names in os.walk(path, onerror=unreadable):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(n for n in names if not n.startswith(".")):
                    child = os.path.join(root, name)
                    kind = _kind(Path(child))
                    if kind == "file":
                        files.append(child)
                    elif kind != "folder":
                        out.append((Path(child), _REASONS[kind]))
        else:
            out.append((path, _REASONS[kind]))
    return files


_REASONS = {
    "missing": "It does not exist; it was skipped.",
    "dangling": "It is a link to a file that does not exist; it was skipped.",
    "loop": "It is a link that leads back to itself (a link loop); it was skipped.",
    "fifo": "It is a named pipe (FIFO), not a file: reading it would wait for another "
            "program; it was skipped.",
    "device": "It is a device, not a file (reading it may never end); it was skipped.",
    "socket": "It is a socket, not a file; it was skipped.",
    "other": "It is not a regular file; it was skipped.",
    "unreadable": "It cannot be looked at (permission denied); it was skipped.",
    "unreadable folder": "This folder cannot be read (permission denied); it was skipped.",
}


def _kind(path: Path) -> str:
    """What ``path`` is, without opening it: ``"file"``, ``"folder"`` or a key of
    :data:`_REASONS` (a link is judged by what it leads to; inside a folder, a link to a
    folder counts as a folder, which ``os.walk`` does not enter)."""
    import errno
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "unreadable"
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(path)
        except OSError as exc:
            return ("loop" if exc.errno == errno.ELOOP else
                    "dangling" if exc.errno == errno.ENOENT else "unreadable")
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


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
    from slicereview.engines.imaging.display import finite
    from slicereview.engines.imaging.loader import load_display
    from slicereview.model import Image

    path = Path(path)
    if fmt == DICOM:  # one parse for the entries and the verifying decode
        ds = dicom.read_header(path, defer=False, limits=limits)
        info, images = dicom.entries_of(ds, path, slices.indices, limits)
        shown = finite(dicom.display_of(ds, path, images[0].frame), path.name)
        return info, _with_warning(images, shown.warning)
    if fmt in SITK_FORMATS:
        info, images = volume.import_entries(path, slices.axis, slices.indices, limits)
    elif fmt in RASTER_FORMATS:
        info, images = raster.import_entries(path, limits)
    else:
        raise UnreadableImageError(f"{path.name} has the unknown format {fmt!r}; leave it out.")
    first = images[0]
    shown = load_display(path, Image(0, 0, "", str(path), fmt, first.frame, first.axis,
                                     first.slice_index), limits=limits)
    volume.clear_cache()
    return info, _with_warning(images, shown.warning)


#: Image info key: the warning of the image's verifying decode (e.g. non-finite pixels).
WARNING = "warning"


def _with_warning(images: list[NewImage], warning: str) -> list[NewImage]:
    """``images`` with the decoded first one's warning stored in its info."""
    if not warning:
        return images
    from dataclasses import replace

    return [replace(images[0], info={**(images[0].info or {}), WARNING: warning}),
            *images[1:]]
