"""Side by side, then back: the Review tab's minimum width returns to the single view's.

Under Xvfb, pressing S twice raised the Review page's minimum width from 1122 to 1515 px for
good (the hidden panes' tool bars still counted), so the window with the image list on the
Annotate tab no longer fit a 1600 px screen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from slicereview.store import Project
from tests.gui.review.test_review import _NO, _open, project_file  # noqa: F401


def _narrowest(qtbot, w) -> int:
    """The window's width after asking for 600 px: what its layout lets it shrink to."""
    w.resize(600, 900)
    qtbot.wait(50)
    return w.width()


def _settle(qtbot, w) -> None:
    """Wait until the window's minimum width stops changing (the queue and the decisions panel
    fill in after the image is shown): the same value at ten successive polls."""
    seen: list[int] = []

    def steady() -> bool:
        seen.append(w.minimumSizeHint().width())
        return len(seen) >= 10 and len(set(seen[-10:])) == 1

    qtbot.waitUntil(steady, timeout=20000)


def test_side_by_side_and_back_keeps_the_minimum_width(qtbot, project_file: Path) -> None:  # noqa: F811
    w = _open(qtbot, project_file)
    page = w.review_page
    _settle(qtbot, w)
    before = _narrowest(qtbot, w)
    w.resize(1500, 900)
    qtbot.keyClick(page, Qt.Key.Key_S, _NO)
    assert len(page.image_views()) == 3           # two columns of panes
    qtbot.keyClick(page, Qt.Key.Key_S, _NO)
    assert page.image_views() == [page.view]
    assert _narrowest(qtbot, w) <= before
    w.close()


def test_five_annotators_side_by_side_fit_a_1600_px_screen(qtbot, project_file: Path) -> None:  # noqa: F811
    # Under Xvfb five annotators' panes needed 1,774 px: every pane had its own window bar
    # (~360 px wide). The window is linked across panes, so only the first pane shows it.
    with Project.open(project_file) as project:
        first = project.annotations.all()
        for name in ("Dee", "Eve"):
            rater = project.raters.ensure(name, simulated=True)
            for done in {a.image_id: a for a in first}.values():
                copy = project.annotations.for_image(rater, done.image_id)
                project.polygons.replace(copy.id, project.polygons.of(done.id))
                project.annotations.set_status(copy.id, "submitted")
    w = _open(qtbot, project_file)
    page = w.review_page
    qtbot.keyClick(page, Qt.Key.Key_S, _NO)
    assert len(page.image_views()) == 5
    _settle(qtbot, w)
    assert _narrowest(qtbot, w) <= 1600
    assert [v.controls.isVisible() for v in page.image_views()] == [True] + [False] * 4
    w.close()
