"""Cyclic garbage is collected only in the GUI thread once a main window exists.

A collection that happens to start in a worker thread can finalise Qt wrappers the GUI left
behind and deadlock with the GUI thread (a CI run hung that way in the Overview's report
worker); gui/common/background.py turns automatic collection off and collects on a timer in the GUI
thread instead.
"""

from __future__ import annotations

import gc
import threading
import weakref

from slicereview.gui.window.main_window import MainWindow


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_garbage_is_collected_in_the_gui_thread_only(qtbot) -> None:
    w = MainWindow()
    qtbot.addWidget(w)
    assert not gc.isenabled()  # a worker's allocations never start a collection
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
    assert set(freed_in) == {threading.main_thread().name}
