"""A window on a server project is its login's person: an annotator's login annotates as
that annotator (the Annotate tab offers no one else, whose work that login cannot read), a
reviewer's login reviews as that reviewer -- whatever another window chose before."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from slicereview.app.images.importing import import_paths
from slicereview.app.people import add_login
from slicereview.model import NewImage, Role
from slicereview.store import Project
from tests.gui.annotate.test_annotate import _click


def _as(url: str, login: str) -> str:
    """The same database, connected as ``login`` (the test cluster trusts its socket)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{quote(login)}@{rest.split('@', 1)[1]}"


def _close_message(said: list[str]) -> None:
    """Note the text of the message box on screen and close it (as a user would)."""
    box = QApplication.activeModalWidget()
    if isinstance(box, QMessageBox):
        said.append(box.text())
        box.accept()
    else:
        QTimer.singleShot(100, lambda: _close_message(said))


def test_each_login_works_as_its_own_person(qtbot, open_window, tmp_path: Path,
                                            postgres_cluster) -> None:
    from skimage import io

    url = postgres_cluster.new_database("logins")
    io.imsave(tmp_path / "x.png", np.full((40, 30), 1000, np.uint16), check_contrast=False)
    with Project.create(url) as owner:
        owner.images.add_source(tmp_path / "x.png", "0" * 64, "png", [NewImage(40, 30)])
        ann, _ = add_login(owner, "ann", Role.ANNOTATOR)  # listed first: the old default
        bob, _ = add_login(owner, "bob", Role.ANNOTATOR)
        add_login(owner, "rex", Role.REVIEWER)
        rita, _ = add_login(owner, "rita", Role.REVIEWER)
        owner.set_meta("review.reviewer", str(owner.raters.by_name("rex").id))  # rex's choice
        name = owner.name
    try:
        w = open_window(_as(url, "bob"))
        w.tabs.setCurrentWidget(w.annotate_page)
        panel = w.annotate_page.panel
        qtbot.waitUntil(lambda: panel.you_box.currentData() == bob)
        assert [panel.you_box.itemText(i) for i in range(panel.you_box.count())] == ["bob"]
        assert [panel.annotator_box.itemText(i)
                for i in range(panel.annotator_box.count())] == ["bob"]
        assert not panel.new_annotator_button.isEnabled()  # (may not add raters)
        page = w.review_page  # the Review tab says what an annotator's login can do there
        assert "an annotator" in page.panel.message.text()
        assert not page.new_reviewer_button.isEnabled() and page.reviewer_id is None
        # (issue 31) Accept/Reject... are off for an annotator's login, and the title says whose
        # window it is
        assert page.panel.decision_buttons and not any(
            b.isEnabled() for b in page.panel.decision_buttons)
        assert w.windowTitle() == f"{name} — bob — slicereview"
        review = page.gateway.review  # (building the tab wrote its settings: refused)
        review.set_setting("budget", 7)  # the project's are the reviewers': kept in the window
        assert review.setting("budget") == "7"
        said: list[str] = []  # Review ▸ New… reviewer: refused, and said (was: stderr only)
        QTimer.singleShot(200, lambda: _close_message(said))
        assert w.review_page.set_reviewer("bobby") is None
        assert said and "may not change this" in said[0]
        w.close()
        w = open_window(_as(url, "rita"))
        w.tabs.setCurrentWidget(w.review_page)
        assert w.review_page.reviewer_box.currentText() == "rita"
        assert all(b.isEnabled() for b in w.review_page.panel.decision_buttons)
        assert w.windowTitle() == f"{name} — rita — slicereview"
        w.tabs.setCurrentWidget(w.annotate_page)  # a reviewer may still act for anyone
        assert w.annotate_page.panel.you_box.count() == 2
        assert w.annotate_page.panel.new_annotator_button.isEnabled()
        w.close()
        w = open_window(url)  # the owner's own login names no rater: as before
        assert w.review_page.reviewer_box.currentText() == "rex"
        assert w.annotate_page.panel.you_box.currentData() == ann
        w.close()
    finally:
        postgres_cluster.drop_database(url)


def test_a_refused_first_polygon_is_said_not_raised(qtbot, open_window, tmp_path: Path,
                                                    postgres_cluster) -> None:
    """A login that names no rater of the project (its rater was removed) draws as the
    annotator the Annotate tab offers: the database refuses to start that annotation, and
    the panel says so (was: an uncaught exception on stderr, and nothing on screen)."""
    import psycopg
    from skimage import io

    url = postgres_cluster.new_database("refused")
    io.imsave(tmp_path / "x.png", np.full((100, 120), 1000, np.uint16), check_contrast=False)
    with Project.create(url) as owner:
        import_paths(owner, [tmp_path / "x.png"])
        owner.raters.add("ann")
        add_login(owner, "ghost", Role.ANNOTATOR)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM raters WHERE name = 'ghost'")
    try:
        w = open_window(_as(url, "ghost"))
        page = w.annotate_page
        w.tabs.setCurrentWidget(page)
        qtbot.waitUntil(lambda: page.view.display is not None)
        assert page.panel.you_box.currentText() == "ann"
        for x, y in [(20, 20), (90, 25), (85, 80), (20.4, 20.3)]:  # the last one closes it
            _click(qtbot, page, x, y)
        assert "may not change this" in page.panel.message_label.text()
        assert page.annotation is None and page.tool.polygons == []
        w.close()
        with Project.open(url, read_only=True) as owner:
            assert owner.annotations.all() == []
    finally:
        postgres_cluster.drop_database(url)
