"""The one background API (slicereview.gui.common.background): thread and process workers
with progress, a Cancel that really cancels, results and errors in the GUI thread, a keyed
task queue whose submit is O(1), and the garbage-collection rule of the application object."""

from __future__ import annotations

import gc
import os
import sys
import threading
import weakref
from pathlib import Path

import pytest

from slicereview.gui.common import background
from slicereview.gui.common.background import Tasks, process_worker, thread_worker
from tests.gui.common import background_work as work


class Seen:
    """Collects a worker's signals and the thread each arrived in."""

    def __init__(self, worker) -> None:
        self.steps: list[tuple[int, int, str]] = []
        self.end: tuple[str, object] | None = None
        self.threads: set[str] = set()
        worker.progress.connect(self._step)
        worker.finished.connect(lambda result: self._end("finished", result))
        worker.failed.connect(lambda message: self._end("failed", message))
        worker.cancelled.connect(lambda: self._end("cancelled", None))

    def _step(self, done: int, total: int, what: str) -> None:
        self.threads.add(threading.current_thread().name)
        self.steps.append((done, total, what))

    def _end(self, kind: str, value: object) -> None:
        assert self.end is None, "a worker ends once"
        self.threads.add(threading.current_thread().name)
        self.end = (kind, value)


GUI = threading.main_thread().name
# A spawned child imports its work function (tests.gui.common.background_work).
pytestmark = pytest.mark.usefixtures("spawned_children_import_tests")


def test_thread_worker_reports_steps_and_its_result_in_the_gui_thread(qtbot, tmp_path) -> None:
    marker = tmp_path / "closed"
    worker = thread_worker(work.count, 5, marker)
    seen = Seen(worker)
    qtbot.waitUntil(lambda: seen.end is not None, timeout=10000)
    assert seen.end == ("finished", 5)
    assert seen.steps == [(i, 5, f"step {i}") for i in range(5)]
    assert seen.threads == {GUI}
    assert marker.read_text() != GUI  # the work itself ran in the worker's thread
    assert not worker.is_running() and background.running() == 0


def test_thread_worker_cancel_closes_the_generator(qtbot, tmp_path) -> None:
    marker = tmp_path / "closed"
    worker = thread_worker(work.forever, marker)
    seen = Seen(worker)
    qtbot.waitUntil(lambda: len(seen.steps) >= 3, timeout=10000)
    worker.cancel()
    qtbot.waitUntil(lambda: seen.end is not None, timeout=10000)
    assert seen.end == ("cancelled", None)
    assert marker.read_text() == "closed"  # its finally block ran: files and connections close
    assert worker.wait(1000)


def test_thread_worker_failure_is_a_message(qtbot) -> None:
    seen = Seen(thread_worker(work.fail, "no such study"))
    qtbot.waitUntil(lambda: seen.end is not None, timeout=10000)
    assert seen.end == ("failed", "no such study")
    assert seen.threads == {GUI}


