"""Display pyramids of large images, built in the decoding child.

A 14 000 × 14 000 RGB TIFF is 600 MB once decoded; handed to the viewer whole it took the
viewer's process to 4.25 GB (the pixels, their display copy, pyqtgraph's own copy, the
reduced levels). An image of more than :data:`LARGE_PIXELS` pixels is therefore decoded in
the decoding child (:mod:`.isolated`), which writes a *display pyramid* -- the full image and
its 1/2, 1/4, ... block-mean reductions (:func:`~.windowing.block_mean`) down to one whose
long side is at most :data:`SCREEN_SIDE` pixels -- as ``.npy`` files into a folder of the
caller's, and sends back only a :class:`PyramidDisplay`: the screen-sized level as ``data``
and where the others are. The viewer shows that level stretched over the full image's
coordinates and reads the part of a finer level that the view shows, when zoomed in
(:func:`read_region`, through a memory map it closes at once): its process holds one
screen-sized level and one region at a time.

Example
-------
>>> import tempfile
>>> from slicereview.engines.imaging.display import DisplayImage
>>> big = DisplayImage(np.zeros((5000, 3000), np.uint16))
>>> p = build(big, tempfile.mkdtemp(), "key", side=1024)
>>> p.full_shape, p.scale, p.data.shape, [factor for factor, _ in p.levels]
((5000, 3000), 8, (625, 375), [1, 2, 4, 8])
>>> read_region(p, 2, (100, 200), (0, 50)).shape
(100, 50)
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from slicereview.engines.imaging.display import DisplayImage
from slicereview.engines.imaging.limits import Limits
from slicereview.engines.imaging.windowing import block_mean

#: Images with more pixels than this are shown from a pyramid (a 4736 × 2624 mammogram,
#: 12.4 million pixels, is not; 6000 × 6000 is).
LARGE_PIXELS = 32_000_000
#: The coarsest level's long side is at most this many pixels (about a screen).
SCREEN_SIDE = 2048


@dataclass(frozen=True, eq=False)
class PyramidDisplay(DisplayImage):
    """A :class:`DisplayImage` whose ``data`` is the coarsest pyramid level.

    Attributes (besides those of :class:`DisplayImage`)
    ----------------------------------------------------
    full_shape
        ``(rows, cols)`` of the full image: the coordinates the viewer uses.
    scale
        How many full-image pixels one pixel of ``data`` covers along each axis (a power
        of two).
    levels
        ``(factor, file)`` of every level, finest (1, the full image) first: ``.npy`` files
        read with :func:`read_region`.
    """

    full_shape: tuple[int, int] = (0, 0)
    scale: int = 1
    levels: tuple[tuple[int, str], ...] = field(default_factory=tuple)


def is_large(rows: int, cols: int) -> bool:
    """Whether an image of ``rows × cols`` pixels is shown from a pyramid."""
    return rows * cols > LARGE_PIXELS


def build(display: DisplayImage, folder: str | os.PathLike[str], key: str,
          side: int = SCREEN_SIDE) -> PyramidDisplay:
    """Write the levels of ``display`` into ``folder`` (file names start with ``key``) and
    return the :class:`PyramidDisplay` whose ``data`` is the first level with a long side
    of at most ``side`` pixels."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    level, factor = np.ascontiguousarray(display.data), 1
    levels = []
    while True:
        target = folder / f"{key}-{factor}.npy"
        np.save(target, level)
        levels.append((factor, str(target)))
        if max(level.shape[:2]) <= side or min(level.shape[:2]) < 2:
            break
        level, factor = block_mean(level, 2), factor * 2
    rows, cols = display.data.shape[:2]
    return PyramidDisplay(
        data=level, presets=display.presets, invert=display.invert, spacing=display.spacing,
        spacing_source=display.spacing_source, value_unit=display.value_unit,
        description=display.description, flips=display.flips, warning=display.warning,
        full_shape=(int(rows), int(cols)), scale=factor, levels=tuple(levels))


def read_region(pyramid: PyramidDisplay, factor: int, rows: tuple[int, int],
                cols: tuple[int, int]) -> np.ndarray:
    """Rows ``rows[0]:rows[1]`` and columns ``cols[0]:cols[1]`` of the level with
    ``factor`` (in that level's own pixels), copied out of its file."""
    path = dict(pyramid.levels)[factor]
    mapped = np.load(path, mmap_mode="r")
    try:
        return np.array(mapped[rows[0]:rows[1], cols[0]:cols[1]])
    finally:
        del mapped


def value_at(display: DisplayImage, row: int, col: int) -> object:
    """The full image's value at ``(row, col)`` (of a pyramid: read from its finest level's
    file)."""
    if isinstance(display, PyramidDisplay):
        return read_region(display, 1, (row, row + 1), (col, col + 1))[0, 0]
    return np.asarray(display.data)[row, col]


#: Pyramids whose files are kept on disk at once (the oldest are deleted).
KEEP = 4
_folder: Path | None = None
_kept: list[str] = []


def load(path: str | os.PathLike[str], image: Any, limits: Limits) -> DisplayImage:
    """The image at ``path`` decoded in the decoding child: a :class:`PyramidDisplay` when it
    is large (its levels in a temporary folder of this process, removed when it exits; the
    files of the :data:`KEEP` most recent pyramids are kept), else a plain
    :class:`DisplayImage`."""
    global _folder
    from slicereview.engines.imaging import isolated

    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="slicereview-pyramids-"))
        atexit.register(shutil.rmtree, _folder, True)
    st = os.stat(path)
    key = hashlib.sha1(repr((os.path.realpath(path), st.st_size, st.st_mtime_ns,
                             image.frame, image.axis, image.slice_index)).encode()
                       ).hexdigest()[:16]
    shown = isolated.pyramid(os.fspath(path), image, limits, str(_folder), key)
    if isinstance(shown, PyramidDisplay):
        if key in _kept:
            _kept.remove(key)
        _kept.append(key)
        while len(_kept) > KEEP:
            for old in _folder.glob(f"{_kept.pop(0)}-*.npy"):
                old.unlink(missing_ok=True)
    return shown
