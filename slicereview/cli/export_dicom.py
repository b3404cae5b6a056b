"""``slicereview export PROJECT --masks DIR --format dicom-seg [--consensus M] [--include-empty]
[--stow URL]`` and ``--reports DIR --format dicom-sr [--masks DIR] [--stow URL]``."""

from __future__ import annotations

import argparse

from slicereview.cli._common import ProgressBar, open_project


def export_dicom(args: argparse.Namespace) -> int:
    from slicereview.app.exporting.seg import Sources, export_seg
    from slicereview.app.exporting.sr import export_sr
    from slicereview.app.images.pacs import Credentials
    from slicereview.cli.pacs import prompt

    if args.format == "dicom-seg" and args.masks is None:
        raise ValueError("--format dicom-seg writes to --masks DIR")
    if args.format == "dicom-sr" and args.reports is None:
        raise ValueError("--format dicom-sr writes to --reports DIR")
    if args.include_in_progress:
        raise ValueError("DICOM objects are written from finished annotations only; drop "
                         "--include-in-progress")
    if args.consensus and args.format == "dicom-sr" and args.masks is None:
        raise ValueError("--consensus goes with the SEGs: add --masks DIR")
    files = []
    skipped = 0
    # (a de-identified export may make shared copies and add to the owner's UID map)
    with open_project(args.project, read_only=not args.deidentify) as project:
        sources = Sources(project, Credentials(prompt=prompt), deidentify=args.deidentify)
        segs = None
        if args.masks is not None:
            segs = export_seg(project, args.masks, consensus=args.consensus, level=args.level,
                              include_empty=args.include_empty, sources=sources,
                              progress=ProgressBar("SEG"), phase=args.phase, round=args.round,
                              raters=args.rater)
            what = (f"{args.consensus} consensus SEG files" if args.consensus
                    else "SEG files")
            print(f"{segs.summary(what)} to {args.masks}.")
            _skipped(segs.skipped)
            files += segs.files[:-1]
            skipped += len(segs.skipped)
        if args.format == "dicom-sr":
            srs = export_sr(project, args.reports, phase=args.phase, round=args.round,
                            segs=None if args.consensus else segs, sources=sources,
                            progress=ProgressBar("SR"))
            print(f"{srs.summary('SR files')} to {args.reports}.")
            _skipped(srs.skipped)
            files += srs.files[:-1]
    if args.stow:
        return _stow(args.stow, files)
    return 0


def _skipped(skipped: list[tuple[str, str]]) -> None:
    for case, reason in skipped:
        print(f"  skipped {case}: {reason}")


def _stow(url: str, files: list) -> int:
    from slicereview.cli.pacs import with_credentials
    from slicereview.engines.dicomweb.client import Server

    if not files:
        print("Nothing to send.")
        return 1

    def send(auth):
        with Server(url, auth) as server:
            return server.store(files, progress=ProgressBar("STOW"))

    report = with_credentials(url, send)
    held = (f", {len(report.held)} held there already (not sent again)" if report.held
            else "")
    print(f"Sent {len(files) - len(report.held)} objects to {url}: {len(report.stored)} "
          f"stored, {len(report.refused)} refused{held}.")
    for uid, reason in report.refused:
        print(f"  refused {uid}: {reason}")
    return 1 if report.refused else 0
