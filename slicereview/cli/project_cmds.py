"""Project commands: ``open``, ``new``, ``copy``, ``hold``, ``import``, ``relink``, ``info``,
``demo``.

Every PROJECT is a location: a project file or a server project's ``postgresql://`` URL
(:mod:`slicereview.store.location`).

``open`` and ``demo`` return a :class:`GuiRequest`; the entry point
(:mod:`slicereview.launcher`) hands it to the GUI, so this package never imports Qt.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path

from slicereview.cli._common import ProgressBar, add_project_argument
from slicereview.store import SUFFIX, Project
from slicereview.store.location import as_location, describe, is_server


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("open", help="open a project in the GUI (the default command)")
    p.add_argument("project", nargs="?", type=as_location,
                   help=f"project file ({SUFFIX}), server project URL (postgresql://...) or a "
                        "work package (.zip, unpacked beside itself once); without it, the "
                        "last project or a start page")
    _screenshot_option(p)
    p.set_defaults(func=cmd_open)

    p = sub.add_parser("new", help="create an empty project (a file, or in an empty database)")
    p.add_argument("project", type=as_location,
                   help=f"new project file (suffix {SUFFIX} suggested) or the URL of an empty "
                        "PostgreSQL database (postgresql://USER@HOST/DATABASE)")
    p.add_argument("--name", help="project name (default: the file or database name)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("copy", help="copy a whole project: file to server, server to file",
                       description="Copy every row of a project, ids kept, to a new project "
                       "file or an empty PostgreSQL database (queues, reports and exports of "
                       "the copy are those of the original). Image paths become absolute on a "
                       "server and relative below the folder of a project file.")
    p.add_argument("source", type=as_location, help="the project to copy (file or URL)")
    p.add_argument("dest", type=as_location,
                   help="a new project file, or the URL of an empty database")
    p.add_argument("--hold", action="store_true",
                   help="then hold the bytes of every image file the copy references by path "
                        "in the copy itself (as `slicereview hold DEST`): people on other "
                        "machines see the images with only the URL")
    p.set_defaults(func=cmd_copy)

    p = sub.add_parser("hold", help="store the bytes of the project's image files in the "
                       "project itself (a server project usable from any machine)",
                       description="Store the original bytes of every image file the project "
                       "references by path in the project (once per content; docs/server.md), "
                       "so that people who are not on this disk see the images. Files that "
                       "are missing, changed since their import or keep their pixels in a "
                       "second file stay references and are listed (exit code 1).")
    add_project_argument(p)
    p.set_defaults(func=cmd_hold)

    p = sub.add_parser("import", help="add image files or folders (recursive), or images from "
                       "a PACS over DICOMweb, to a project",
                       description="Add image files or folders (recursive) to a project. "
                       "Duplicates (same SHA-256) are skipped; unreadable files are listed with "
                       "the reason and do not stop the import (exit code 1 if there were any). "
                       "With --dicomweb, import from a PACS instead (docs/dicom.md).")
    add_project_argument(p)
    p.add_argument("paths", nargs="*", type=Path, help="files and folders to import")
    pacs = p.add_argument_group(
        "from a PACS", "credentials come from SLICEREVIEW_DICOMWEB_TOKEN (bearer) or "
        "SLICEREVIEW_DICOMWEB_USER and SLICEREVIEW_DICOMWEB_PASSWORD (basic), or a prompt; "
        "they are never stored")
    pacs.add_argument("--dicomweb", metavar="URL",
                      help="the DICOMweb service, e.g. http://localhost:8042/dicom-web")
    pacs.add_argument("--study", action="append", default=[], metavar="UID",
                      help="Study Instance UID to import (repeat; default: every study listed, "
                           "at most --max-studies)")
    pacs.add_argument("--series", action="append", default=[], metavar="UID",
                      help="only this Series Instance UID (repeat)")
    pacs.add_argument("--modality", metavar="CODE", help="only series of this modality, e.g. MG")
    pacs.add_argument("--date", default="", metavar="YYYYMMDD[-YYYYMMDD]",
                      help="without --study: only studies of this date or date range")
    pacs.add_argument("--max-studies", type=int, default=None, metavar="N",
                      help="without --study: import at most N studies; more listed is "
                           "refused, naming how many (default 500)")
    p.add_argument("--slices", default="middle", metavar="WHICH",
                   help="slices of 3-D volumes to import: middle (default), all, every:K, "
                        "range:START:STOP[:STEP] (STOP exclusive)")
    p.add_argument("--axis", type=int, default=0, choices=(0, 1, 2),
                   help="volume axis to slice along, as numpy axis of the (z, y, x) array: "
                        "0 = axial for most NIfTI/DICOM volumes (default), 1 = coronal, "
                        "2 = sagittal")
    p.add_argument("--create", action="store_true", help="create the project if it does not exist")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--embed", dest="hold", action="store_true", default=None,
                       help="store each new file's bytes in the project (the default on a "
                            "server project; docs/server.md)")
    where.add_argument("--reference", dest="hold", action="store_false",
                       help="keep references to the files' paths only (the default on a "
                            "project file; on a server, for sites with shared storage: "
                            "`relink` per machine)")
    limits = p.add_argument_group(
        "size limits", "checked from each file's header before decoding; a value given here "
        "is stored in the project (the viewer uses it too) and kept for later imports")
    limits.add_argument("--max-frame-pixels", type=int, metavar="N",
                        help="pixels of one frame or slice (default 100000000)")
    limits.add_argument("--max-frames", type=int, metavar="N",
                        help="frames of a multi-frame DICOM file (default 20000)")
    limits.add_argument("--max-decoded-mb", type=int, metavar="MB",
                        help="bytes of one decompressed stream, in MiB (default 2112)")
    limits.add_argument("--max-volume-mb", type=int, metavar="MB",
                        help="bytes of one volume in memory, in MiB (default 2112)")
    limits.add_argument("--decoder-memory-gb", type=float, metavar="GB",
                        help="address-space limit of the decoding process, GiB (default 7)")
    limits.add_argument("--decode-timeout", type=float, metavar="S",
                        help="seconds one decode may take (default 120)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("relink", help="find moved image files below NEW_ROOT and update the paths")
    add_project_argument(p)
    p.add_argument("new_root", type=Path,
                   help="a folder below which the moved files are (searched recursively)")
    p.add_argument("--no-verify", action="store_true",
                   help="accept files whose SHA-256 differs from the imported file")
    p.add_argument("--this-machine", action="store_true",
                   help="a server project: keep the stored paths (other machines are "
                        "unchanged) and remember where this machine finds the files, in "
                        "your user settings (docs/server.md)")
    p.set_defaults(func=cmd_relink)

    p = sub.add_parser("info", help="counts of images, raters, answers..., and missing files "
                                    "(of a work package .zip: what it holds, verified)")
    add_project_argument(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("demo", help="build (or reuse) the demo project and open it")
    p.add_argument("--dir", type=Path, default=None,
                   help="folder for the demo project (default: your user data folder)")
    p.add_argument("--no-gui", action="store_true", help="build the demo project and exit")
    _screenshot_option(p)
    p.set_defaults(func=cmd_demo)


@dataclass(frozen=True)
class GuiRequest:
    """What ``open`` and ``demo`` ask the GUI to show (``project`` ``None``: the start page;
    ``tab`` ``None``: the View tab)."""

    project: Path | str | None
    screenshot: Path | None = None
    size: str = "1400x900"
    tab: str | None = None


#: The main window's tabs, as ``--tab`` names them.
TABS = ("view", "annotate", "rate", "review", "overview")


def _screenshot_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--screenshot", type=Path, metavar="FILE",
                   help="render the main window offscreen to a PNG file and exit")
    p.add_argument("--size", default="1400x900", metavar="WxH",
                   help="window size for --screenshot (default 1400x900)")
    p.add_argument("--tab", choices=TABS, default=None,
                   help="the tab to show (with --screenshot: to render, after its background "
                        "work finished); default: View")


def cmd_open(args: argparse.Namespace) -> GuiRequest:
    if isinstance(args.project, Path) and args.project.suffix.lower() == ".zip":
        from slicereview.app.qa.packages import unpack

        args.project = unpack(args.project)  # a work package: checked, unpacked beside it once
    if args.screenshot is not None and args.project is not None:
        # Unattended: report a bad project here as one line instead of in a GUI dialog that
        # nobody can close. Read-only, so the file is left untouched.
        Project.open(args.project, read_only=True).close()
    _refuse_without_display(args.screenshot)
    return GuiRequest(args.project, args.screenshot, args.size, args.tab)


def _refuse_without_display(screenshot: Path | None) -> None:
    from slicereview.app.environment import NoDisplayError, no_display_reason

    reason = no_display_reason(screenshot)
    if reason:
        raise NoDisplayError(reason)


def cmd_new(args: argparse.Namespace) -> int:
    with Project.create(args.project, name=args.name) as project:
        print(f"Created {project.describe()}")
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    from slicereview.store.copying import copy_project

    counts = copy_project(args.source, args.dest)
    shown = ", ".join(f"{counts[t]} {t}" for t in ("images", "raters", "sessions", "answers",
                                                   "annotations", "polygons", "reviews"))
    print(f"Copied {describe(args.source)} to {describe(args.dest)}: {shown}.")
    if args.hold:
        args.project = args.dest
        return cmd_hold(args)
    if is_server(args.dest):
        with Project.open(args.dest, read_only=True) as project:
            referenced = len(project.images.sources()) - len(project.blobs.held()) - len(
                project.dicomweb.refs())
        if referenced > 0:
            print(f"{referenced} image file(s) are referenced by path: other machines need "
                  f"them at the same paths, or hold them in the project with `slicereview "
                  f"hold {describe(args.dest)}`.")
    return 0


def cmd_hold(args: argparse.Namespace) -> int:
    from slicereview.app.images.embedding import hold_files

    with Project.open(args.project) as project:
        report = hold_files(project, progress=ProgressBar("Holding"))
    print(report.summary())
    for path, why in report.referenced:
        print(f"  still referenced: {path}: {why}")
    return 1 if report.referenced else 0


def _limit_changes(args: argparse.Namespace) -> dict[str, float]:
    """The ``Limits`` fields the import options set (MiB/GiB turned into bytes)."""
    mib, gib = 1 << 20, 1 << 30
    given = {
        "max_frame_pixels": args.max_frame_pixels, "max_frames": args.max_frames,
        "max_decoded_bytes": args.max_decoded_mb and args.max_decoded_mb * mib,
        "max_volume_bytes": args.max_volume_mb and args.max_volume_mb * mib,
        "child_address_space": args.decoder_memory_gb and int(args.decoder_memory_gb * gib),
        "decode_timeout_s": args.decode_timeout,
    }
    return {k: v for k, v in given.items() if v is not None}


def cmd_import(args: argparse.Namespace) -> int:
    from slicereview.app.images.importing import import_paths
    from slicereview.app.images.limits import set_project_limits
    from slicereview.engines.imaging.importer import parse_slices

    if args.dicomweb:
        from slicereview.cli.pacs import import_dicomweb

        return import_dicomweb(args, _limit_changes(args))
    if not args.paths:
        raise ValueError("give files or folders to import, or --dicomweb URL")
    slices = parse_slices(args.slices, axis=args.axis)
    if args.create:
        with contextlib.suppress(FileExistsError):  # there already: import into it
            Project.create(args.project).close()
    with Project.open(args.project) as project:
        limits = set_project_limits(project, **_limit_changes(args)) \
            if _limit_changes(args) else None
        report = import_paths(project, args.paths, slices=slices,
                              progress=ProgressBar("Importing"), limits=limits, hold=args.hold)
    print(report.summary())
    for line in report.details():
        print(f"  {line}")
    # Scripts notice unreadable and skipped names; the rest is imported.
    return 1 if report.failed or report.skipped else 0


def cmd_relink(args: argparse.Namespace) -> int:
    from slicereview.app.images.importing import relink
    from slicereview.app.images.relinking import relink_here

    with Project.open(args.project, read_only=args.this_machine) as project:
        if args.this_machine:
            report, roots = relink_here(project, args.new_root, verify=not args.no_verify)
            print(f"Found {report.relinked} file(s) on this machine; the project's paths are "
                  "unchanged. This machine's folders:")
            for stored, here in roots:
                print(f"  {stored} -> {here}")
        else:
            report = relink(project, args.new_root, verify=not args.no_verify)
            print(f"Relinked {report.relinked} file(s).")
    for path in report.hash_mismatch:
        print(f"  not relinked, content differs from the imported file: {path}")
    for path in report.still_missing:
        print(f"  still missing: {path}")
    return 0 if not report.still_missing and not report.hash_mismatch else 1


def cmd_info(args: argparse.Namespace) -> int:
    if isinstance(args.project, Path) and args.project.suffix.lower() == ".zip":
        from slicereview.cli.packages import package_info

        return package_info(args.project)
    with Project.open(args.project, read_only=True) as project:
        print(f"Project: {project.name}  ({project.describe()})")
        models = sum(r.is_model for r in project.raters.all())
        for table, n in project.counts().items():
            print(f"  {table:12s} {n}" + (f" ({n - models} people, {models} model"
                                          f"{'s' if models > 1 else ''})"
                                          if table == "raters" and models else ""))
        tools = project.polygons.tool_counts()
        if tools:
            print("Polygons by tool: " + ", ".join(
                (f"model {model}" if model else str(tool)) + f" {n}"
                + (f" ({edited} edited)" if edited else "")
                for (tool, model), (n, edited) in tools.items()))
        held = project.blobs.held()
        if held:
            print(f"Image files held in the project: {len(held)} "
                  f"({project.blobs.total_bytes() / (1 << 20):.1f} MiB)")
        missing = project.images.missing_sources()
        if missing:
            print(f"Missing files: {len(missing)} (fix with `slicereview relink "
                  f"{describe(args.project)} NEW_FOLDER`)")
            for source in missing[:20]:
                print(f"  {source.path}")
            if len(missing) > 20:
                print(f"  ... and {len(missing) - 20} more")
        else:
            print("All image files found.")
    return 0


def cmd_demo(args: argparse.Namespace) -> int | GuiRequest:
    from slicereview.demo.project import build_demo

    if args.dir is not None and args.dir.exists() and not args.dir.is_dir():
        raise NotADirectoryError(f"--dir {args.dir} is a file; give a folder for the demo "
                                 "project (it is created if missing)")
    if not args.no_gui:
        _refuse_without_display(args.screenshot)  # before the build (20-25 s of CPU time)
    project_path = build_demo(args.dir, progress=ProgressBar("Building demo"))
    print(f"Demo project: {project_path}", file=sys.stderr)
    if args.no_gui:
        return 0
    return GuiRequest(project_path, args.screenshot, args.size, args.tab)
