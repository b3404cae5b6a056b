"""``slicereview package`` and ``slicereview merge``: work packages for annotators on other
machines, and what ``slicereview info anna.zip`` says of one (see
:mod:`slicereview.app.qa.packages`; imported in the handlers)."""

from __future__ import annotations

import argparse
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("package", help="write one annotator's work as a self-contained zip")
    add_project_argument(p)
    p.add_argument("--annotator", required=True, metavar="NAME",
                   help="whose work (an annotator's name)")
    p.add_argument("--batch", metavar="B", help="only this batch (default: all their work)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.zip",
                   help="the zip to write (must not exist)")
    p.set_defaults(func=cmd_package)
    p = sub.add_parser("merge", help="take an annotator's package back into the project")
    add_project_argument(p)
    p.add_argument("file", type=Path,
                   help="the package the annotator sent back: the zip (same layout as "
                        "written) or the folder it was unpacked to and worked in")
    p.set_defaults(func=cmd_merge)


def cmd_package(args: argparse.Namespace) -> int:
    from slicereview.app.qa.packages import package

    warnings: list[str] = []
    with open_project(args.project) as project:
        out = package(project, args.annotator, args.out, args.batch, warnings)
    for line in warnings:
        print(f"check before sending: {line}")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB): the annotator opens it with "
          f"`slicereview open {out.name}` (it is unpacked beside itself)")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from slicereview.app.qa.packages import merge

    if not (args.file.is_file() or args.file.is_dir()):
        raise FileNotFoundError(f"no package file or folder {args.file}")
    with open_project(args.project) as project:
        report = merge(project, args.file)
    print(f"merged {args.file.name}: {report.text}")
    for annotation_id in report.conflicts:
        print(f"conflict: annotation {annotation_id} was changed in both places; the project "
              "keeps its version, the package's is kept in merge_conflicts")
    return 0


def package_info(file: Path) -> int:
    """``slicereview info anna.zip``: the package read and verified as a merge reads it (the
    same limits), described; nothing is written beside it."""
    from slicereview.app.qa.packages import describe

    if not file.is_file():
        raise FileNotFoundError(f"no package file {file}")
    found = describe(file)
    print(f"Work package of {found.annotator} (project {found.project})"
          + (f", batch {found.batch}" if found.batch else ", every phase they may work in"))
    print(f"  written {found.written or 'at an unknown time'} by slicereview "
          f"{found.version or '(unknown version)'}")
    for table, n in found.counts.items():
        print(f"  {table:12s} {n}")
    print("Verified: every file in it is whole and every image has its hash.")
    if found.unpacked is not None:
        print(f"Unpacked beside it in {found.unpacked.name}/: `slicereview open {file.name}` "
              "opens the work done there.")
    else:
        print(f"The annotator opens it with `slicereview open {file.name}` (it is unpacked "
              "beside itself once); the owner takes it back with `slicereview merge PROJECT "
              f"{file.name}`.")
    return 0
