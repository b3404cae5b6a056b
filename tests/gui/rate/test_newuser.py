"""What a new user hit in the Rate tab: readable ranking tiles, a remembered new-session dialog,
an idle cut-off of the active clock, a confirmation before undoing someone's finished work."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from slicereview.app.rating.run import GradeRequest
from tests.gui.rate.test_rate import _new_session, _press, _truth, _window, make_rate_project


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_rate_project(tmp_path)

LONG_LABELS = ("no artifact", "mild blurring", "moderate motion", "severe, unusable")


def _luminance(c: QColor) -> float:
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF())


def _contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _grade_all(qtbot, page) -> int:
    digits = [Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4]
    n = 0
    while isinstance(page.compare.current, GradeRequest):
        _press(qtbot, page, digits[_truth(page, page.compare.current.image_id) % 4])
        n += 1
    return n


def test_ranking_tiles_are_readable_show_whole_grades_and_open_large(qtbot, project_file: Path,
                                                                     screenshots) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "classify", labels=LONG_LABELS)
    _grade_all(qtbot, page)
    assert page.stack.currentWidget() is page.grid
    grid = page.grid.grid
    fm = grid.fontMetrics()
    for i in range(grid.count()):
        item = grid.item(i)
        width = grid.visualItemRect(item).width()
        assert _contrast(item.foreground().color(), item.background().color()) >= 4.5
        for line in item.text().split("\n"):
            assert fm.horizontalAdvance(line) < width, line
    assert any(LONG_LABELS[3] in grid.item(i).text() for i in range(grid.count()))
    page.grid.wait_for_thumbnails()
    qtbot.wait(50)
    assert w.grab().save(str(screenshots / "rate_ranking_classify.png"))
    item = grid.item(1)
    rect = grid.visualItemRect(item)
    # a real double click: press and release, then the double-click press and release
    qtbot.mouseClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(grid.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: len(page.grid.viewers) == 1)
    viewer = page.grid.viewers[0]
    assert viewer.image_id == item.data(Qt.ItemDataRole.UserRole + 1)
    assert viewer.isVisible() and viewer.view.display is not None
    assert viewer.view.display.data.shape == (96, 80)
    assert page.gateway.rating.run(sid).done
    viewer.close()


def test_new_session_dialog_asks_the_kinds_prompt_and_remembers_choices(qtbot, project_file,
                                                                          screenshots) -> None:
    from slicereview.gui.rate.dialogs import NewSessionDialog
    from slicereview.model import SessionKind

    w, page = _window(qtbot, project_file)

    def dialog() -> NewSessionDialog:
        d = NewSessionDialog(page.gateway.rating.rater_names(), page.gateway.rating.image_sets(),
                             len(page.gateway.images()), page)
        qtbot.addWidget(d)
        return d

    first = dialog()
    assert first.rater.currentText() == ""  # nothing to remember yet
    assert first.prompt.text().startswith("Which image")
    first.kind.setCurrentIndex(2)  # classify: a grading prompt, not a choice of two
    assert first.prompt.text().startswith("How much")
    qtbot.keyClicks(first.rater.lineEdit(), "bob")
    first.labels.setText("ok, blurred, unusable")
    first.accept()
    assert page.create_session(first.spec()) is not None

    again = dialog()
    assert again.kind.currentData() == SessionKind.CLASSIFY
    assert again.rater.currentText() == "bob"
    assert again.image_set.currentData()[2] == "six"
    assert again.labels.text() == "ok, blurred, unusable"
    assert again.prompt.text().startswith("How much")
    again.kind.setCurrentIndex(0)
    assert again.prompt.text().startswith("Which image")
    again.prompt.clear()
    qtbot.keyClicks(again.prompt, "Which image is noisier?")
    again.kind.setCurrentIndex(1)  # typed text is kept when the kind changes
    assert again.prompt.text() == "Which image is noisier?"
    again.accept()
    third = dialog()
    assert str(third.kind.currentData()) == "exhaustive"
    assert third.prompt.text() == "Which image is noisier?"
    third.kind.setCurrentIndex(2)
    assert third.prompt.text().startswith("How much")
    third.grab().save(str(screenshots / "rate_new_session.png"))


def test_rate_clock_stops_after_a_stretch_without_input_and_says_so(qtbot, project_file,
                                                                   screenshots, skip_ahead
                                                                   ) -> None:
    """A grade given after the person was away stores at most the idle limit, not the whole
    absence; the view shows that the clock is paused, and input starts it again."""
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "classify", labels=LONG_LABELS)
    clock = page.compare.clock
    clock.idle_ms = 150  # the real limit is a minute; the rule is the same
    assert clock.running and not clock.paused
    assert "running" in page.compare.clock_label.text()
    skip_ahead(clock, 900)  # away: nobody touches anything
    clock.tick()
    qtbot.waitUntil(lambda: "no input" in page.compare.clock_label.text())
    w.grab().save(str(screenshots / "rate_clock_paused.png"))
    _press(qtbot, page, Qt.Key.Key_2)
    first = page.gateway.project.ratings.grades(sid)[0]
    assert 0 < first.active_ms <= 150 + 100, first.active_ms  # not the 900 ms away
    qtbot.mouseMove(page.compare.left, page.compare.left.rect().center())
    assert "running" in page.compare.clock_label.text()


def test_undo_on_a_finished_or_stored_session_asks_first_naming_the_rater(qtbot, project_file
                                                                         ) -> None:
    from tests.gui.rate.test_rate import _answer_all, answer_confirmation

    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "sort")
    _answer_all(qtbot, page)
    project = page.gateway.project
    n = len(project.ratings.answers(sid))
    seen: list[str] = []
    answer_confirmation(False, seen)
    qtbot.mouseClick(page.grid.undo_button, Qt.MouseButton.LeftButton)
    assert len(project.ratings.answers(sid)) == n  # "No" keeps the answer
    assert page.stack.currentWidget() is page.grid
    assert "ann's session" in seen[0] and "(finished)" in seen[0]
    answer_confirmation(True, seen)
    qtbot.mouseClick(page.grid.undo_button, Qt.MouseButton.LeftButton)
    assert len(project.ratings.answers(sid)) == n - 1
    assert page.stack.currentWidget() is page.compare
    # A stored answer (not given in this window, as after reopening or another rater's):
    page.gateway.rating.history(sid).clear()
    w.activateWindow()  # the window manager's job after a dialog closes
    qtbot.waitUntil(w.isActiveWindow)
    page.compare.setFocus()
    answer_confirmation(False, seen)
    _press(qtbot, page, Qt.Key.Key_Backspace)
    assert len(project.ratings.answers(sid)) == n - 1
    assert "(in progress)" in seen[-1]
    # (undoing this window's own answers asks nothing: test_rate's undo/redo test would hang)


@pytest.mark.slow  # 6 s
def test_reliability_panel_and_cli_give_the_same_kendall_tau(qtbot, project_file: Path,
                                                            tmp_path: Path) -> None:
    """Two classify sessions (ties: six images, four grades) answered in different orders;
    the panel (seed and order as the GUI has them) and `slicereview reliability` agree."""
    import json
    import subprocess
    import sys

    w, page = _window(qtbot, project_file)
    digits = [Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4]
    sids = []
    for shift in (0, 1):
        sid = _new_session(page, "classify", labels=LONG_LABELS)
        while isinstance(page.compare.current, GradeRequest):
            t = _truth(page, page.compare.current.image_id)
            _press(qtbot, page, digits[(t // 2 + shift * (t == 3)) % 4])
        sids.append(sid)
    page.show_reliability()
    page.reliability.set_checked(sids[::-1])
    assert page.reliability.compute()
    report = page.reliability.wait()
    out = tmp_path / "rel.json"
    subprocess.run([sys.executable, "-m", "slicereview", "reliability", str(project_file),
                    str(sids[1]), str(sids[0]), "--json", str(out)], check=True,
                   capture_output=True, timeout=120)
    cli = json.loads(out.read_text())
    assert report.randomisations == cli["randomisations"] == 100
    assert f"{report.pairs[0].kendall_tau_b:.3f}" == f"{cli['pairs'][0]['kendall_tau_b']:.3f}"
    assert report.pairs[0].kendall_tau_b == cli["pairs"][0]["kendall_tau_b"]
