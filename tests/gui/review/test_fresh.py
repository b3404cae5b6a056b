"""The Review tab stays true to the file: a merged revision and an edit from elsewhere show up
without a restart, and a decision on an annotation that changed after it was shown is refused
(with a reload). Real widgets and a real work package; results read from the project file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from slicereview.app.annotating import finish
from slicereview.app.qa.packages import package
from slicereview.app.review.decisions import decide, start_revision
from slicereview.app.review.image import review_image
from slicereview.demo.workflow import return_package
from slicereview.gui.review.page import ReviewPage
from slicereview.model import Polygon
from slicereview.store import Project
from tests.gui.review.review_fixture import build_review_project

ANNOTATOR = "Simulated annotator A"


def _square(x: float, y: float, s: float) -> Polygon:
    return Polygon(np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], float))


def _open_review(qtbot, open_window, path: Path):
    w = open_window(path, (1500, 900))
    w.tabs.setCurrentWidget(w.review_page)
    page: ReviewPage = w.review_page
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=30000)
    return w, page


def _work(page: ReviewPage, name: str):
    return next(a for a in page.state.review.annotators if a.name == name)


def test_merged_revision_replaces_round_one_on_screen(qtbot, open_window, tmp_path,
                                                      monkeypatch) -> None:
    """As the tester did: the tab shows round 1, a revised round comes back in a work package
    and is merged; re-selecting the row must draw round 2 and its α (it drew round 1 until a
    restart, while `slicereview queue` had the new values)."""
    path = build_review_project(tmp_path)
    with Project.open(path) as p:
        boss = p.raters.add("boss", "reviewer")
        first_image = p.images.all()[0].id
        rater = p.raters.by_name(ANNOTATOR).id
        round1 = p.annotations.for_image(rater, first_image, create=False)
        decide(p, boss, round1.id, "reject", ["missed finding"])
    w, page = _open_review(qtbot, open_window, path)
    k = next(i for i, r in enumerate(page.state.rows) if r.image_id == first_image)
    page.show_position(k)
    assert _work(page, ANNOTATOR).annotation_id == round1.id
    # the annotator revises in their package, on another machine, and sends it back
    sent = package(Project.open(path), ANNOTATOR, tmp_path / "a.zip")
    revised = _square(40, 40, 60)

    def revise(remote: Project) -> None:
        again = start_revision(remote, round1.id)
        remote.polygons.replace(again, [revised])
        finish(remote, again, "submitted")

    back = return_package(sent, tmp_path / "a back.zip", revise)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(back), ""))
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.information", lambda *a, **k: None)
    worker = w.packages.merge_package()
    assert worker is not None
    qtbot.waitUntil(lambda: w.packages.worker is None, timeout=30000)
    with Project.open(path) as p:
        rev = p.annotations.for_image(rater, first_image, "formal", 2, create=False)
    assert rev is not None                                  # merged: round 2 is in the file
    # the tab refreshes by itself; re-selecting the row shows the same as the file
    qtbot.waitUntil(lambda: _work(page, ANNOTATOR).annotation_id == rev.id, timeout=15000)
    row = next(r for r in page.state.rows if r.image_id == first_image)
    page.queue_panel.table.selectRow(page.state.rows.index(row))
    qtbot.mouseClick(page.queue_panel.table.viewport(), Qt.MouseButton.LeftButton,
                     pos=page.queue_panel.table.visualItemRect(
                         page.queue_panel.table.item(page.state.rows.index(row), 1)).center())
    shown = _work(page, ANNOTATOR)
    assert shown.annotation_id == rev.id and len(shown.polygons) == 1
    assert np.array_equal(shown.polygons[0].vertices, revised.vertices)
    with Project.open(path) as p:
        expected = review_image(p, first_image, row.annotation_ids)
    assert rev.id in row.annotation_ids and round1.id not in row.annotation_ids
    assert page.state.review.strict.alpha == expected.strict.alpha
    assert page.state.review.relaxed.alpha == expected.relaxed.alpha


def test_decision_on_an_annotation_changed_after_it_was_shown_is_refused(
        qtbot, open_window, tmp_path) -> None:
    path = build_review_project(tmp_path)
    with Project.open(path) as p:
        p.raters.add("boss", "reviewer")
    w, page = _open_review(qtbot, open_window, path)
    page.set_reviewer("boss")
    image = page.state.review.image_id
    target = next(k for k, a in enumerate(page.state.review.annotators) if a.name == ANNOTATOR)
    seen = page.state.review.annotators[target]
    # another program (another window, a merge) edits that annotation after it was shown
    with Project.open(path) as other:
        other.polygons.replace(seen.annotation_id, [_square(5, 5, 30)])
        other.annotations.set_status(seen.annotation_id, "submitted")
    page.panel.annotators.selectRow(target)
    page.setFocus()
    qtbot.keyClick(page, Qt.Key.Key_A)                 # accept what was shown
    with Project.open(path) as p:
        assert seen.annotation_id not in p.reviews.current_decisions()      # nothing decided
    assert "changed after it was shown" in page.panel.message.text()
    # …and the page reloads: the annotation as it is now, then deciding works
    qtbot.waitUntil(lambda: page.state.review is not None and page.state.review.image_id == image
                    and _work(page, ANNOTATOR).updated_at != seen.updated_at, timeout=15000)
    assert len(_work(page, ANNOTATOR).polygons) == 1
    target = next(k for k, a in enumerate(page.state.review.annotators) if a.name == ANNOTATOR)
    page.panel.annotators.selectRow(target)
    page.setFocus()
    qtbot.keyClick(page, Qt.Key.Key_A)
    with Project.open(path) as p:
        assert str(p.reviews.current_decisions()[seen.annotation_id].decision) == "accept"
    assert w.image_label.text().startswith(page.state.rows[page.state.position].case_id)
