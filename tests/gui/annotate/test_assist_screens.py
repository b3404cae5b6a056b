"""The assisted tools, the brush and the eraser on a real mammogram at 1280 × 800, one
screenshot per tool: docs/annotate.md shows them (``SLICEREVIEW_TEST_SHOTS=/tmp/shots`` keeps
them; copy them into docs/images).

The image is the first demo mammogram [CBIS-DDSM] with blobs and thin tubes of known masks
drawn into it (:mod:`slicereview.demo.assist_objects`, the sets the accuracy figures of
docs/performance.md use), so that each tool's outline is checked against its truth too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt

from slicereview.app.images.importing import import_paths
from slicereview.engines.masks import rasterize
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import Polygon, Tool
from slicereview.store import Project
from tests.gui.annotate.assist_fixture import click, dice, drag, settled

pytestmark = pytest.mark.slow  # (about 30 s: a 2864 × 4432 mammogram, eight tools)

_SHIFT = Qt.KeyboardModifier.ShiftModifier
_CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture(scope="module")
def objects():
    from slicereview.demo import assist_objects
    from slicereview.demo.project import mammogram_files

    [image] = assist_objects.mammograms(mammogram_files()[:1])
    blobs = assist_objects.blobs(images=[image], per_image=6, seed=5)
    tubes = assist_objects.tubes(images=[image], per_image=3, seed=7)
    return image, blobs, tubes


def _truth(obj, shape) -> np.ndarray:
    t = obj.truth
    full = np.zeros(shape, bool)
    full[t.row0:t.row0 + t.mask.shape[0], t.col0:t.col0 + t.mask.shape[1]] = t.mask
    return full


def _centre(mask: np.ndarray) -> tuple[float, float]:
    """``(x, y)`` of the mask's pixel farthest from its border (a click inside)."""
    from scipy import ndimage

    d = ndimage.distance_transform_edt(np.pad(mask, 1))[1:-1, 1:-1]
    r, c = np.unravel_index(np.argmax(d), d.shape)
    return c + 0.5, r + 0.5


def _look_at(page, mask: np.ndarray, margin: float = 1.2) -> tuple[float, float, float, float]:
    rows, cols = np.nonzero(mask)
    x0, x1, y0, y1 = cols.min(), cols.max() + 1, rows.min(), rows.max() + 1
    half = max(x1 - x0, y1 - y0) * margin
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    page.view.viewbox.setRange(QRectF(cx - half, cy - half, 2 * half, 2 * half), padding=0)
    return x0, y0, x1, y1


def _stored(w: MainWindow) -> list[Polygon]:
    page = w.annotate_page
    return w.gateway.project.polygons.of(page.annotation.id) if page.annotation else []


def _shot(w: MainWindow, folder: Path, name: str) -> None:
    w.grab().save(str(folder / f"assist-{name}.png"))


