"""A confidence session in the Rate tab, driven on the real widgets and checked against the
project file: the dialog's fields, two raters sharing the session, the meter, undo, exact
resume in a new window, the ranking and its CSV."""

from __future__ import annotations

import csv
from pathlib import Path

from PySide6.QtCore import Qt

from slicereview.app.rating.confidence import ConfidenceRun, StopRule
from slicereview.app.rating.run import Comparison
from slicereview.gui.rate.confidence_meter import CALIBRATION
from slicereview.model import SessionKind
from tests.gui.rate.test_rate import N, _key_for, _press, _set_id, _window, make_rate_project


def _dialog(qtbot, page):
    from slicereview.gui.rate.dialogs import NewSessionDialog

    d = NewSessionDialog(page.gateway.rating.rater_names(), page.gateway.rating.image_sets(),
                         len(page.gateway.images()), page)
    qtbot.addWidget(d)
    return d


def test_dialog_asks_raters_and_a_stop_rule_and_remembers_them(qtbot, tmp_path: Path,
                                                                screenshots: Path) -> None:
    w, page = _window(qtbot, make_rate_project(tmp_path))
    d = _dialog(qtbot, page)
    d.kind.setCurrentIndex(d.kind.findData(SessionKind.CONFIDENCE))
    assert d.confidence.isEnabled() and not d.algorithm.isEnabled()
    qtbot.keyClicks(d.rater.lineEdit(), "ann")
    qtbot.keyClicks(d.confidence.shared, "bob, ann")
    assert d.problem() == "A rater is named twice."
    d.confidence.shared.clear()
    qtbot.keyClicks(d.confidence.shared, "bob")
    d.confidence.budget.setValue(8)
    assert d.estimate.text().startswith(f"{N} images: at most 48 comparisons, about 24 each")
    d.confidence.use_budget.setChecked(False)
    assert d.problem() == "Tick a budget or a target for the confidence session."
    d.confidence.use_tau.setChecked(True)
    d.confidence.tau.setValue(0.9)
    assert d.problem() is None and "the 50/image cap" in d.estimate.text()
    d.confidence.use_budget.setChecked(True)
    spec = d.spec()
    assert spec.kind == SessionKind.CONFIDENCE and spec.shared_with == ("bob",)
    assert spec.stop == StopRule(8, 0.9, None)
    d.accept()
    sid = page.create_session(spec)
    s = page.gateway.project.ratings.session(sid)
    project = page.gateway.project
    assert [project.raters.get(r).name for r in s.settings["raters"]] == ["ann", "bob"]
    assert (s.settings["budget_per_image"], s.settings["target_tau"]) == (8, 0.9)
    again = _dialog(qtbot, page)  # the choices are remembered
    assert again.kind.currentData() == SessionKind.CONFIDENCE
    assert again.confidence.shared.text() == "bob"
    assert again.confidence.stop() == StopRule(8, 0.9, None)
    again.grab().save(str(screenshots / "rate_new_confidence_session.png"))


