"""``slicereview export PROJECT --masks DIR --format png|nifti|coco
[--consensus majority|staple [--level strict|relaxed]]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from slicereview.app.exporting import DEFAULT_STATUSES, FORMATS, export_masks
from slicereview.cli._common import ProgressBar, add_project_argument, open_project
from slicereview.model import AnnotationStatus, Phase


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="export annotation masks as PNG, NIfTI or COCO JSON",
        description="Write every finished annotation (submitted or 'nothing to annotate') of "
                    "one phase and round as label masks (0 background, 1 certain, "
                    "2 uncertain) or as COCO polygons.",
    )
    add_project_argument(p)
    p.add_argument("--masks", type=Path, required=True, metavar="DIR",
                   help="output folder (created if missing)")
    p.add_argument("--format", choices=FORMATS, default="png",
                   help="png: one 8-bit label image per annotation; nifti: label images with "
                        "the image geometry (one volume per rater for volume slices); coco: "
                        "annotations.json with polygons (default png)")
    p.add_argument("--phase", choices=[str(x) for x in Phase], default=str(Phase.FORMAL))
    p.add_argument("--round", type=int, default=1)
    p.add_argument("--rater", action="append", metavar="NAME",
                   help="only this rater (repeat for several)")
    p.add_argument("--include-in-progress", action="store_true",
                   help="also export annotations that were not submitted yet")
    p.add_argument("--consensus", choices=("majority", "staple"),
                   help="instead of one mask per annotation, write one consensus mask per "
                        "image with two or more finished annotations (0/1; png or nifti): "
                        "majority = marked by more than half of the annotators, staple = "
                        "SimpleITK STAPLE probability > 0.5; per-annotator sensitivity and "
                        "specificity go to consensus.csv")
    p.add_argument("--level", choices=("relaxed", "strict"), default="relaxed",
                   help="with --consensus: relaxed counts certain and uncertain pixels as "
                        "marked, strict certain pixels only (default relaxed)")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    if args.consensus:
        return _consensus(args)
    statuses = None if args.include_in_progress else DEFAULT_STATUSES
    with open_project(args.project, read_only=True) as project:
        report = export_masks(
            project, args.masks, args.format, progress=ProgressBar("Exporting"),
            phase=args.phase, round=args.round, statuses=statuses, raters=args.rater,
        )
    if report.annotations == 0:
        wanted = "any status" if statuses is None else " or ".join(
            str(AnnotationStatus(s)) for s in statuses)
        print(f"No annotations to export (phase {args.phase}, round {args.round}, {wanted}).")
        return 1
    print(f"Exported {report.annotations - len(report.failed)} of {report.annotations} "
          f"annotations to {args.masks} ({len(report.files)} files, format {args.format}).")
    for case_ids, reason in report.failed:
        print(f"  not exported: {case_ids}: {reason}")
    return 1 if report.failed else 0  # scripts notice; the rest was exported


def _consensus(args: argparse.Namespace) -> int:
    from slicereview.app.exporting_consensus import CONSENSUS_FORMATS, export_consensus

    if args.format not in CONSENSUS_FORMATS:
        raise ValueError(f"--consensus writes {' or '.join(CONSENSUS_FORMATS)} masks, "
                         f"not {args.format}")
    if args.include_in_progress:
        raise ValueError("a consensus is made from finished annotations only; "
                         "drop --include-in-progress")
    with open_project(args.project, read_only=True) as project:
        report = export_consensus(
            project, args.masks, args.format, args.consensus, level=args.level,
            progress=ProgressBar("Consensus"), phase=args.phase, round=args.round,
            raters=args.rater,
        )
    skipped = (f"; {len(report.skipped)} with a single annotation skipped"
               if report.skipped else "")
    if report.images == 0:
        print(f"No image has two finished annotations (phase {args.phase}, round "
              f"{args.round}){skipped}.")
        return 1
    print(f"Exported {args.consensus} consensus ({args.level}) of {report.images} images to "
          f"{args.masks} ({len(report.files)} files, format {args.format}{skipped}).")
    return 0
