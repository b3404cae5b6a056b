"""A project with one 16-bit PNG holding objects whose masks are known: a blurred disc (the
points, scribble and refine tools), a flat disc (the wand), a square (the box) and a thin
curved tube (the trace), on smooth texture with noise; and helpers that drive the Annotate
page with real mouse events."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from scipy import ndimage

from slicereview.app.images.importing import import_paths
from slicereview.store import Project

SHAPE = (240, 320)
RR, CC = np.mgrid[:SHAPE[0], :SHAPE[1]] + 0.5
#: (row, col) centres and radii.
DISC = (RR - 70) ** 2 + (CC - 80) ** 2 <= 20 ** 2
FLAT = (RR - 70) ** 2 + (CC - 230) ** 2 <= 18 ** 2
SQUARE = (RR >= 150) & (RR < 190) & (CC >= 50) & (CC < 95)
#: The tube's axis: a gentle arc from (130, 160) to (215, 300), 4 px wide.
AXIS_T = np.linspace(0, 1, 400)
AXIS = np.stack([130 + 85 * AXIS_T + 15 * np.sin(np.pi * AXIS_T), 160 + 140 * AXIS_T], 1)
_on_axis = np.zeros(SHAPE, bool)
_on_axis[AXIS[:, 0].astype(int), AXIS[:, 1].astype(int)] = True
TUBE = ndimage.distance_transform_edt(~_on_axis) <= 2.0

_L = Qt.MouseButton.LeftButton
_R = Qt.MouseButton.RightButton
_NO = Qt.KeyboardModifier.NoModifier
_SHIFT = Qt.KeyboardModifier.ShiftModifier


def image() -> np.ndarray:
    rng = np.random.default_rng(3)
    base = 2000 + 2400 * ndimage.gaussian_filter(rng.normal(size=SHAPE), 14)
    bright = ndimage.gaussian_filter((DISC | SQUARE).astype(float), 1.5) * 1500
    tube = ndimage.gaussian_filter(TUBE.astype(float), 0.8) * 1800
    img = base + bright + tube + rng.normal(0, 40, SHAPE)
    img[FLAT] = 5200  # a flat plateau: the wand's region
    return np.clip(img, 0, 65535).astype(np.uint16)


def make_assist_project(tmp_path: Path) -> Path:
    from skimage import io

    folder = tmp_path / "images"
    folder.mkdir()
    io.imsave(folder / "objects.png", image(), check_contrast=False)
    path = tmp_path / "assist.srproj"
    with Project.create(path) as project:
        import_paths(project, [folder / "objects.png"])
        project.raters.add("alice")
    return path


def dice(a: np.ndarray, b: np.ndarray) -> float:
    return float(2 * (a & b).sum() / max(a.sum() + b.sum(), 1))


def pos(page, x: float, y: float) -> QPoint:
    return page.view.graphics.mapFromScene(page.view.viewbox.mapViewToScene(QPointF(x, y)))


def click(qtbot, page, x: float, y: float, button=_L, modifier=_NO) -> None:
    qtbot.mouseClick(page.view.graphics.viewport(), button, modifier, pos(page, x, y))


def drag(qtbot, page, points, modifier=_NO, button=_L) -> None:
    """Press at the first ``(x, y)``, move through the others, release at the last."""
    vp = page.view.graphics.viewport()
    positions = [pos(page, x, y) for x, y in points]
    qtbot.mousePress(vp, button, modifier, positions[0])
    for p in positions[1:]:
        qtbot.wait(15)  # pyqtgraph drops mouse moves closer than 10 ms (mouseRateLimit)
        qtbot.mouseMove(vp, p)
    qtbot.mouseRelease(vp, button, modifier, positions[-1])


def settled(page) -> bool:
    """The assisted tool has shown the result of its newest prompts."""
    runner = page.assisted
    return not runner.running and runner._pending is None and runner.result is not None \
        and runner._result_job == runner.job()