def test_process_worker_runs_in_a_child_and_reports_in_the_gui_thread(qtbot, tmp_path) -> None:
    worker = process_worker(work.count, 3)
    seen = Seen(worker)
    qtbot.waitUntil(lambda: seen.end is not None, timeout=60000)
    assert seen.end == ("finished", 3)
    assert [s[0] for s in seen.steps] == [0, 1, 2]
    assert seen.threads == {GUI}
    other = Seen(process_worker(work.pid))
    qtbot.waitUntil(lambda: other.end is not None, timeout=60000)
    assert other.end[0] == "finished" and other.end[1] != os.getpid()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead too (reaped by the worker's join).
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "zombie" not in status.read_text()


@pytest.mark.skipif(sys.platform == "win32", reason="reads /proc")
def test_process_worker_cancel_stops_a_checking_child(qtbot, tmp_path) -> None:
    pid_file = tmp_path / "pid"
    worker = process_worker(work.checked, pid_file)
    seen = Seen(worker)
    qtbot.waitUntil(lambda: bool(seen.steps), timeout=60000)
    worker.cancel()
    qtbot.waitUntil(lambda: seen.end is not None, timeout=10000)
    assert seen.end == ("cancelled", None)
    assert worker.wait(5000)
    assert not _alive(int(pid_file.read_text()))


@pytest.mark.skipif(sys.platform == "win32", reason="reads /proc")
def test_process_worker_cancel_terminates_a_child_that_does_not_check(qtbot, tmp_path) -> None:
    pid_file = tmp_path / "pid"
    worker = process_worker(work.stubborn, pid_file)
    seen = Seen(worker)
    qtbot.waitUntil(pid_file.exists, timeout=60000)
    worker.cancel()  # (the child never stops by itself: that it ends is the termination)
    qtbot.waitUntil(lambda: seen.end is not None, timeout=10000)
    assert seen.end == ("cancelled", None)
    assert worker.wait(5000)
    assert not _alive(int(pid_file.read_text()))


def test_process_worker_failure_is_a_message(qtbot) -> None:
    seen = Seen(process_worker(work.fail, "the file is damaged"))
    qtbot.waitUntil(lambda: seen.end is not None, timeout=60000)
    assert seen.end == ("failed", "the file is damaged")


def test_tasks_deliver_results_unless_forgotten(qtbot) -> None:
    tasks = Tasks()
    got: list[tuple[object, object]] = []
    tasks.done.connect(lambda key, value: got.append((key, value)))
    tasks.failed.connect(lambda key, message: got.append((key, message)))
    gate = threading.Event()
    tasks.submit("held", gate.wait, 10)
    tasks.submit("dropped", sum, [1, 2])
    tasks.forget()  # the queued one goes; the running one's result is never delivered
    tasks.submit("kept", sum, [1, 2, 3])
    tasks.submit("bad", int, "x")
    gate.set()
    assert tasks.wait(10000)
    assert got == [("kept", 6), ("bad", "invalid literal for int() with base 10: 'x'")]
    assert tasks.pending() == 0


def _calls_to_submit(n: int) -> int:
    """Python and C function calls made by ``n`` submits while nothing can finish."""
    tasks = Tasks()
    gate = threading.Event()
    tasks.submit("gate", gate.wait, 60)
    calls = 0
    me = threading.current_thread()

    def profile(frame, event, arg) -> None:
        nonlocal calls
        if event in ("call", "c_call") and threading.current_thread() is me:
            calls += 1

    sys.setprofile(profile)
    try:
        for i in range(n):
            tasks.submit(i, int, i)
    finally:
        sys.setprofile(None)
    tasks.forget()
    gate.set()
    assert tasks.wait(60000)
    return calls


def test_submit_is_constant_time(qtbot) -> None:
    """A 20,000-image list submits a thumbnail task per image: the calls grow linearly (a
    submit that looked at every earlier task made ~200 million calls here)."""
    small, large = _calls_to_submit(2_000), _calls_to_submit(20_000)
    assert large <= 10.5 * small, (small, large)
    assert large / 20_000 < 60  # a few dozen calls per submit


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_the_application_object_collects_garbage_in_the_gui_thread_only(qtbot) -> None:
    """The application object (``gui.application.application``, the tests' ``qapp``) calls
    :func:`background.install`: a worker's allocations never start a collection, the GUI
    thread collects on a timer (docs/design.md, "Threading")."""
    from slicereview.gui.application import application

    application()
    assert not gc.isenabled()
    freed_in: list[str] = []
    cycles = []
    for _ in range(2000):  # well over the first generation's threshold
        node = _Node()
        weakref.finalize(node, lambda: freed_in.append(threading.current_thread().name))
        cycles.append(node)
    del node, cycles

    def allocate_in_a_worker() -> None:
        for _ in range(5000):
            _Node()  # would cross the threshold here if collection were automatic

    worker = threading.Thread(target=allocate_in_a_worker, name="worker")
    worker.start()
    worker.join()
    assert not freed_in
    qtbot.waitUntil(lambda: len(freed_in) >= 2000, timeout=5000)  # the one-second timer
    assert set(freed_in) == {GUI}


def test_a_result_for_a_closed_window_is_dropped_quietly(qtbot) -> None:
    """A thumbnail or a worker's result that arrives after its window closed (the C++ half of
    its Tasks or Worker deleted, the Python wrapper still held somewhere) is dropped: no
    "Signal source has been deleted" in the event loop (seen after a screenshot test)."""
    import shiboken6
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QWidget

    window = QWidget()
    tasks = Tasks(window)
    got: list[object] = []
    tasks.done.connect(lambda key, value: got.append(key))
    gate = threading.Event()
    tasks.submit("late", gate.wait, 10)
    worker = thread_worker(work.wait_for, gate)
    owner = QObject()
    worker.setParent(owner)
    shiboken6.delete(window)  # the window closes, its Tasks with it
    shiboken6.delete(owner)
    assert not shiboken6.isValid(tasks) and not shiboken6.isValid(worker)
    gate.set()
    qtbot.waitUntil(lambda: background.running() == 0, timeout=10000)
    qtbot.wait(100)  # (any late event would be delivered now, and raise in the event loop)
    assert got == []
