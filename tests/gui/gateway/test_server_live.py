"""Two windows on one server project, live (``LISTEN/NOTIFY``), and a window whose server
connection breaks: the server ends it (``pg_terminate_backend``) or the server stops and
starts again. Nothing crashes, every answer is either saved once or refused with a message,
and the window says what is going on and when the connection is back."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.commands import AddPolygon
from slicereview.gui.window.main_window import MainWindow
from slicereview.model import Polygon
from slicereview.store import Project
from slicereview.store.copying import copy_project
from tests.gui.gateway.test_two_instances import _answer_elsewhere
from tests.gui.rate.test_rate import _key_for, _new_session, _press, _window, make_rate_project


@pytest.fixture
def url(tmp_path: Path, postgres_cluster):
    made = postgres_cluster.new_database("live")
    copy_project(make_rate_project(tmp_path), made)
    yield made
    postgres_cluster.drop_database(made)


def _answers(url: str, sid: int) -> int:
    with Project.open(url) as other:
        return len(other.ratings.answers(sid))


def _focus(qtbot, w, page) -> None:
    w.activateWindow()
    w.raise_()
    qtbot.waitUntil(w.isActiveWindow)
    page.compare.setFocus()


def _login(url: str, cluster, name: str) -> str:
    """``url`` for the login ``name`` (made, with the rights of a project's user)."""
    cluster.admin(f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{name}') "
                  f"THEN CREATE ROLE {name} LOGIN; END IF; END $$")
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {name}")
        conn.execute(f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {name}")
    return url.replace(f"//{cluster.user}@", f"//{name}@")


def test_an_answer_in_one_window_appears_in_the_other_at_once(
        qtbot, url, postgres_cluster) -> None:
    """Two windows, two logins (anna and bob), one project."""
    w1, page1 = _window(qtbot, _login(url, postgres_cluster, "anna"))
    sid = _new_session(page1, "sort")
    w2, page2 = _window(qtbot, _login(url, postgres_cluster, "bob"))
    # each window says who else has the project open (the listeners' HELLO)
    qtbot.waitUntil(lambda: " by bob since " in w1.sharing_banner.label.text(), timeout=5000)
    assert w1.sharing_banner.isVisible()
    assert " by anna since " in w2.sharing_banner.label.text()
    # window 1 answers; the session's row of window 2 shows it (how soon: the benchmark of
    # notice to visible, tests/benchmarks/)
    _focus(qtbot, w1, page1)
    _press(qtbot, page1, _key_for(page1))
    qtbot.waitUntil(lambda: "1 answer" in page2.row_text(sid), timeout=3000)
    assert _answers(url, sid) == 1
    # window 2 leaves: window 1's banner goes (the listener's BYE)
    w2.close()
    qtbot.waitUntil(lambda: not w1.sharing_banner.isVisible(), timeout=3000)
    w1.close()


def test_a_connection_ended_by_the_server_is_made_again_and_no_answer_is_lost(
        qtbot, url, postgres_cluster) -> None:
    w, page = _window(qtbot, url)
    sid = _new_session(page, "sort")
    gateway = page.gateway
    qtbot.waitUntil(lambda: gateway.watch.server.is_listening, timeout=5000)
    db = gateway.open_project.db
    # the administrator ends both of the window's server processes
    for pid in (db.conn.info.backend_pid, gateway.watch.server.listener.pid):
        postgres_cluster.admin(f"SELECT pg_terminate_backend({pid}, 5000)")
    qtbot.waitUntil(lambda: gateway.watch.server.is_listening
                    and "lost" not in w.sharing_banner.label.text(), timeout=10000)
    failures: list[str] = []
    gateway.write_failed.connect(failures.append)
    _press(qtbot, page, _key_for(page))  # the window's connection is made again first
    assert failures == [] and _answers(url, sid) == 1
    # and an answer elsewhere still reaches the window
    shown = page.compare.current
    assert _answer_elsewhere(url, sid) == (shown.left, shown.right)
    qtbot.waitUntil(lambda: page.compare.current != shown, timeout=3000)
    w.close()


@pytest.fixture(scope="module")
def own_cluster(postgres_cluster):
    from tests.postgres_cluster import Cluster

    cluster = Cluster(postgres_cluster.bin, postgres_cluster.root.parent, durable=True)
    yield cluster
    cluster.stop()


def test_a_stopped_server_refuses_the_answer_with_a_message_and_the_window_recovers(
        qtbot, tmp_path, own_cluster) -> None:
    url = own_cluster.new_database("down")
    copy_project(make_rate_project(tmp_path), url)
    w, page = _window(qtbot, url)
    sid = _new_session(page, "sort")
    gateway = page.gateway
    gateway.server_patience_s = 1.0
    qtbot.waitUntil(lambda: gateway.watch.server.is_listening, timeout=5000)
    key = _key_for(page)  # (it reads the images: before the server stops)
    named = gateway.watch.server.listener.conn.info.parameter_status("application_name")
    own_cluster.halt()
    # the window notices at once (the listener's socket) and says so
    qtbot.waitUntil(lambda: "is lost" in w.sharing_banner.label.text(), timeout=5000)
    assert w.sharing_banner.isVisible()
    failures: list[str] = []
    gateway.write_failed.connect(failures.append)
    _press(qtbot, page, key)
    qtbot.waitUntil(lambda: bool(failures), timeout=10000)
    assert "was not saved" in failures[0] and "could not be reached again" in failures[0]
    assert w.isVisible()
    own_cluster.start()
    qtbot.waitUntil(lambda: w.sharing_banner.label.text() == "", timeout=20000)
    # the new listener says the same "since" to the other windows (was: the reconnection's)
    assert gateway.watch.server.listener.conn.info.parameter_status("application_name") == named
    assert _answers(url, sid) == 0  # refused, so not saved
    _press(qtbot, page, _key_for(page))
    qtbot.waitUntil(lambda: _answers(url, sid) == 1, timeout=5000)
    assert len(failures) == 1
    w.close()


def test_an_edit_refused_while_the_server_is_away_is_reread_when_it_is_back(
        qtbot, tmp_path, own_cluster) -> None:
    """The annotation's history refuses the polygon (nothing kept, nothing saved, a message)
    and the views' re-read of the annotation waits for the server instead of failing."""
    url = own_cluster.new_database("edit")
    copy_project(make_rate_project(tmp_path), url)
    with Project.open(url) as setup:
        image = setup.images.all()[0].id
        annotation = setup.annotations.for_image(setup.raters.add("ann"), image).id
    w = MainWindow()
    qtbot.addWidget(w)
    assert w.open_project(url)
    gateway = w.gateway
    gateway.server_patience_s = 0.5
    qtbot.waitUntil(lambda: gateway.watch.server.is_listening, timeout=5000)
    failures: list[str] = []
    gateway.write_failed.connect(failures.append)
    changed: list[int] = []
    gateway.annotate.annotation_changed.connect(lambda _image, key: changed.append(key))
    own_cluster.halt()
    qtbot.waitUntil(lambda: "is lost" in w.sharing_banner.label.text(), timeout=5000)
    square = Polygon(np.array([[1.0, 1.0], [4.0, 1.0], [4.0, 4.0], [1.0, 4.0]]))
    assert not gateway.annotate.execute(
        annotation, AddPolygon(gateway.open_project, annotation, square))
    assert len(failures) == 1 and "Add polygon was not saved" in failures[0]
    assert not gateway.annotate.history(annotation).can_undo and changed == []
    assert len(gateway.rereads) == 1
    own_cluster.start()
    qtbot.waitUntil(lambda: changed == [annotation], timeout=20000)
    assert gateway.rereads == []
    with Project.open(url) as other:
        assert other.polygons.of(annotation) == []
    assert gateway.annotate.execute(
        annotation, AddPolygon(gateway.open_project, annotation, square))
    with Project.open(url) as other:
        assert len(other.polygons.of(annotation)) == 1
    w.close()


def test_a_burst_of_commits_elsewhere_is_read_at_most_twice_a_second(qtbot, url) -> None:
    """Another machine's import commits many times a second: the window re-reads at once,
    then at most every MIN_GAP_S, and ends up showing the last commit."""
    from slicereview.gui.gateway.server_watch import MIN_GAP_S

    w = MainWindow()
    qtbot.addWidget(w)
    assert w.open_project(url)
    gateway = w.gateway
    qtbot.waitUntil(lambda: gateway.watch.server.is_listening, timeout=5000)
    said: list[float] = []
    gateway.watch.server.changed.connect(lambda: said.append(time.monotonic()))
    rereads: list[float] = []
    gateway.changed_elsewhere.connect(lambda: rereads.append(time.monotonic()))
    first: list[float] = []

    def commit_often() -> None:  # the other machine (its own connection, its own thread)
        with Project.open(url) as other:
            for k in range(40):
                other.raters.add(f"r{k}")
                first.append(time.monotonic())
                time.sleep(0.025)

    other = threading.Thread(target=commit_often)
    other.start()
    qtbot.waitUntil(lambda: not other.is_alive(), timeout=20000)
    took = first[-1] - first[0]
    qtbot.waitUntil(lambda: bool(said) and time.monotonic() - said[-1] > 2 * MIN_GAP_S,
                    timeout=60000)
    # (measured after the views re-read, which takes longer some times than others; the
    # gap counts from the end of a re-read, so a slow machine only makes gaps longer. That
    # the first notice is said at once is test_a_slow_reread_is_not_followed_at_once_...)
    gaps = [round(b - a, 3) for a, b in zip(said, said[1:], strict=False)]
    assert all(gap >= MIN_GAP_S * 0.6 for gap in gaps), gaps
    assert len(said) <= took / MIN_GAP_S + 2  # not 40
    assert len(rereads) == len(said)  # each one was a change elsewhere
    with Project.open(url) as other:
        assert len(other.raters.all()) == 40
    w.close()


def test_a_slow_reread_is_not_followed_at_once_by_another(qtbot, monkeypatch) -> None:
    """The gap between two re-reads counts from the end of the first: a re-read that takes
    longer than MIN_GAP_S is followed by the next one MIN_GAP_S later, not at once (the
    time was stamped before the re-read, and a burst then re-read back to back). On a clock
    of the test's own, so that the machine's load decides nothing."""
    from slicereview.gui.gateway import server_watch
    from slicereview.gui.gateway.server_watch import MIN_GAP_S, ServerWatch

    now = [1000.0]
    monkeypatch.setattr(server_watch, "now", lambda: now[0])
    watch = ServerWatch()
    watch.project = object()  # (only "is a project open" is asked)
    rereads: list[float] = []

    def slow_reread() -> None:
        rereads.append(now[0])
        now[0] += MIN_GAP_S * 1.5  # the views take longer than the gap to re-read
        if len(rereads) == 1:  # a notice read while the views re-read (processing events)
            watch._say_changed()
            assert len(rereads) == 1

    watch.changed.connect(slow_reread)
    watch._say_changed()
    assert rereads == [1000.0]  # the first at once
    watch._say_changed()  # another commit, just after the slow re-read
    assert len(rereads) == 1  # not at once: at the end of the gap
    assert watch._due
    now[0] += MIN_GAP_S
    watch._say_changed()  # a notice read after the gap, before the gap's timer fired
    assert len(rereads) == 1  # the timer says it, once
    qtbot.waitUntil(lambda: len(rereads) == 2, timeout=60000)
    qtbot.wait(50)
    assert len(rereads) == 2
    watch.project = None


def test_an_answer_whose_commit_went_unanswered_is_settled_when_the_server_is_back(
        qtbot, url, postgres_cluster) -> None:
    """The answer's COMMIT reached the server but its answer did not, and the server then
    stays away: the window says the answer's fate is not known yet (it does not repeat it),
    and once the server is back says it was saved and moves on to the next pair."""
    from tests.store.test_server_live import CutAtCommit

    relay = CutAtCommit(postgres_cluster.socket)
    try:
        w, page = _window(qtbot, relay.url(url, postgres_cluster))
        sid = _new_session(page, "sort")
        gateway = page.gateway
        gateway.server_patience_s = 0.5
        qtbot.waitUntil(lambda: gateway.watch.server.is_listening, timeout=5000)
        failures: list[str] = []
        gateway.write_failed.connect(failures.append)
        shown = page.compare.current
        key = _key_for(page)
        relay.mode, relay.refuse = "after", True
        _press(qtbot, page, key)
        assert len(failures) == 1 and "checked when the connection is back" in failures[0]
        assert page.compare.current == shown  # kept on screen, not repeated
        assert _answers(url, sid) == 1  # (the server did commit it)
        relay.refuse = False
        qtbot.waitUntil(lambda: len(failures) == 2, timeout=20000)
        assert "saved after all" in failures[1]
        qtbot.waitUntil(lambda: page.compare.current != shown, timeout=5000)
        assert page.compare.current.answered == 1 and _answers(url, sid) == 1
        w.close()
    finally:
        relay.close()
