"""A too narrow Images dock saved by an earlier session (squeezed while the window was too wide
for the screen) is not restored: the dock comes back at its narrowest useful width."""

from __future__ import annotations

from PySide6.QtCore import Qt

from slicereview.gui.window.main_window import BROWSER_MIN_WIDTH, MainWindow


def test_a_squeezed_dock_is_not_restored(qtbot) -> None:
    first = MainWindow()
    qtbot.addWidget(first)
    first.resize(1300, 850)
    first.show()
    qtbot.waitExposed(first)
    first.browser_dock.show()
    first.resizeDocks([first.browser_dock], [40], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: first.browser_dock.width() < BROWSER_MIN_WIDTH)
    squeezed = first.browser_dock.width()
    first.close()                                   # the layout is saved

    second = MainWindow()
    qtbot.addWidget(second)
    second.restore_layout()                         # as the application does, before show
    second.show()
    qtbot.waitExposed(second)
    second.browser_dock.show()
    qtbot.waitUntil(lambda: second.browser_dock.width() >= BROWSER_MIN_WIDTH, timeout=2000)
    assert second.browser_dock.width() > squeezed
