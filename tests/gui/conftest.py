"""Fixtures shared by the GUI tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from slicereview.gui.common.active_time import IdleClock
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
    from slicereview.gui.window.main_window import MainWindow

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


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """The folder for the screenshots a test takes: ``tmp_path/screenshots``, or the folder
    ``SLICEREVIEW_TEST_SHOTS`` names, to keep them and look at them (a few tests then take
    more of them)."""
    keep = os.environ.get("SLICEREVIEW_TEST_SHOTS")
    folder = Path(keep) if keep else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def skip_ahead() -> Callable[[IdleClock, int], None]:
    """``skip_ahead(clock, ms)``: from now on ``clock`` (an active-time
    :class:`~slicereview.gui.common.active_time.IdleClock`) reads ``ms`` later than the real
    time, as if that long had passed without input: a test of what the clock does after a
    pause makes the pause this way instead of waiting for it."""

    def skip(clock: IdleClock, ms: int) -> None:
        now = clock._now
        clock._now = lambda: now() + ms

    return skip
