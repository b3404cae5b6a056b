"""The entry point of ``slicereview``, ``slicereview-cli`` and ``python -m slicereview``.

It sits above both front ends: every command runs in :mod:`slicereview.cli`, and ``open`` /
``demo`` hand their :class:`~slicereview.cli.project_cmds.GuiRequest` to the GUI, which is
imported only then (the headless commands never load Qt).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence

from slicereview.cli import main as cli_main
from slicereview.cli.project_cmds import GuiRequest


def run_gui(request: GuiRequest) -> int:
    """Show the main window for ``request`` (imports Qt)."""
    from slicereview.gui.application import run

    return run(request.project, screenshot=request.screenshot, size=request.size,
               tab=request.tab)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with the GUI available; returns the exit code.

    ``freeze_support()`` first: in a PyInstaller build the decoding child process
    (:mod:`slicereview.engines.imaging.isolated`) starts this same executable, which must then
    serve the child instead of running the command line (a no-op otherwise).
    """
    multiprocessing.freeze_support()
    return cli_main(argv, gui=run_gui)
