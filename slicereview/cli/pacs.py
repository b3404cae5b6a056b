"""``slicereview import PROJECT --dicomweb URL [--study UID]... [--series UID]...
[--modality CODE] [--date YYYYMMDD[-YYYYMMDD]] [--max-studies N]`` (and the credentials prompt
the DICOM export's ``--stow`` shares). Ctrl+C stops it with one sentence and exit code 130;
the import is all or nothing, so the project is as it was."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from slicereview.cli._common import ProgressBar
from slicereview.store import Project

T = TypeVar("T")


def prompt(server: str, user: str) -> Any:
    """Ask for credentials on the terminal (``None`` without one): a user name and password,
    or an empty user name and a bearer token."""
    from getpass import getpass

    from slicereview.engines.dicomweb.http import Auth

    if not sys.stdin.isatty():
        return None
    print(f"The PACS at {server} asks for credentials (they are not stored).", file=sys.stderr)
    name = input(f"User name [{user}] (empty for a token): " if user else
                 "User name (empty for a token): ").strip() or user
    if not name:
        token = getpass("Bearer token: ")
        return Auth.bearer(token) if token else None
    return Auth.basic(name, getpass(f"Password for {name}: "))


def with_credentials(url: str, call: Callable[[Any], T]) -> T:
    """``call(auth)`` with the credentials of the environment; after a refusal, once more with
    what the user types at the prompt."""
    from slicereview.app.images.pacs import Credentials
    from slicereview.engines.dicomweb.errors import AuthenticationError

    credentials = Credentials(prompt=prompt)
    try:
        return call(credentials.get(url))
    except AuthenticationError:
        auth = credentials.ask(url)
        if auth is None:
            raise
        return call(auth)


def import_dicomweb(args: argparse.Namespace, limit_changes: dict) -> int:
    from slicereview.app.images.limits import set_project_limits
    from slicereview.app.images.pacs_import import import_dicomweb as run

    if args.paths:
        raise ValueError("import files or --dicomweb images, not both in one command")
    if args.create:
        with contextlib.suppress(FileExistsError):  # there already: import into it
            Project.create(args.project).close()
    options: dict[str, Any] = {"studies": args.study, "series": args.series,
                               "modality": args.modality, "date": args.date}
    if args.max_studies is not None:
        options["max_studies"] = args.max_studies
    bar = ProgressBar("Importing")
    try:
        with Project.open(args.project) as project:
            limits = set_project_limits(project, **limit_changes) if limit_changes else None
            report = with_credentials(args.dicomweb, lambda auth: run(
                project, args.dicomweb, auth=auth, progress=bar, limits=limits, **options))
    except KeyboardInterrupt:  # (the import is all or nothing: it added nothing)
        print(("\n" if bar.drawing else "") + "Import from the PACS interrupted: nothing was "
              "added to the project (the images fetched so far were removed from the cache); "
              "run the command again to import.", file=sys.stderr)
        return 130
    print(report.summary())
    for line in report.details():
        print(f"  {line}")
    return 1 if report.failed else 0
