"""Repeats end to end: the owner schedules a share of a batch to come back (Owner ▸ Phases and
batches ▸ Repeats), the annotator gets it after their batch, annotates it blind, and the file
holds both passes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from slicereview.app.images.importing import import_paths
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import AnnotationStatus
from slicereview.store import Project

_L = Qt.MouseButton.LeftButton
_NO = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    """Three 128 × 128 crops of scikit-image's camera, one annotator, one owner."""
    from skimage import data, io

    folder = tmp_path / "images"
    folder.mkdir()
    camera = data.camera()
    for k in range(3):
        io.imsave(folder / f"cam{k}.png", camera[k * 128:(k + 1) * 128, 128:256],
                  check_contrast=False)
    path = tmp_path / "repeats.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        project.raters.add("alice")
        project.raters.add("olivia", "owner")
    return path


def _pos(page, x: float, y: float) -> QPoint:
    return page.view.graphics.mapFromScene(page.view.viewbox.mapViewToScene(QPointF(x, y)))


def _draw_square(qtbot, page, x0: float, size: float) -> None:
    corners = [(x0, x0), (x0 + size, x0), (x0 + size, x0 + size), (x0, x0 + size), (x0, x0)]
    for x, y in corners:
        qtbot.mouseClick(page.view.graphics.viewport(), _L, _NO, _pos(page, x, y))


def test_schedule_offer_open_blind_draw_submit(qtbot, open_window, project_file,
                                              screenshots) -> None:
    w: MainWindow = open_window(project_file, (1300, 850))
    # -- the owner: a formal batch of the three images for alice, 5 % repeats, seed 7
    w.owner_menu.actions["batches"].trigger()
    dialog = w.owner_menu.dialog
    qtbot.keyClicks(dialog.name_edit, "formal A")
    dialog.phase_box.setCurrentText("formal")
    dialog.source_box.setCurrentIndex(0)  # the images in the image list
    dialog.annotator_list.item(0).setCheckState(Qt.CheckState.Checked)
    assert not dialog.repeat_button.isEnabled()  # no batch selected yet
    qtbot.mouseClick(dialog.save_button, _L)
    assert dialog.message.text() == ""
    assert dialog.repeat_button.isEnabled()  # the new batch is selected
    dialog.repeat_share.setValue(5.0)
    dialog.repeat_seed.setValue(7)
    qtbot.mouseClick(dialog.repeat_button, _L)
    assert dialog.message.text() == ""
    assert dialog.repeat_label.text() == "alice: 1 to do, 0 done"
    assert dialog.grab().save(str(screenshots / "batches.png"))
    with Project.open(project_file) as project:
        [(first, again)] = project.repeats.pairs()
        chosen = first.image_id
    dialog.close()

    # -- alice: first passes of the whole batch; the repeat waits until they are done
    w.tabs.setCurrentWidget(w.annotate_page)
    page = w.annotate_page
    qtbot.waitUntil(lambda: page.view.display is not None)
    assert page.own and page.panel.you_box.currentText() == "alice"
    assert page.repeats_box.isVisible() and page.repeats_box.list.count() == 0
    assert "1 will come once your batch is done" in page.repeats_box.label.text()
    first_pass: dict[int, int] = {}
    for _ in range(3):
        image_id = page.image_id
        _draw_square(qtbot, page, 20, 60)
        first_pass[image_id] = page.annotation.id
        assert len(page.tool.polygons) == 1
        if len(first_pass) < 3:
            assert page.repeats_box.list.count() == 0
        qtbot.mouseClick(page.panel.submit_button, _L)
        qtbot.waitUntil(lambda i=image_id: page.image_id != i or len(first_pass) == 3)
    assert set(first_pass) == {im.id for im in w.gateway.images()}
    assert page.repeats_box.list.count() == 1
    assert page.repeats_box.list.item(0).data(Qt.ItemDataRole.UserRole) == chosen

    # -- open the repeat: the image, none of the first pass's polygons
    qtbot.mouseClick(page.repeats_box.open_button, _L)
    assert page.image_id == chosen and page.state.repeat_image == chosen
    assert w.browser.current_id() == chosen
    assert page.tool.polygons == []
    assert page.annotation.id == again.id and page.annotation.repeat_of == first_pass[chosen]
    assert "first mask is hidden" in page.repeats_box.label.text()
    assert w.grab().save(str(screenshots / "repeat_open.png"))
    _draw_square(qtbot, page, 40, 50)
    assert len(page.tool.polygons) == 1
    page.history.undo()
    assert page.tool.polygons == []
    page.history.redo()
    qtbot.mouseClick(page.panel.submit_button, _L)
    qtbot.waitUntil(lambda: page.repeats_box.list.count() == 0)  # nothing left to repeat

    with Project.open(project_file) as project:
        repeat = project.annotations.get(again.id)
        first_now = project.annotations.get(first_pass[chosen])
        assert repeat.repeat_of == first_now.id and repeat.round == -1
        assert repeat.status is AnnotationStatus.SUBMITTED
        assert first_now.status is AnnotationStatus.SUBMITTED and first_now.round == 1
        [mine] = project.polygons.of(repeat.id)
        [theirs] = project.polygons.of(first_now.id)
        assert np.allclose(mine.vertices.min(0), 40, atol=1.5)
        assert np.allclose(theirs.vertices.min(0), 20, atol=1.5)
        assert np.allclose(theirs.vertices.max(0), 80, atol=1.5)
        assert len(project.annotations.all(rater_id=first_now.rater_id)) == 3  # no extra pass
    # back on that image from the image list: the first pass again
    other = next(i for i in first_pass if i != chosen)
    w.browser.select(other)
    qtbot.waitUntil(lambda: page.image_id == other and page.state.repeat_image is None)
    w.browser.select(chosen)
    qtbot.waitUntil(lambda: page.image_id == chosen)
    assert page.annotation.id == first_now.id and len(page.tool.polygons) == 1
