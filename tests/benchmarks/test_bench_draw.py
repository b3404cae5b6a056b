"""Dragging a vertex of a 2,000-vertex polygon: cost of one drag update, redraw included.

One update is what a user's mouse move costs: the move event goes through the drawing tool
(hit state, working copy, path rebuild of the ``QGraphicsPathItem`` and its handles) and the
viewport is repainted synchronously (``repaint()``, not a queued ``update()``), over a
mammogram-sized image. Baselines in the same run: the same item with its path rebuilt point
by point in Python, and pyqtgraph's ``PolyLineROI`` (one graphics item per handle and segment)
dragging one handle — with 200 vertices only, because building a 2,000-vertex PolyLineROI takes
minutes. Target: <= 16 ms per update (60 Hz), asserted as at most 1.5x a repaint alone
(the floor, measured in the same run).
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QPainterPath
from PySide6.QtTest import QTest

from slicereview.engines.imaging.display import DisplayImage
from slicereview.gui.annotate.draw_tool import DrawTool, Mode
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.polygon_items import PolygonItem
from slicereview.model import Polygon

N_VERTICES = 2000
ROI_VERTICES = 200


def _view(qtbot) -> ImageView:
    rng = np.random.default_rng(0)
    data = rng.integers(0, 4096, (4500, 2900), dtype=np.uint16)  # a mammogram's size
    view = ImageView()
    qtbot.addWidget(view)
    view.resize(1100, 850)
    view.show()
    qtbot.waitExposed(view)
    view.set_image(DisplayImage(data=data))
    return view


def _circle(n: int = N_VERTICES) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = 900 + 60 * np.sin(7 * t)
    return np.c_[1450 + r * np.cos(t), 2250 + r * np.sin(t)]


def _to_widget(view: ImageView, xy) -> QPoint:
    return view.graphics.mapFromScene(view.viewbox.mapViewToScene(QPointF(*xy)))


@pytest.mark.benchmark
def test_vertex_drag_update_2000_vertices(qtbot) -> None:
    view = _view(qtbot)
    vertices = _circle()
    view.viewbox.setRange(xRange=(400, 2500), yRange=(1200, 3300), padding=0)
    tool = DrawTool(view)
    tool.set_polygons([Polygon(vertices, id=1)])
    tool.set_mode(Mode.EDIT)
    tool.select(1)
    vp = view.graphics.viewport()
    qtbot.wait(100)  # until the first expose is processed, repaint() draws nothing offscreen
    t0 = time.perf_counter()
    for _ in range(10):
        vp.repaint()
    still = (time.perf_counter() - t0) / 10
    assert still > 2e-4, "the viewport did not paint: the measurement would be meaningless"
    edited = []
    tool.polygon_edited.connect(lambda pid, v, what: edited.append(v))
    start = _to_widget(view, vertices[0])
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    QTest.mouseMove(vp, start + QPoint(6, 0))  # past the click threshold: a vertex drag
    vp.repaint()
    updates = 60
    times = []
    for k in range(updates):
        pos = start + QPoint(6 + 2 * k, k)
        t0 = time.perf_counter()
        QTest.mouseMove(vp, pos)
        vp.repaint()
        times.append(time.perf_counter() - t0)
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       start + QPoint(6 + 2 * updates, updates))
    assert len(edited) == 1 and not np.array_equal(edited[0][0], vertices[0])
    ours = float(np.median(times))

    # Baseline 1, same 2,000 vertices: the path rebuilt point by point in Python (lineTo).
    tool.set_polygons([])
    naive = PolygonItem(1, vertices)
    view.viewbox.addItem(naive)
    moved = vertices.copy()
    naive_times = []
    for _ in range(10):
        moved[0] += (2.0, 1.0)
        t0 = time.perf_counter()
        path = QPainterPath()
        path.moveTo(*moved[0])
        for x, y in moved[1:]:
            path.lineTo(x, y)
        path.closeSubpath()
        naive.setPath(path)
        vp.repaint()
        naive_times.append(time.perf_counter() - t0)
    naive_ms = float(np.median(naive_times))
    view.viewbox.removeItem(naive)

    # Baseline 2: pyqtgraph's PolyLineROI, dragging one handle. Building it costs O(N^2)
    # (13 s for 500 vertices here), so it is measured with 200 vertices only.
    roi = pg.PolyLineROI(_circle(ROI_VERTICES).tolist(), closed=True)
    view.viewbox.addItem(roi)
    vp.repaint()
    handle = roi.handles[0]["item"]
    roi_times = []
    for k in range(5):
        t0 = time.perf_counter()
        handle.movePoint(handle.scenePos() + QPointF(2.0, 1.0), finish=k == 4)
        vp.repaint()
        roi_times.append(time.perf_counter() - t0)
    base = float(np.median(roi_times))
    print(f"\nvertex drag on a {N_VERTICES}-vertex polygon over a 4500x2900 image: "
          f"{ours * 1e3:.2f} ms per update (median of {updates}, p90 "
          f"{np.percentile(times, 90) * 1e3:.2f} ms; a repaint alone {still * 1e3:.2f} ms); "
          f"path rebuilt point by point: "
          f"{naive_ms * 1e3:.2f} ms (x{naive_ms / ours:.1f}); PolyLineROI handle drag with "
          f"only {ROI_VERTICES} vertices: {base * 1e3:.1f} ms (x{base / ours:.1f})")
    # The 16 ms target holds where a repaint alone takes well under it (4-7 ms on a desk);
    # on a shared machine the floor itself moves, so the assertion is relative to it: the
    # drag's own work (tool, working copy, path and handles) adds at most half a repaint.
    assert ours <= 1.5 * still
    assert base > 2 * ours  # even with a tenth of the vertices the ROI is slower
