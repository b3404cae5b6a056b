"""Helpers shared by the command modules: error reporting and a terminal progress bar."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from slicereview.store import Project, ProjectError
from slicereview.store.location import Location, as_location, is_server

#: ``help`` of every PROJECT argument.
PROJECT_HELP = ("project file (.srproj) or server project URL "
                "(postgresql://USER@HOST[:PORT]/DATABASE, or ...?host=/socket/folder)")

#: Errors whose message is meant for the user as it is (no traceback).
_USER_ERRORS: tuple[type[BaseException], ...] = (
    ProjectError, OSError, ValueError, KeyError,
)


def add_project_argument(parser: argparse.ArgumentParser, **kwargs: object) -> None:
    """The positional PROJECT argument: a path or a ``postgresql://`` URL (kept as text)."""
    parser.add_argument("project", type=as_location, help=PROJECT_HELP, **kwargs)  # type: ignore[arg-type]


def open_project(location: Location, *, read_only: bool = False) -> Project:
    """Open the project a command was given (a missing file is reported as such)."""
    if not is_server(location) and not Path(location).is_file():
        raise FileNotFoundError(f"no project file {location}")
    return Project.open(location, read_only=read_only)


def _message(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        # "[Errno 21] Is a directory: 'd'" reads as a crash; say it as a sentence
        what = {IsADirectoryError: "is a folder, not a file",
                NotADirectoryError: "is not a folder"}.get(type(exc), exc.strerror.lower())
        return f"{exc.filename}: {what}"
    return str(exc)


def user_error(exc: BaseException) -> int:
    """Print ``exc`` as one line (a traceback too when ``SLICEREVIEW_DEBUG`` is set); return 2."""
    if os.environ.get("SLICEREVIEW_DEBUG") or not isinstance(exc, _USER_ERRORS):
        import traceback

        traceback.print_exception(exc)
    print(f"slicereview: error: {_message(exc)}", file=sys.stderr)
    return 2


class ProgressBar:
    """A one-line terminal progress bar on stderr: ``[#####.....] 12/40 file.dcm``; a step of
    unknown length (``total`` 0) is shown as ``Label: what`` without a bar.

    Redraws at most 10 times a second; prints plain lines when stderr is not a terminal (every
    tenth of the way, and each step of unknown length).
    """

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self._last = 0.0
        self._tty = self.stream.isatty()
        #: A bar is on the terminal's current line (a message printed now starts a new one).
        self.drawing = False

    def __call__(self, done: int, total: int, what: str = "") -> None:
        if total <= 0:  # a step of unknown length ("listing the studies"): no bar, no count
            line = f"{self.label}: {what}"[:120]
            if self._tty:
                self.stream.write("\r" + line.ljust(120))
                self.drawing = True
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
            return
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        line = f"{self.label} [{bar}] {done}/{total} {what}"[:120]
        if self._tty:
            self.stream.write("\r" + line.ljust(120))
            self.drawing = done < total
            if done >= total:
                self.stream.write("\n")
        elif done >= total or done % max(1, total // 10) == 0:
            self.stream.write(line + "\n")
        self.stream.flush()
