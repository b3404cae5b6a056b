"""The entry point of ``slicereview``, ``slicereview-cli`` and ``python -m slicereview``.

It sits above both front ends: every command runs in :mod:`slicereview.cli`, and ``open`` /
``demo`` hand their :class:`~slicereview.cli.project_cmds.GuiRequest` to the GUI, which is
imported only then (the headless commands never load Qt).
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.cli import main as cli_main
from slicereview.cli.project_cmds import GuiRequest


def run_gui(request: GuiRequest) -> int:
    """Show the main window for ``request`` (imports Qt)."""
    from slicereview.gui.app import run

    return run(request.project, screenshot=request.screenshot, size=request.size)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with the GUI available; returns the exit code."""
    return cli_main(argv, gui=run_gui)
