"""The active-time clock's own example holds whatever the test run did before it."""

from __future__ import annotations

import doctest

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from slicereview.gui.common import active_time


def test_the_clock_example_holds_with_an_inactive_application(qtbot) -> None:
    """The doctest of IdleClock passed alone and failed after the GUI tests: with an
    application whose windows have no focus, the clock followed it and stood still."""
    assert QGuiApplication.instance() is not None
    QGuiApplication.instance().applicationStateChanged.emit(
        Qt.ApplicationState.ApplicationInactive)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(active_time.IdleClock, "IdleClock",
                                             globs={"IdleClock": active_time.IdleClock}):
        runner.run(test)
    assert runner.tries > 0
    assert runner.failures == 0
