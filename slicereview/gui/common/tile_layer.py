"""The finer detail of a large image, one region at a time, over its screen-sized level.

A :class:`~slicereview.engines.imaging.pyramid.PyramidDisplay` brings the viewer only the
pyramid level that fits a screen; :class:`~.image_view.ImageView` draws it stretched over
the full image's coordinates. Zoomed in past that level, :class:`TileLayer` reads the part
of the finest level still coarser than a screen pixel that the view shows -- plus half the
view on each side, so that panning a little reads nothing -- out of the pyramid's file
(:func:`~slicereview.engines.imaging.pyramid.read_region`) and draws it above. That one
region is the layer's whole cache: about a screen of pixels, whatever the image's size.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

from slicereview.engines.imaging.pyramid import PyramidDisplay, read_region
from slicereview.engines.imaging.windowing import block_mean


class ReducedLevels:
    """The picture the view draws: the level it was given (``base``: 1, or a pyramid's
    screen-sized level) or its block-mean reduction to 1/2, 1/4 or 1/8 (built once per
    image on demand, only while shown), the one with about one pixel per screen pixel."""

    def __init__(self) -> None:
        self.levels: dict[int, np.ndarray] = {}
        self.base = self.current = 1

    def reset(self, data: np.ndarray | None, base: int) -> None:
        self.levels = {} if data is None else {base: data}
        self.base = self.current = base

    def pick(self, image_per_screen: float) -> tuple[int, np.ndarray] | None:
        """``(factor, data)`` to draw for ``image_per_screen`` image pixels per screen pixel,
        or ``None`` when the level drawn stays."""
        if not self.levels:
            return None
        level = self.base
        while level < 8 * self.base and image_per_screen >= 2 * level:
            level *= 2
        if level == self.current:
            return None
        if level not in self.levels:
            self.levels[level] = block_mean(self.levels[self.base], level // self.base)
        self.current = level
        return level, self.levels[level]


class TileLayer:
    """One region of a finer pyramid level, drawn by its own image item (above ``base``)."""

    def __init__(self, viewbox: pg.ViewBox, base: pg.ImageItem) -> None:
        self.item = pg.ImageItem(axisOrder="row-major")
        self.item.setZValue(base.zValue() + 1)
        viewbox.addItem(self.item)
        self.pyramid: PyramidDisplay | None = None
        #: ``(factor, row0, row1, col0, col1)`` of the region held, in that level's pixels.
        self.region: tuple[int, int, int, int, int] | None = None
        self._levels = (0.0, 1.0)

    @property
    def nbytes(self) -> int:
        """Bytes of the region held."""
        return 0 if self.item.image is None else int(self.item.image.nbytes)

    def set_pyramid(self, pyramid: PyramidDisplay | None) -> None:
        self.pyramid, self.region = pyramid, None
        self.item.clear()
        self.item.setVisible(False)

    def set_levels(self, low: float, high: float) -> None:
        """The window in the image's own units (the region keeps its dtype: no offset)."""
        self._levels = (low, high)
        if self.item.image is not None:
            self.item.setLevels(self._levels)

    def set_lookup_table(self, lut: np.ndarray | None) -> None:
        self.item.setLookupTable(lut)

    def update(self, image_per_screen: float, view: QRectF) -> None:
        """Show the region for a view of ``view`` (full-image coordinates) where one screen
        pixel covers ``image_per_screen`` image pixels; hide it when the screen-sized level
        is fine enough."""
        pyramid = self.pyramid
        if pyramid is None:
            return
        factor = max((f for f, _ in pyramid.levels if f <= max(image_per_screen, 1.0)),
                     default=1)
        if factor >= pyramid.scale:
            self.item.setVisible(False)
            return
        rows, cols = pyramid.full_shape
        top, bottom = max(0.0, view.top()), min(float(rows), view.bottom())
        left, right = max(0.0, view.left()), min(float(cols), view.right())
        if bottom <= top or right <= left:
            return
        want = (int(top // factor), int(np.ceil(bottom / factor)),
                int(left // factor), int(np.ceil(right / factor)))
        held = self.region
        if held is not None and held[0] == factor and held[1] <= want[0] and \
                held[2] >= want[1] and held[3] <= want[2] and held[4] >= want[3]:
            self.item.setVisible(True)
            return
        self._read(factor, want)

    def _read(self, factor: int, want: tuple[int, int, int, int]) -> None:
        assert self.pyramid is not None
        rows, cols = (-(-n // factor) for n in self.pyramid.full_shape)
        r0, r1, c0, c1 = want
        dr, dc = (r1 - r0) // 2, (c1 - c0) // 2  # half a view of margin each side
        r0, r1 = max(0, r0 - dr), min(rows, r1 + dr)
        c0, c1 = max(0, c0 - dc), min(cols, c1 + dc)
        try:
            data = read_region(self.pyramid, factor, (r0, r1), (c0, c1))
        except (OSError, ValueError):  # the files were cleaned up: the coarse level stays
            self.item.setVisible(False)
            return
        self.region = (factor, r0, r1, c0, c1)
        self.item.setImage(data, autoLevels=False, levels=self._levels)
        self.item.setRect(c0 * factor, r0 * factor, data.shape[1] * factor,
                          data.shape[0] * factor)
        self.item.setVisible(True)
