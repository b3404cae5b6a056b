"""Window/level for the image view: the right-drag, its limits, the labels and the histogram.

Right-drag (as ITK-SNAP and 3D Slicer): a drag across the whole view changes the width
(horizontal) or the centre (vertical) by about the image's data range, whatever the current
window, so one drag never collapses the window; the width never goes below
:func:`minimum_width`. The histogram beside the image is drawn in the image's own units (HU for
CT, not the shifted display copy) with log counts, so a background spike (0 in mammograms, air
in CT) does not flatten the curve.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

AUTO_LABEL = "Auto (1–99.5 %)"
#: Histogram bins (about one per screen pixel of the histogram's height).
HISTOGRAM_BINS = 256
_SAMPLE = 250_000


@dataclass(frozen=True)
class Window:
    """A display window in the image's own (modality) units."""

    center: float
    width: float

    @property
    def levels(self) -> tuple[float, float]:
        return self.center - self.width / 2.0, self.center + self.width / 2.0

    def close_to(self, other: Window | None, tolerance: float = 1e-6) -> bool:
        if other is None:
            return False
        scale = max(abs(self.width), abs(other.width), 1e-12)
        return (abs(self.center - other.center) <= tolerance * scale
                and abs(self.width - other.width) <= tolerance * scale)


def custom_label(window: Window) -> str:
    """The preset box's entry for a window the user set by hand."""
    return f"Custom ({window.center:.5g}/{window.width:.5g})"


def _sample(data: np.ndarray) -> np.ndarray:
    h, w = data.shape[:2]
    step = max(1, int(np.ceil(np.sqrt(h * w / _SAMPLE))))
    sample = np.asarray(data[::step, ::step])
    if sample.dtype.kind == "f":
        sample = sample[np.isfinite(sample)]
    return sample


@dataclass(frozen=True)
class DataRange:
    """The value range of an image (from a regular subsample) and what follows from it.

    ``span`` is ``high - low`` (at least 1 for integer data); :attr:`minimum_width` is the
    narrowest window a drag or a key can make: ``max(1, span / 1000)`` for integer data,
    ``span / 1000`` otherwise.
    """

    low: float
    high: float
    integer: bool

    @classmethod
    def of(cls, data: np.ndarray) -> DataRange:
        """Example: ``DataRange.of(np.array([[0, 4095]], np.uint16)).minimum_width == 4.095``."""
        if data.ndim == 3:
            return cls(0.0, 255.0, True)
        sample = _sample(data)
        integer = np.issubdtype(data.dtype, np.integer)
        if sample.size == 0:
            return cls(0.0, 1.0, integer)
        return cls(float(sample.min()), float(sample.max()), integer)

    @property
    def span(self) -> float:
        span = self.high - self.low
        return max(span, 1.0) if self.integer or span <= 0 else span

    @property
    def minimum_width(self) -> float:
        return max(1.0 if self.integer else 0.0, self.span / 1000.0)


def dragged_window(start: Window, dx: float, dy: float, view_size: tuple[float, float],
                   data: DataRange) -> Window:
    """The window after a right-drag of ``(dx, dy)`` screen pixels that began at ``start``.

    A drag across the whole view (``view_size`` = ``(width, height)`` in screen pixels) changes
    the width (right = wider, less contrast) or the centre (down = higher, darker) by the data
    range.

    >>> dragged_window(Window(100, 50), -400, 0, (800, 600), DataRange(0, 4095, True)).width
    4.095
    """
    per_x = data.span / max(view_size[0], 1.0)
    per_y = data.span / max(view_size[1], 1.0)
    return Window(start.center + dy * per_y,
                  max(start.width + dx * per_x, data.minimum_width))


def histogram_curve(data: np.ndarray, bins: int = HISTOGRAM_BINS
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(bin centres, log10(1 + count))`` of ``data``'s values (a regular subsample).

    Integer data gets integer-aligned bins, so that e.g. 8-bit data has no empty comb bins.
    """
    sample = _sample(data).ravel()
    if sample.size == 0:
        return np.zeros(0), np.zeros(0)
    low, high = float(sample.min()), float(sample.max())
    if high <= low:
        high = low + 1.0
    if np.issubdtype(sample.dtype, np.integer):
        step = max(1, int(np.ceil((high - low + 1) / bins)))
        edges = np.arange(low, high + step + 1, step, dtype=np.float64) - 0.5
    else:
        edges = np.linspace(low, high, bins + 1)
    counts, edges = np.histogram(sample, bins=edges)
    return (edges[:-1] + edges[1:]) / 2.0, np.log10(1.0 + counts)


def volume_auto_window(slices: Sequence[object], pixels: Callable[[object], np.ndarray],
                       picks: int = 5) -> Window | None:
    """The automatic (1–99.5 %) window of a whole volume, from ``picks`` evenly spaced slices.

    ``pixels(slice)`` returns a slice's ``(H, W)`` display data. One window for every slice
    keeps the brightness steady while scrolling (the first or last slice alone is often nearly
    empty and gives a useless window). Returns None for colour data or when no slice can be
    read.
    """
    from slicereview.engines.imaging.display import auto_window

    if not slices:
        return None
    n = len(slices)
    chosen = sorted({round(k * (n - 1) / max(picks - 1, 1)) for k in range(picks)})
    samples = []
    for k in chosen:
        try:
            data = np.asarray(pixels(slices[k]))
        except Exception:  # an unreadable slice: the others still give a window
            continue
        if data.ndim != 2:
            return None
        samples.append(_sample(data).ravel())
    if not samples:
        return None
    preset = auto_window(np.concatenate(samples)[np.newaxis, :])
    return Window(preset.center, preset.width)


class WindowLevelViewBox(pg.ViewBox):
    """A ViewBox whose right-drag calls ``view.drag_window`` instead of zooming, and whose
    double-click calls ``view.fit``."""

    def __init__(self, view) -> None:
        super().__init__(lockAspect=True, invertY=True, enableMenu=False)
        self._view = view
        self._start: Window | None = None

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() == Qt.MouseButton.RightButton:
            ev.accept()
            if ev.isStart():
                self._start = self._view.window
            if self._start is None:
                return
            delta = ev.screenPos() - ev.buttonDownScreenPos()
            self._view.drag_window(self._start, delta.x(), delta.y(), final=ev.isFinish())
            if ev.isFinish():
                self._start = None
            return
        super().mouseDragEvent(ev, axis)

    def mouseDoubleClickEvent(self, ev):
        if ev.button() == Qt.MouseButton.LeftButton:
            self._view.fit()
            ev.accept()
            return
        super().mouseDoubleClickEvent(ev)
