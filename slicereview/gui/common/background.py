"""Short background tasks with results delivered to the GUI thread: one helper for every view.

Views that decode thumbnails, prefetch images or compute a report hand a plain function and its
plain-data arguments to :class:`Tasks`; it runs them on its own thread pool (one thread by
default: decoding is memory-bound and the decoding child serialises it anyway) and emits
:attr:`Tasks.done` ``(key, result)`` or :attr:`Tasks.failed` ``(key, message)`` in the GUI thread.
:meth:`Tasks.forget` drops everything queued and makes results of tasks still running stale: they
are never delivered (a newer request, or the project closed). Workers touch no widget and no
project connection of the GUI thread.

Long work with a progress bar and Cancel (import, the demo, feature computation) are
:class:`slicereview.gui.common.workers.Worker` objects, which report progress as they go.

Python's cyclic garbage collector runs in whichever thread happens to allocate when a
threshold is crossed. In a worker thread it can finalise Qt wrappers the GUI left behind (a
closed dialog's) and deadlock with the GUI thread: seen in CI, the report worker holding
Qt's signal mutex in ``~QObject`` while waiting for the GIL, the GUI thread holding the GIL
while waiting for that mutex. :func:`collect_garbage_in_gui_thread` (the main window calls it)
therefore turns automatic collection off and collects on a one-second timer in the GUI
thread, with pyqtgraph's ``GarbageCollector``.

Example
-------
>>> tasks = Tasks()                                  # doctest: +SKIP
>>> tasks.done.connect(lambda key, value: print(key, value))  # doctest: +SKIP
>>> tasks.submit("answer", sum, [1, 2, 3])            # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

_collector: object | None = None


def collect_garbage_in_gui_thread() -> None:
    """Collect cyclic garbage only in the GUI thread from now on (see the module's text);
    idempotent. Must be called in the GUI thread."""
    global _collector
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _collector = GarbageCollector(interval=1.0)


class _Relay(QObject):
    """Lives in the GUI thread; a worker's emit is queued to it (no Qt object is made, owned or
    deleted in a worker thread, so the garbage collector of the GUI thread never waits on one:
    Python ``QRunnable`` subclasses on a ``QThreadPool`` deadlocked that way)."""

    finished = Signal(int, object, object)  # generation, key, result
    failed = Signal(int, object, str)  # generation, key, message


class Tasks(QObject):
    """A queue of short background tasks whose results come back to the GUI thread."""

    #: A task finished: its key and the function's result.
    done = Signal(object, object)
    #: A task raised: its key and the exception's text.
    failed = Signal(object, str)

    def __init__(self, parent: QObject | None = None, threads: int = 1) -> None:
        super().__init__(parent)
        self._generation = 0
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="slicereview")
        self._futures: list[Future[None]] = []
        self._relay = _Relay(self)
        self._relay.finished.connect(self._on_finished)
        self._relay.failed.connect(self._on_failed)
        self.destroyed.connect(self._pool.shutdown)

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` in the background; :attr:`done` or :attr:`failed` says how."""
        self._futures = [f for f in self._futures if not f.done()]
        self._futures.append(self._pool.submit(self._run, self._generation, key, fn, args))

    def _run(self, generation: int, key: Hashable, fn: Callable[..., Any],
             args: tuple[Any, ...]) -> None:  # worker thread: plain values in and out
        try:
            result = fn(*args)
        except Exception as exc:  # reported to the view, which says why in its own words
            self._relay.failed.emit(generation, key, str(exc))
            return
        self._relay.finished.emit(generation, key, result)

    def forget(self) -> None:
        """Drop queued tasks; a running one finishes, but its result is not delivered."""
        self._generation += 1
        for future in self._futures:
            future.cancel()
        self._futures = [f for f in self._futures if not f.done()]

    def wait(self, msecs: int = 30000) -> bool:
        """Block until every task ran and its result was delivered (tests, screenshots)."""
        _, running = wait(self._futures, timeout=msecs / 1000.0)
        QCoreApplication.processEvents()
        return not running

    def _on_finished(self, generation: int, key: Hashable, result: object) -> None:
        if generation == self._generation:
            self.done.emit(key, result)

    def _on_failed(self, generation: int, key: Hashable, message: str) -> None:
        if generation == self._generation:
            self.failed.emit(key, message)
