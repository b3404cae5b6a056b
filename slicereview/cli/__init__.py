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
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from slicereview import __version__
from slicereview.cli import (
    audit,
    export,
    model,
    models,
    packages,
    people,
    privacy,
    project_cmds,
    questions,
    rate,
    rating,
    report,
    review,
    review_decide,
    stats,
    workflow,
)
from slicereview.cli.project_cmds import GuiRequest

#: Modules that register sub-commands, in ``--help`` order.
COMMAND_MODULES = (project_cmds, stats, rate, rating, workflow, people, questions, review,
                   review_decide, audit, report, packages, privacy, export, model, models)

#: Exit code when the reader of stdout went away (``slicereview info P | head -1``): 128 + SIGPIPE,
#: what a shell reports for a command killed by a broken pipe.
EXIT_BROKEN_PIPE = 141


def _stdout_closed() -> int:
    """The reader of stdout closed the pipe: say nothing, and make the interpreter's final
    flush of stdout write to ``os.devnull`` instead of printing a second BrokenPipeError
    (the recipe of the Python docs, ``signal`` module, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (tests, embedding)
        pass
    return EXIT_BROKEN_PIPE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slicereview",
        description="Rate, annotate and review medical images, in a project file or, for "
                    "a team, on a PostgreSQL server.",
        epilog="Run `slicereview COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"slicereview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def _parse(parser: argparse.ArgumentParser, args: list[str]) -> argparse.Namespace:
    """``parse_args``; its ``--help``/``--version`` output is flushed before it exits, so that
    a closed pipe raises here rather than at interpreter exit."""
    try:
        return parser.parse_args(args)
    except SystemExit:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _stdout_closed()
        raise


def _run(args: argparse.Namespace) -> Any:
    """Run the command; when a server asks for a password that is nowhere to be found and
    the command runs in a terminal, ask for it (not echoed, as ``psql`` does), and run the
    command again with it in ``PGPASSWORD`` (for this process only: nothing is stored).
    Nothing was written before the refused connection."""
    from slicereview.store.errors import AuthenticationError

    try:
        return args.func(args)
    except AuthenticationError as exc:
        if not (exc.needs_password and "PGPASSWORD" not in os.environ
                and sys.stdin is not None and sys.stdin.isatty()):
            raise
        from getpass import getpass

        os.environ["PGPASSWORD"] = getpass(f"Password for {exc.where or 'the server'}: ")
    return args.func(args)


def main(argv: Sequence[str] | None = None,
         gui: Callable[[GuiRequest], int] | None = None) -> int:
    """Run one command; returns the exit code. ``gui`` shows a :class:`GuiRequest` (the
    entry point :func:`slicereview.launcher.main` passes the GUI's runner)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    commands = {name for action in parser._actions
                if isinstance(action, argparse._SubParsersAction) for name in action.choices}
    if args_list and args_list[0] not in commands and not args_list[0].startswith("-"):
        args_list.insert(0, "open")  # `slicereview PROJECT` means `slicereview open PROJECT`
    if not args_list:
        args_list = ["open"]
    try:
        args = _parse(parser, args_list)
        result = _run(args)
        if isinstance(result, GuiRequest):
            if gui is None:
                raise RuntimeError("this entry point has no GUI: run `slicereview` instead")
            return int(gui(result) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return int(result or 0)
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except Exception as exc:  # every error reaches the user as one clear line
        from slicereview.cli._common import user_error

        return user_error(exc)
