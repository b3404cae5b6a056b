"""Two instances on one project file, seen from the GUI: the other instance's answers appear,
a pair answered elsewhere never leaves the view stuck, and the later instance is told who else
has the project open."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from slicereview.app.rating.run import Comparison, RatingRun
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project
from slicereview.store.lockfile import lock_path, read_lock
from tests.gui.rate.test_rate import (
    _key_for,
    _new_session,
    _press,
    _truth,
    _window,
    make_rate_project,
)


@pytest.fixture
def project_file(tmp_path: Path) -> Path:
    return make_rate_project(tmp_path)


def _answer_elsewhere(path: Path, session_id: int) -> tuple[int, int]:
    """The other instance: its own connection answers the session's current pair."""
    with Project.open(path) as other:
        run = RatingRun(other, session_id)
        now = run.current()
        assert isinstance(now, Comparison)
        truth = {im.id: int(Path(im.path).stem.split("_")[1]) for im in other.images.all()}
        run.answer("left" if truth[now.left] > truth[now.right] else "right", 5,
                   pair=(now.left, now.right))
        return now.left, now.right


def test_answers_from_another_instance_appear_and_a_stale_pair_refreshes(
        qtbot, project_file: Path) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "sort")
    project = page.gateway.project
    _press(qtbot, page, _key_for(page))
    shown = page.compare.current
    # 1. the other instance answers the pair on screen; the 1 s check brings the next one
    assert _answer_elsewhere(project_file, sid) == (shown.left, shown.right)
    qtbot.waitUntil(lambda: page.compare.current != shown, timeout=3000)
    assert page.compare.current.answered == 2
    assert "another window or instance" in page.compare.message.text()
    assert "2 answers" in page.row_text(sid)
    # 2. it answers again before the timer notices; our key press must not store an answer
    #    for the wrong pair, nor double one, nor get stuck
    page.gateway.watch._poll.stop()
    shown = page.compare.current
    _answer_elsewhere(project_file, sid)
    _press(qtbot, page, _key_for(page))
    answers = project.ratings.answers(sid)
    pairs = [frozenset((a.left, a.right)) for a in answers]
    assert len(answers) == 3 and len(set(pairs)) == 3
    assert page.compare.current != shown and page.compare.current.answered == 3
    _press(qtbot, page, _key_for(page))  # and the view goes on answering normally
    assert len(project.ratings.answers(sid)) == 4
    assert _truth(page, page.compare.current.left) >= 0


def test_the_second_instance_is_told_who_has_the_project_open(qtbot, project_file: Path, screenshots
                                                              ) -> None:
    first = ProjectGateway()
    first.open(project_file)
    assert first.watch.lock.owned and first.watch.message == ""
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1200, 700)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_project(project_file)
    banner = w.sharing_banner
    assert banner.isVisible()
    text = banner.label.text()
    assert text.startswith("Also open on ") and "changes there appear here" in text
    assert read_lock(project_file).pid == first.watch.lock.info.pid
    w.grab().save(str(screenshots / "two_instances_banner.png"))
    first.close()  # the first instance quits: its lock goes, the banner follows
    assert not lock_path(project_file).exists()
    w.gateway.watch.heartbeat()
    assert not banner.isVisible() and w.gateway.watch.lock.owned
    w.gateway.close()
    assert not lock_path(project_file).exists()
    qtbot.keyClick(w, Qt.Key.Key_Escape)


def test_ctrl_z_never_deletes_the_other_instances_answer(qtbot, project_file: Path) -> None:
    w, page = _window(qtbot, project_file)
    sid = _new_session(page, "sort")
    project = page.gateway.project
    _press(qtbot, page, _key_for(page))  # my answer, in this window's history
    page.gateway.watch._poll.stop()  # before the 1 s check notices anything
    _answer_elsewhere(project_file, sid)
    theirs = project.ratings.answers(sid)[-1]
    _press(qtbot, page, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [a.id for a in project.ratings.answers(sid)][-1] == theirs.id
    assert len(project.ratings.answers(sid)) == 2
    assert "yours is kept" in page.compare.message.text()
    assert page.compare.current.answered == 2  # the view shows the file's state
    _press(qtbot, page, _key_for(page))
    assert len(project.ratings.answers(sid)) == 3
