"""Work off the GUI thread: one module, two entry points, and the rule they keep.

* :func:`thread_worker` runs ``work(control, *args)`` in a thread of this process: for I/O, for
  work that already fans out to processes (imports decode in the decoding child, review
  features in a process pool) and for work that needs the project's cached state;
* :func:`process_worker` runs it in a ``spawn`` child process: for long pure-Python computation
  that would otherwise hold the GIL and stall the window (the demo build, the owner's report
  and its HTML).

Both return a :class:`Worker` (created in and owned by the GUI thread) whose signals say how it
went: :attr:`~Worker.progress` ``(done, total, what)``, then exactly one of
:attr:`~Worker.finished` ``(result)``, :attr:`~Worker.failed` ``(message)`` or
:attr:`~Worker.cancelled`. ``work`` receives a Qt-free :class:`~slicereview.gui.common.work.Control`
(report progress, ask whether Cancel was pressed; a generator ``work`` yields its steps, see
:mod:`slicereview.gui.common.work`). :meth:`Worker.cancel` really cancels: a thread worker at its
next step or check, a process worker too, and a child that does not stop within
:data:`GRACE_S` is terminated.

:class:`Tasks` is a keyed queue of short thread work whose results matter only while still
wanted (thumbnails, prefetching); :meth:`Tasks.submit` costs O(1) however many are queued.

The rule these keep, and why, is written once: docs/design.md, "Threading". Worker threads
hold plain data only; everything they report goes through one relay object that lives in the
GUI thread. :func:`install` (called by the application object) makes the GUI thread the only
one that collects cyclic garbage.

Example
-------
>>> def count(control, n):                                     # doctest: +SKIP
...     for i in range(n):
...         yield i, n, "counting"
...     return n
>>> worker = thread_worker(count, 10)                      # doctest: +SKIP
>>> worker.finished.connect(print)                         # doctest: +SKIP
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from multiprocessing.connection import wait as wait_for_ready
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal
from shiboken6 import isValid

from slicereview.gui.common.work import Cancelled, Control, Step, message, outcome, run
from slicereview.gui.common.work import child as run_child

__all__ = ["GRACE_S", "Cancelled", "Control", "Step", "Tasks", "Worker", "install",
           "process_worker", "run", "running", "shutdown", "thread_worker", "wait_all"]

#: How long a process worker may take to stop after Cancel before it is terminated.
GRACE_S = 1.0


class _Relay(QObject):
    """The one object worker threads emit on; it lives in the GUI thread for the whole run."""

    worker_event = Signal(int, str, object)  # worker id, kind, payload
    task_event = Signal(int, int, object, bool, object)  # tasks id, generation, key, ok, value

    def __init__(self) -> None:
        super().__init__()
        self.worker_event.connect(self._on_worker_event)
        self.task_event.connect(self._on_task_event)

    # A result for an object whose window has closed (its C++ half deleted while Python
    # still holds the wrapper) is dropped quietly: there is nobody left to tell.
    def _on_worker_event(self, worker_id: int, kind: str, payload: object) -> None:
        worker = _live.get(worker_id)
        if worker is None:
            return
        if not isValid(worker):
            _live.pop(worker_id, None)
            return
        worker._deliver(kind, payload)

    def _on_task_event(self, tasks_id: int, generation: int, key: object, ok: bool,
                       value: object) -> None:
        tasks = _queues.get(tasks_id)
        if tasks is not None and isValid(tasks):
            tasks._deliver(generation, key, ok, value)


_relay_object: _Relay | None = None
_ids = itertools.count(1)
#: Workers started and not yet ended (ended: their last signal was delivered).
_live: dict[int, Worker] = {}
_queues: weakref.WeakValueDictionary[int, Tasks] = weakref.WeakValueDictionary()
_collector: object | None = None


def _gui_thread() -> bool:
    app = QCoreApplication.instance()
    return app is not None and QThread.currentThread() is app.thread()


def _relay() -> _Relay:
    global _relay_object
    if _relay_object is None:
        if not _gui_thread():
            raise RuntimeError("background work is started from the GUI thread only")
        _relay_object = _Relay()
    return _relay_object


def install(app: QCoreApplication) -> None:
    """Make the GUI thread the only one that collects cyclic garbage (docs/design.md,
    "Threading"), and end every worker when the application quits. Called once by the
    application object (``slicereview.gui.application.application``); idempotent."""
    global _collector
    _relay()
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        # Turns automatic collection off and collects every second in this (the GUI) thread.
        _collector = GarbageCollector(interval=1.0)
        app.aboutToQuit.connect(shutdown)


def shutdown() -> None:
    """Cancel every running worker (the application quits)."""
    for worker in list(_live.values()):
        worker.cancel()
    for worker in list(_live.values()):
        worker.wait(int(GRACE_S * 1000) + 1000)


def running() -> int:
    """How many workers have not ended yet."""
    return len(_live)


def wait_all(timeout_s: float) -> bool:
    """Process events until every worker has ended (its last signal delivered) or
    ``timeout_s`` passed; whether all ended (screenshots, tests)."""
    deadline = time.monotonic() + timeout_s
    while _live and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.01)
    QCoreApplication.processEvents()
    return not _live


class Worker(QObject):
    """A running :func:`thread_worker` or :func:`process_worker` (see the module text)."""

    #: ``(done, total, what)`` from the work; ``total`` 0 when unknown.
    progress = Signal(int, int, str)
    #: The work's result.
    finished = Signal(object)
    #: The work raised: its message.
    failed = Signal(str)
    #: The work stopped after :meth:`cancel` without a result.
    cancelled = Signal()

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.id = next(_ids)
        self.ended = False
        self._cancel = threading.Event()
        self._join: Callable[[float | None], bool] = lambda _timeout: True
        self._stop: Callable[[], None] = lambda: None

    def cancel(self) -> None:
        """Ask the work to stop (see the module text); the end is still signalled."""
        self._cancel.set()
        self._stop()

    def is_running(self) -> bool:
        return not self.ended

    def wait(self, msecs: int = 30000) -> bool:
        """Block until the work's thread or process has ended (its last signal may still be
        queued); whether it did within ``msecs``."""
        return self._join(msecs / 1000.0)

    def _deliver(self, kind: str, payload: Any) -> None:  # GUI thread, through the relay
        if self.ended:
            return
        if kind == "progress":
            self.progress.emit(*payload)
            return
        self.ended = True
        _live.pop(self.id, None)
        if kind == "finished":
            self.finished.emit(payload)
        elif kind == "cancelled":
            self.cancelled.emit()
        else:
            self.failed.emit(str(payload))


def _sender(worker_id: int) -> Callable[[str, object], None]:
    relay = _relay()

    def send(kind: str, payload: object) -> None:
        relay.worker_event.emit(worker_id, kind, payload)

    return send


def thread_worker(work: Callable[..., Any], *args: Any, name: str | None = None) -> Worker:
    """Start ``work(control, *args)`` in a new thread (see the module text). Call it in the GUI
    thread; ``args`` are plain data (no Qt object, no project connection of the GUI)."""
    worker = Worker(name or _name(work))
    send = _sender(worker.id)
    control = Control(send, worker._cancel.is_set)

    def body() -> None:
        kind, payload = outcome(work, control, args)
        send(kind, payload)

    thread = threading.Thread(target=body, daemon=True, name=f"slicereview-{worker.name}")
    worker._join = _joiner(thread)
    _live[worker.id] = worker
    thread.start()
    return worker


def _name(work: Callable[..., Any]) -> str:
    return str(getattr(work, "__name__", "work"))


def _joiner(thread: threading.Thread) -> Callable[[float | None], bool]:
    def join(timeout: float | None) -> bool:
        thread.join(timeout)
        return not thread.is_alive()

    return join


def process_worker(work: Callable[..., Any], *args: Any, name: str | None = None) -> Worker:
    """Start ``work(control, *args)`` in a ``spawn`` child process (see the module text).
    ``work`` is a module-level function; ``args`` and the result must pickle."""
    worker = Worker(name or _name(work))
    send = _sender(worker.id)
    ctx = multiprocessing.get_context("spawn")
    receive, transmit = ctx.Pipe(duplex=False)
    cancel = ctx.Event()
    child = ctx.Process(target=run_child, args=(transmit, cancel, work, args),
                        name=f"slicereview-{worker.name}")
    child.start()
    transmit.close()  # the child holds its end: end of file once it exits
    worker._stop = cancel.set
    asked = worker._cancel  # (the thread below holds plain objects only, never the worker)

    def pump() -> None:  # a plain thread: forwards the child's messages to the relay
        deadline: float | None = None
        try:
            while True:
                if asked.is_set():
                    deadline = deadline or time.monotonic() + GRACE_S
                    if time.monotonic() > deadline and child.is_alive():
                        child.terminate()  # did not stop in time: really stop it
                ready = wait_for_ready([receive, child.sentinel], timeout=0.05)
                if receive in ready:
                    try:
                        kind, payload = receive.recv()
                    except EOFError:
                        kind, payload = _ended(child, asked.is_set())
                    send(kind, payload)
                    if kind != "progress":
                        return
                elif ready:  # the child exited without a word (terminated, or it crashed)
                    send(*_ended(child, asked.is_set()))
                    return
        finally:
            receive.close()
            child.join()

    thread = threading.Thread(target=pump, daemon=True, name=f"slicereview-{worker.name}")
    worker._join = _joiner(thread)
    _live[worker.id] = worker
    thread.start()
    return worker


def _ended(child: Any, cancelled: bool) -> tuple[str, object]:
    child.join(5)
    if cancelled:
        return "cancelled", None
    return "failed", f"the worker process ended unexpectedly (exit code {child.exitcode})"


class Tasks(QObject):
    """A queue of short keyed tasks on one thread pool, results back in the GUI thread.

    :attr:`done` ``(key, result)`` or :attr:`failed` ``(key, message)`` follow each
    :meth:`submit`, unless :meth:`forget` was called since (a newer request, the project
    closed): then queued tasks are dropped and a running one's result is never delivered.
    """

    #: A task finished: its key and the function's result.
    done = Signal(object, object)
    #: A task raised: its key and the exception's text.
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None, threads: int = 1) -> None:
        super().__init__(parent)
        self._id = next(_ids)
        _queues[self._id] = self
        self._relay = _relay()
        self._generation = 0
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="slicereview")
        self._pending = _Pending()
        pool = self._pool
        self.destroyed.connect(lambda: pool.shutdown(wait=False, cancel_futures=True))

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` in the background (O(1): nothing earlier is looked at)."""
        future = self._pool.submit(_task, self._relay, self._id, self._generation, key, fn,
                                   args)
        self._pending.add(future)

    def pending(self) -> int:
        """Tasks queued or running."""
        return len(self._pending.snapshot())

    def forget(self) -> None:
        """Drop queued tasks; a running one finishes, but its result is not delivered."""
        self._generation += 1
        for future in self._pending.snapshot():
            future.cancel()  # (its done callback removes it)

    def wait(self, msecs: int = 30000) -> bool:
        """Block until every task ran and its result was delivered (tests, screenshots)."""
        _, running_ = wait(self._pending.snapshot(), timeout=msecs / 1000.0)
        QCoreApplication.processEvents()
        return not running_

    def _deliver(self, generation: int, key: Hashable, ok: bool, value: object) -> None:
        if generation != self._generation:
            return
        if ok:
            self.done.emit(key, value)
        else:
            self.failed.emit(key, str(value))


class _Pending:
    """The futures of a :class:`Tasks` not done yet; a future removes itself when done (in
    whichever thread), so adding one is O(1). Plain Python: pool threads may hold it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._futures: set[Future[None]] = set()

    def add(self, future: Future[None]) -> None:
        with self._lock:
            self._futures.add(future)
        future.add_done_callback(self._discard)  # (at once if it is already done)

    def _discard(self, future: Future[None]) -> None:
        with self._lock:
            self._futures.discard(future)

    def snapshot(self) -> list[Future[None]]:
        with self._lock:
            return list(self._futures)


def _task(relay: _Relay, tasks_id: int, generation: int, key: Hashable,
          fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Pool thread: plain values in, one event out through the relay."""
    try:
        result = fn(*args)
    except Exception as exc:  # reported to the view, which says why in its own words
        relay.task_event.emit(tasks_id, generation, key, False, message(exc))
        return
    relay.task_event.emit(tasks_id, generation, key, True, result)
