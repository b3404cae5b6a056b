"""The graphics of one annotation's polygons on a pyqtgraph ViewBox.

A :class:`PolygonLayer` shows a list of stored polygons (each with its id) as
:class:`~slicereview.gui.common.polygon_items.PolygonItem` s in image coordinates, reusing the
item of an id when the list is shown again (after an edit only the changed path is rebuilt),
and keeps the display settings: fill opacity, overlay on/off, outline only, the selected
polygon. It knows nothing about mouse input (that is the drawing tool's part), so a review view
can use it to show any annotator's polygons.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF

from slicereview.gui.common.polygon_items import PAD_PX, HandlesItem, PolygonItem, PreviewItem
from slicereview.model import Polygon

#: Largest fill opacity the keys reach (the image must stay visible under the fill).
MAX_FILL = 0.8


class PolygonLayer:
    def __init__(self, viewbox: pg.ViewBox) -> None:
        self.viewbox = viewbox
        self.polygons: list[Polygon] = []
        self.items: dict[int, PolygonItem] = {}
        self.selected_id: int | None = None
        self.fill_alpha = 0.25
        self.overlay_visible = True
        self.outline_only = False
        self.preview = PreviewItem()
        self.handles = HandlesItem()
        viewbox.addItem(self.preview)
        viewbox.addItem(self.handles)
        viewbox.sigRangeChanged.connect(self.update_pads)

    def set_polygons(self, polygons: list[Polygon]) -> None:
        """Show ``polygons`` (drawing order, each with its stored id); items are reused by id."""
        self.polygons = list(polygons)
        keep = {p.id for p in self.polygons}
        for pid in [i for i in self.items if i not in keep]:
            self.viewbox.removeItem(self.items.pop(pid))
        for z, p in enumerate(self.polygons):
            if p.id is None:
                raise ValueError("the layer shows stored polygons (with ids) only")
            item = self.items.get(p.id)
            if item is None:
                item = PolygonItem(p.id, p.vertices, p.certainty)
                self.viewbox.addItem(item)
                self.items[p.id] = item
            elif not np.array_equal(item.vertices, p.vertices) or item.pos() != QPointF(0, 0):
                item.setPos(0, 0)
                item.set_vertices(p.vertices)
            item.certainty = p.certainty
            item.setZValue(10 + z)
        if self.selected_id not in self.items:
            self.selected_id = None
        self.restyle()
        self.update_pads()

    def polygon(self, polygon_id: int | None) -> Polygon | None:
        return next((p for p in self.polygons if p.id == polygon_id), None)

    def reset_item(self, polygon_id: int) -> None:
        """Put a polygon's item back on its stored outline (after a cancelled drag)."""
        item, polygon = self.items.get(polygon_id), self.polygon(polygon_id)
        if item is not None and polygon is not None:
            item.setPos(0, 0)
            item.set_vertices(polygon.vertices)
        self.handles.setPos(0, 0)

    def pixel(self) -> float:
        """Image pixels per screen pixel at the current zoom (1.0 before the first layout)."""
        px = self.viewbox.viewPixelSize()
        size = max(px[0], px[1]) if px else 1.0
        return size if np.isfinite(size) and size > 0 else 1.0

    # -- display settings ------------------------------------------------------------------
    def set_fill_alpha(self, alpha: float) -> None:
        self.fill_alpha = float(np.clip(alpha, 0.0, MAX_FILL))
        self.restyle()

    def set_overlay_visible(self, visible: bool) -> None:
        self.overlay_visible = bool(visible)
        self.restyle()

    def set_outline_only(self, outline_only: bool) -> None:
        self.outline_only = bool(outline_only)
        self.restyle()

    def restyle(self) -> None:
        for pid, item in self.items.items():
            item.setVisible(self.overlay_visible)
            item.set_style(selected=pid == self.selected_id, fill_alpha=self.fill_alpha,
                           outline_only=self.outline_only)

    def update_pads(self, *_args: object) -> None:
        """Repaint slack for cosmetic pens and handles, in image units at this zoom."""
        px = self.pixel()
        for item in self.items.values():
            item.set_pad(PAD_PX * px)
        self.preview.set_pad(PAD_PX * px)
        self.handles.set_pad(px)
