"""The viewer on real images: right-drag window/level, the Window box, the histogram, the pixel
readout, volume scrolling, the image size and the F1 key list (qtbot driving a MainWindow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtWidgets import QApplication

from slicereview.app.images.importing import import_paths
from slicereview.demo.project import mammogram_files
from slicereview.engines.imaging.importer import parse_slices
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project


@pytest.fixture(scope="module")
def project_file(tmp_path_factory) -> Path:
    """A CBIS-DDSM mammogram (uint16), a CT (signed HU), a wide PNG and a 5-slice volume."""
    from skimage import io

    tmp = tmp_path_factory.mktemp("viewer")
    images = tmp / "images"
    images.mkdir()
    ct = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ct.save_as(images / "ct.dcm")
    rng = np.random.default_rng(3)
    io.imsave(images / "wide.png", rng.integers(0, 255, (300, 484), dtype=np.uint8),
              check_contrast=False)
    import nibabel.testing

    anatomical = Path(nibabel.testing.data_path) / "anatomical.nii"
    (images / "anatomical.nii").write_bytes(anatomical.read_bytes())
    path = tmp / "viewer.srproj"
    with Project.create(path) as project:
        import_paths(project, [mammogram_files()[0], images / "ct.dcm", images / "wide.png"])
        import_paths(project, [images / "anatomical.nii"], slices=parse_slices("range:10:15"))
    return path


@pytest.fixture
def window(qtbot, project_file: Path) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(project_file)
    return w


def _select(w: MainWindow, format_: str, k: int = 0) -> None:
    ids = [i for i in w.browser.image_ids() if w.gateway.image(i).format == format_]
    w.browser.select(ids[k])
    QApplication.processEvents()


def _right_drag(qtbot, w: MainWindow, dx: int, dy: int) -> None:
    vp = w.viewer.graphics.viewport()
    start = vp.rect().center()
    qtbot.mousePress(vp, Qt.MouseButton.RightButton, pos=start)
    for k in range(1, 11):
        qtbot.mouseMove(vp, start + QPoint(dx * k // 10, dy * k // 10))
    qtbot.mouseRelease(vp, Qt.MouseButton.RightButton, pos=start + QPoint(dx, dy))


def _rendered_image(w: MainWindow) -> np.ndarray:
    """The grey values of the image as drawn on screen (the view's central part)."""
    QApplication.processEvents()
    picture = w.viewer.graphics.grab().toImage()
    arr = np.array(picture.constBits(), np.uint8).reshape(
        picture.height(), picture.bytesPerLine() // 4, 4)[:, :picture.width(), :3]
    h, wd = arr.shape[:2]
    return arr[h // 4: 3 * h // 4, wd // 3: 2 * wd // 3].mean(axis=2)


def test_right_drag_on_a_mammogram_keeps_a_visible_window(window: MainWindow, qtbot) -> None:
    _select(window, "dicom", 0)
    data = np.asarray(window.viewer.display.data)
    assert data.dtype == np.uint16 and data.shape[0] > 4000
    before = _rendered_image(window)
    assert before.mean() > 20
    _right_drag(qtbot, window, -200, 100)  # one ordinary drag: narrower and darker
    w = window.viewer.current_window
    minimum = window.viewer.data_range.minimum_width
    assert minimum >= max(1.0, 0.9 * (float(data.max()) - float(data.min())) / 1000.0)
    assert w.width >= minimum
    after = _rendered_image(window)
    assert (after > 30).mean() > 0.05, "the image went black"
    assert window.viewer.preset_box.currentText().startswith("Custom")
    # however far the drag goes, the width stops at the minimum
    _right_drag(qtbot, window, -3000, 0)
    assert window.viewer.current_window.width == pytest.approx(minimum, rel=0.05)


def test_window_box_says_custom_after_a_manual_change(window: MainWindow, qtbot) -> None:
    _select(window, "png")
    box = window.viewer.preset_box
    assert box.currentText().startswith("full range")  # an 8-bit image's preset
    qtbot.keyClick(window, Qt.Key.Key_C)  # more contrast
    w = window.viewer.current_window
    assert box.currentText() == f"Custom ({w.center:.5g}/{w.width:.5g})"
    qtbot.keyClick(window, Qt.Key.Key_A)
    assert box.currentText().startswith("Auto")
    window.viewer.histogram.item.setLevels(10.0, 90.0)
    assert box.currentText() == "Custom (50/80)"


def test_histogram_is_in_the_image_units_on_signed_ct(window: MainWindow) -> None:
    _select(window, "dicom", 1)
    data = np.asarray(window.viewer.display.data)
    assert data.min() < 0, "CT_small is signed"
    item = window.viewer.histogram.item
    lo, hi = window.viewer.current_window.levels()
    assert np.allclose(item.getLevels(), (lo, hi))
    x, _ = item.plot.getData()
    step = x[1] - x[0]
    assert data.min() - step <= x.min() <= data.min() + step
    assert data.max() - step <= x.max() <= data.max() + step
    item.setLevels(-100.0, 300.0)
    assert window.viewer.current_window.center == pytest.approx(100.0)
    assert np.allclose(window.viewer.image_item.getLevels(),
                       np.array([-100.0, 300.0]) + window.viewer._offset)


def test_histogram_of_a_mammogram_is_readable(window: MainWindow) -> None:
    _select(window, "dicom", 0)
    _, y = window.viewer.histogram.item.plot.getData()
    shown = y[y > 0]
    # linear counts: the zero background is thousands of times the median bin
    assert shown.max() / np.median(shown) < 10


def test_pixel_readout_is_cleared(window: MainWindow, qtbot) -> None:
    _select(window, "dicom", 0)
    vp = window.viewer.graphics.viewport()
    qtbot.mouseMove(vp, vp.rect().center())
    qtbot.mouseMove(vp, vp.rect().center() + QPoint(5, 5))
    qtbot.waitUntil(lambda: "value" in window.cursor_label.text())
    _select(window, "png")
    assert window.cursor_label.text() == ""
    qtbot.mouseMove(vp, vp.rect().center() + QPoint(2, 2))
    qtbot.waitUntil(lambda: "value" in window.cursor_label.text())
    QApplication.sendEvent(vp, QEvent(QEvent.Type.Leave))
    assert window.cursor_label.text() == ""


def test_scrolling_a_volume_keeps_the_window(window: MainWindow, qtbot) -> None:
    _select(window, "nifti", 0)
    first = window.viewer.current_window
    for _ in range(4):
        qtbot.keyClick(window, Qt.Key.Key_PageDown, Qt.KeyboardModifier.ControlModifier)
        assert window.viewer.current_window == first
    assert window.viewer.preset_box.currentText().startswith("Auto")
    own = window.viewer.display.auto_window()  # this slice's own window is not the volume's
    assert (own.center, own.width) != (first.center, first.width)
    qtbot.keyClick(window, Qt.Key.Key_A)  # A gives the volume's window, on any slice
    assert window.viewer.current_window == first
    window.viewer.adjust(contrast=+1)
    mine = window.viewer.current_window
    qtbot.keyClick(window, Qt.Key.Key_PageUp, Qt.KeyboardModifier.ControlModifier)
    assert window.viewer.current_window == mine
    _select(window, "dicom", 0)  # another image gets its own window again
    assert window.viewer.preset_box.currentText().startswith("Auto")


def test_image_size_is_width_by_height(window: MainWindow) -> None:
    _select(window, "png")
    assert "484×300" in window.image_label.text()


def test_f1_lists_the_keys_of_every_tab(window: MainWindow, qtbot) -> None:
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.view_menu.shortcuts_dialog
    qtbot.waitUntil(dialog.isVisible)
    text = dialog.text()
    for section in ("View", "Rate", "Annotate"):
        assert section in text
    for key in ("Ctrl+PgDown", "Right", "Ctrl+Return", "Shift+O", "F1"):
        assert key in text, key
