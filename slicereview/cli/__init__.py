"""The ``slicereview`` command line.

``slicereview [open] PROJECT`` opens the GUI; every other command is headless. This package
never imports Qt or :mod:`slicereview.gui` (import-linter checks it, with no exception):
``open`` and ``demo`` return a :class:`~slicereview.cli.project_cmds.GuiRequest` that
:func:`main` hands to the ``gui`` callable the entry point (:mod:`slicereview.launcher`)
passes in.

Each command module defines ``register(subparsers)`` which adds its sub-commands and sets
``func`` on them, importing heavy libraries only inside the handlers so that ``--help`` and
``info`` start fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from slicereview import __version__
from slicereview.cli import (
    export,
    packages,
    project_cmds,
    rating,
    report,
    review,
    stats,
    workflow,
)
from slicereview.cli.project_cmds import GuiRequest

#: Modules that register sub-commands, in ``--help`` order.
COMMAND_MODULES = (project_cmds, stats, rating, workflow, review, report, packages, export)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slicereview",
        description="Rate, annotate and review medical images in one project file.",
        epilog="Run `slicereview COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"slicereview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None,
         gui: Callable[[GuiRequest], int] | None = None) -> int:
    """Run one command; returns the exit code. ``gui`` shows a :class:`GuiRequest` (the
    entry point :func:`slicereview.launcher.main` passes the GUI's runner)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    if args_list and args_list[0] not in commands and not args_list[0].startswith("-"):
        args_list.insert(0, "open")  # `slicereview PROJECT` means `slicereview open PROJECT`
    if not args_list:
        args_list = ["open"]
    args = parser.parse_args(args_list)
    try:
        result = args.func(args)
        if isinstance(result, GuiRequest):
            if gui is None:
                raise RuntimeError("this entry point has no GUI: run `slicereview` instead")
            return int(gui(result) or 0)
        return int(result or 0)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except Exception as exc:  # every error reaches the user as one clear line
        from slicereview.cli._common import user_error

        return user_error(exc)
