"""The ``slicereview`` command line.

``slicereview [open] PROJECT`` opens the GUI; every other command is headless and never imports
Qt (an import-linter contract checks the modules here; the GUI is imported lazily inside the
``open`` and ``demo`` handlers).

Each command module defines ``register(subparsers)`` which adds its sub-commands and sets
``func`` on them; :data:`COMMAND_MODULES` lists those modules in ``--help`` order.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from slicereview import __version__

#: Modules (below ``slicereview.cli``) that register sub-commands.
COMMAND_MODULES = ("project_cmds", "stats", "rating", "export")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slicereview",
        description="Rate, annotate and review medical images in one project file.",
        epilog="Run `slicereview COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"slicereview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"slicereview.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"slicereview.cli.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``slicereview`` and ``python -m slicereview``. Returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    if args_list and args_list[0] not in commands and not args_list[0].startswith("-"):
        args_list.insert(0, "open")  # `slicereview PROJECT` means `slicereview open PROJECT`
    if not args_list:
        args_list = ["open"]
    args = parser.parse_args(args_list)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except Exception as exc:  # every error reaches the user as one clear line
        from slicereview.cli._common import user_error

        return user_error(exc)
