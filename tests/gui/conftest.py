"""Fixtures shared by the GUI tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from slicereview.gui.window.main_window import MainWindow


@pytest.fixture(scope="session")
def qapp(qapp_args, qapp_cls, pytestconfig):
    """pytest-qt's application is the program's own (stylesheet, icon, and the GUI thread as
    the only collector of garbage: ``slicereview.gui.application.application``)."""
    from slicereview.gui.application import application

    return application()


@pytest.fixture
def open_window(qtbot) -> Callable[..., MainWindow]:
    """``open_window(project=None, size=(1300, 850), exposed=True)``: a shown main window
    (closed by qtbot at the end of the test), on ``project`` when given. ``size=None`` keeps
    the default size; ``exposed=False`` does not wait for the window to be exposed."""

    def make(project: Path | None = None, size: tuple[int, int] | None = (1300, 850), *,
             exposed: bool = True) -> MainWindow:
        w = MainWindow()
        qtbot.addWidget(w)
        if size is not None:
            w.resize(*size)
        w.show()
        if exposed:
            qtbot.waitExposed(w)
        if project is not None:
            assert w.open_project(project)
        return w

    return make