def test_each_tool_on_a_mammogram_with_a_screenshot(qtbot, open_window, tmp_path: Path,
                                                     screenshots: Path, objects) -> None:
    from skimage import io

    image, blobs, tubes = objects
    io.imsave(tmp_path / "mammogram.png", image, check_contrast=False)
    path = tmp_path / "screens.srproj"
    with Project.create(path) as project:
        import_paths(project, [tmp_path / "mammogram.png"])
        project.raters.add("alice")
    w = open_window(path, (1280, 800))
    page = w.annotate_page
    w.tabs.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.view.display is not None)
    w.activateWindow()
    shape = image.shape
    scores: dict[str, float] = {}

    def run(tool_key, name: str, truth: np.ndarray, gesture) -> None:
        button = page.bars.tools.widgetForAction(page.actions_[name])
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)  # (its key: tests/test_assist.py)
        assert page.tool.mode.value == name
        gesture()
        qtbot.waitUntil(lambda: settled(page))
        qtbot.wait(50)  # (the preview is painted)
        _shot(w, screenshots, name)
        qtbot.keyClick(w, Qt.Key.Key_Return)
        made = [p for p in _stored(w) if p.tool is Tool(name)]
        assert made, name
        scores[name] = dice(rasterize(made, shape) > 0, truth)

    blob, blob2, blob3 = (_truth(blobs[k], shape) for k in (0, 3, 5))
    tube = _truth(tubes[0], shape)

    _look_at(page, blob)
    x, y = _centre(blob)
    run((Qt.Key.Key_K,), "points", blob, lambda: click(qtbot, page, x, y))

    _look_at(page, blob2)
    x0, y0, x1, y1 = np.nonzero(blob2)[1].min(), np.nonzero(blob2)[0].min(), \
        np.nonzero(blob2)[1].max(), np.nonzero(blob2)[0].max()
    cx, cy = _centre(blob2)
    w_, h_ = x1 - x0, y1 - y0

    def scribbles() -> None:
        drag(qtbot, page, [(cx - w_ / 3, cy - h_ / 6), (cx, cy + h_ / 6), (cx + w_ / 3,
                                                                            cy - h_ / 6)])
        pad = 0.3 * max(w_, h_)
        drag(qtbot, page, [(x0 - pad, y0 - pad), (x1 + pad, y0 - pad), (x1 + pad, y1 + pad),
                           (x0 - pad, y1 + pad), (x0 - pad, y0 - pad)], modifier=_SHIFT)

    run((Qt.Key.Key_S,), "scribble", blob2, scribbles)

    bx0, by0, bx1, by1 = _look_at(page, blob3)
    pad = 4
    run((Qt.Key.Key_R,), "box", blob3, lambda: drag(
        qtbot, page, [(bx0 - pad, by0 - pad), ((bx0 + bx1) / 2, (by0 + by1) / 2),
                      (bx1 + pad, by1 + pad)]))

    _look_at(page, tube, margin=0.75)
    line = tubes[0].centreline

    def trace_clicks() -> None:
        for k in (0, len(line) // 2, len(line) - 1):
            click(qtbot, page, line[k, 1], line[k, 0])

    run((Qt.Key.Key_T,), "trace", tube, trace_clicks)

    # the wand on a bright speck of the mammogram itself (a calcification): the brightest
    # pixel above its surroundings in the tissue, away from the drawn objects
    from scipy import ndimage

    r0, r1, c0, c1 = 1500, 3000, 200, 1300
    part = image[r0:r1, c0:c1].astype(float)
    speck = ndimage.gaussian_filter(part, 1) - ndimage.gaussian_filter(part, 8)
    drawn = np.zeros(shape, bool)
    for b in (*blobs, *tubes):
        drawn |= ndimage.binary_dilation(_truth(b, shape), iterations=40)
    speck[drawn[r0:r1, c0:c1]] = -np.inf
    sr, sc = np.unravel_index(np.argmax(speck), speck.shape)
    at = np.zeros(shape, bool)
    at[r0 + sr - 12:r0 + sr + 13, c0 + sc - 12:c0 + sc + 13] = True
    _look_at(page, at, margin=0.45)
    button = page.bars.tools.widgetForAction(page.actions_["wand"])
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    click(qtbot, page, c0 + sc + 0.5, r0 + sr + 0.5)
    qtbot.waitUntil(lambda: settled(page))
    qtbot.wait(50)
    _shot(w, screenshots, "wand")
    qtbot.keyClick(w, Qt.Key.Key_Return)
    specks = [p for p in _stored(w) if p.tool is Tool.WAND]
    found = rasterize(specks, shape) > 0
    assert found[r0 + sr, c0 + sc] and found.sum() < 400  # the speck, not the tissue

    # refine: a rough hand-drawn outline round the first blob, snapped
    _look_at(page, blob)
    for polygon in list(_stored(w)):
        if polygon.tool is Tool.POINTS:
            page.tool.select(polygon.id)
            qtbot.keyClick(w, Qt.Key.Key_Delete)
    qtbot.mouseClick(page.bars.tools.widgetForAction(page.actions_["polygon"]),
                     Qt.MouseButton.LeftButton)
    rows, cols = np.nonzero(blob)
    cx, cy = _centre(blob)
    rx, ry = (cols.max() - cols.min()) * 0.62, (rows.max() - rows.min()) * 0.62
    for a in np.linspace(0, 2 * np.pi, 7)[:-1]:
        click(qtbot, page, cx + rx * np.cos(a), cy + ry * np.sin(a))
    qtbot.keyClick(w, Qt.Key.Key_Return)
    rough = page.tool.polygon(page.tool.selected_id)
    assert rough is not None
    before = dice(rasterize([rough], shape) > 0, blob)
    run((Qt.Key.Key_R, _SHIFT), "refine", blob, lambda: None)
    assert scores["refine"] > before

    # the brush adds a bump to the refined outline, the eraser cuts it in two
    _look_at(page, blob, margin=1.4)
    core = next(p for p in _stored(w) if p.tool is Tool.REFINE and
                p.certainty.value == "certain")
    page.tool.select(core.id)
    qtbot.mouseClick(page.bars.tools.widgetForAction(page.actions_["brush"]),
                     Qt.MouseButton.LeftButton)
    rows, cols = np.nonzero(blob)
    top, left, right = rows.min(), cols.min(), cols.max()
    cx, cy = _centre(blob)
    drag(qtbot, page, [(cx, cy), (cx, top - 6), (cx + 8, top - 14)])
    qtbot.wait(50)
    _shot(w, screenshots, "brush")
    painted = page.tool.polygon(core.id)
    assert painted is not None and (painted.tool, painted.edited) == (Tool.REFINE, True)
    qtbot.mouseClick(page.bars.tools.widgetForAction(page.actions_["eraser"]),
                     Qt.MouseButton.LeftButton)
    drag(qtbot, page, [(left - 8, cy), (cx, cy + 2), (right + 8, cy)])
    qtbot.wait(50)
    _shot(w, screenshots, "eraser")
    pieces = [p for p in _stored(w) if p.tool is Tool.REFINE and p.certainty.value == "certain"]
    assert len(pieces) == 2 and all(p.edited for p in pieces)  # cut in two
    assert len(page.history.done) >= 10  # each tool's accept and each stroke: one step

    print({k: round(v, 3) for k, v in scores.items()})
    for name in ("points", "scribble", "box", "refine"):
        assert scores[name] > 0.8, (name, scores)
    assert scores["trace"] > 0.6, scores