def test_two_raters_meter_undo_resume_and_ranking(qtbot, tmp_path: Path, monkeypatch,
                                                  screenshots: Path) -> None:
    path = make_rate_project(tmp_path)
    w, page = _window(qtbot, path)
    project = page.gateway.project
    from slicereview.app.rating.sessions import NewSessionSpec

    sid = page.create_session(NewSessionSpec(
        SessionKind.CONFIDENCE, "ann", _set_id(page), "Which image is noisier?",
        shared_with=("bob",), stop=StopRule(budget_per_image=5)))
    ann, bob = (project.raters.by_name(n).id for n in ("ann", "bob"))
    meter = page.meter
    assert page.stack.currentWidget() is page.compare and meter.isVisible()
    assert meter.rater.isVisible() and meter.rater.currentText() == "ann"
    assert meter.budget.text() == "0 of at most 30 answers"
    assert page.compare.progress.text() == "answered 0 of at most 30"
    assert CALIBRATION in meter.tau.toolTip() and "0.02" in meter.note.text()

    for _ in range(3):
        _press(qtbot, page, _key_for(page))
    assert [a.rater_id for a in project.ratings.answers(sid)] == [ann] * 3
    assert meter.budget.text() == "3 of at most 30 answers"
    ann_pair = page.compare.current
    # bob takes the keyboard: he is shown a pair of his own.
    meter.rater.setCurrentIndex(meter.rater.findData(bob))
    meter.rater.activated.emit(meter.rater.currentIndex())
    bob_pair = page.compare.current
    assert {bob_pair.left, bob_pair.right} != {ann_pair.left, ann_pair.right}
    page.compare.setFocus()
    _press(qtbot, page, _key_for(page))
    last = project.ratings.answers(sid)[-1]
    assert (last.left, last.right, last.rater_id) == (bob_pair.left, bob_pair.right, bob)
    # Undo from this window's history takes bob's answer back and shows his pair again.
    _press(qtbot, page, Qt.Key.Key_Backspace)
    assert len(project.ratings.answers(sid)) == 3
    assert (page.compare.current.left, page.compare.current.right) == (bob_pair.left,
                                                                         bob_pair.right)
    _press(qtbot, page, _key_for(page))
    _press(qtbot, page, _key_for(page))
    assert [a.rater_id for a in project.ratings.answers(sid)] == [ann] * 3 + [bob] * 2
    meter.wait()
    qtbot.waitUntil(lambda: meter.raters.rowCount() == 2
                    and meter.details_state.text() == "intervals and reliability of 5 answers")
    assert [meter.raters.item(r, 0).text() for r in range(2)] == ["ann", "bob"]
    assert [meter.raters.item(r, 1).text() for r in range(2)] == ["3", "2"]
    assert meter.widest.text().count("±") == 5
    assert meter.least.text().count("±") == 5
    shown = page.compare.current
    w.close()

    # A new window on the same file: bob is still the one answering (remembered while the
    # project is open? no: a new window) — choose him again and get the same pair.
    w2, page2 = _window(qtbot, path)
    page2.sessions_list.setCurrentRow(page2._row_of(sid))
    meter2 = page2.meter
    meter2.rater.setCurrentIndex(meter2.rater.findData(bob))
    meter2.rater.activated.emit(meter2.rater.currentIndex())
    again = page2.compare.current
    assert (again.left, again.right) == (shown.left, shown.right)
    page2.compare.setFocus()
    while isinstance(page2.compare.current, Comparison) and \
            page2.stack.currentWidget() is page2.compare:
        _press(qtbot, page2, _key_for(page2))
    project2 = page2.gateway.project
    assert len(project2.ratings.answers(sid)) == 30
    assert project2.ratings.session_finished_at(sid) is not None
    assert page2.stack.currentWidget() is page2.grid and meter2.isVisible()
    assert "budget reached" in meter2.phase.text()
    captions = [page2.grid.grid.item(i).text() for i in range(N)]
    assert all("±" in c for c in captions)
    out = tmp_path / "c.csv"
    monkeypatch.setattr("slicereview.gui.common.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), "CSV (*.csv)"))
    qtbot.mouseClick(page2.grid.export_button, Qt.MouseButton.LeftButton)
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    run = page2.gateway.rating.run(sid)
    assert isinstance(run, ConfidenceRun)
    fit = run.bt()
    assert [r["bt_score"] for r in rows] == [f"{fit.scores[int(r['image_id'])]:.6g}"
                                             for r in rows]
    assert all(float(r["bt_se"]) > 0 for r in rows)
    assert [int(r["rank"]) for r in rows] == list(range(1, N + 1))
    qtbot.waitUntil(lambda: meter2.details_state.text()
                    == "intervals and reliability of 30 answers", timeout=30000)
    assert meter2.raters.rowCount() == 2
    page2.grab().save(str(screenshots / "rate_confidence_ranking.png"))


def test_another_instance_answers_and_this_window_stays_with_its_rater(qtbot, tmp_path: Path
                                                                       ) -> None:
    from slicereview.app.rating.sessions import NewSessionSpec
    from slicereview.store import Project

    path = make_rate_project(tmp_path)
    w, page = _window(qtbot, path)
    sid = page.create_session(NewSessionSpec(
        SessionKind.CONFIDENCE, "ann", _set_id(page), shared_with=("bob",),
        stop=StopRule(budget_per_image=5)))
    project = page.gateway.project
    bob = project.raters.by_name("bob").id
    meter = page.meter
    meter.rater.setCurrentIndex(meter.rater.findData(bob))
    meter.rater.activated.emit(meter.rater.currentIndex())
    page.gateway.watch._poll.stop()  # the check runs at the next key press
    shown = page.compare.current
    with Project.open(path) as other:  # ann answers in another instance
        run = ConfidenceRun(other, sid)
        now = run.current()
        run.answer("left", 700)
    page.compare.setFocus()
    _press(qtbot, page, _key_for(page))  # bob answers what he sees
    answers = project.ratings.answers(sid)
    assert [(a.left, a.right, a.rater_id) for a in answers] == [
        (now.left, now.right, project.raters.by_name("ann").id),
        (shown.left, shown.right, bob)]
    assert page.gateway.rating.run(sid).rater_id == bob  # a new run, the same rater
    assert meter.rater.currentData() == bob
    assert meter.budget.text() == "2 of at most 30 answers"
