"""The Review panel's message ("Choose a reviewer first", "Walk to a box first") shows next to
the decision buttons that caused it, in a window of a laptop's size, 1120 × 700 (it was below
the pinned comments, out of view: a click on Accept seemed to do nothing)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from slicereview.gui.review.page import ReviewPage
from tests.gui.review.review_fixture import build_review_project


def test_a_refused_decision_is_said_where_it_is_seen(qtbot, open_window, tmp_path) -> None:
    w = open_window(build_review_project(tmp_path), (1120, 700))
    w.tabs.setCurrentWidget(w.review_page)
    page: ReviewPage = w.review_page
    qtbot.waitUntil(lambda: page.state.review is not None, timeout=30000)
    page.reviewer_box.setCurrentIndex(-1)  # nobody chosen yet
    accept = next(b for b in page.panel.findChildren(QPushButton) if b.text() == "Accept (A)")
    qtbot.mouseClick(accept, Qt.MouseButton.LeftButton)
    assert page.panel.message.text().startswith("Choose a reviewer first")
    assert not page.panel.message.visibleRegion().isEmpty()  # on screen, not scrolled away
