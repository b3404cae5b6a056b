"""``slicereview export PROJECT --masks DIR --format png|nifti|coco|dicom-seg
[--consensus majority|staple [--level strict|relaxed]]`` and ``--reports DIR --format
dicom-sr`` (DICOM: :mod:`slicereview.cli.export_dicom`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from slicereview.app.exporting.masks import DEFAULT_STATUSES, FORMATS, export_masks
from slicereview.cli._common import ProgressBar, add_project_argument, open_project
from slicereview.model import AnnotationStatus, Phase

DICOM_FORMATS = ("dicom-seg", "dicom-sr")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="export annotation masks as PNG, NIfTI, COCO JSON or DICOM SEG, and "
                       "reviews as DICOM SR",
        description="Write every finished annotation (submitted or 'nothing to annotate') of "
                    "one phase and round as label masks (0 background, 1 certain, "
                    "2 uncertain), as COCO polygons or as DICOM SEG; and each image's review "
                    "as a DICOM SR (docs/dicom.md).",
    )
    add_project_argument(p)
    p.add_argument("--masks", type=Path, metavar="DIR",
                   help="output folder of the masks (created if missing)")
    p.add_argument("--reports", type=Path, metavar="DIR",
                   help="with --format dicom-sr: output folder of the review reports")
    p.add_argument("--format", choices=(*FORMATS, *DICOM_FORMATS), default="png",
                   help="png: one 8-bit label image per annotation; nifti: label images with "
                        "the image geometry (one volume per rater for volume slices); coco: "
                        "annotations.json with polygons; dicom-seg: one DICOM SEG per "
                        "annotation of a DICOM image; dicom-sr: one DICOM SR per reviewed DICOM "
                        "image to --reports (with --masks too, the SEGs as well, referenced "
                        "by the SRs) (default png)")
    p.add_argument("--include-empty", action="store_true",
                   help="dicom-seg: also write a SEG with empty segments for an empty annotation")
    p.add_argument("--stow", metavar="URL",
                   help="dicom-seg/dicom-sr: send the written objects to this DICOMweb service "
                        "(STOW-RS); credentials as for import --dicomweb")
    p.add_argument("--deidentify", action="store_true",
                   help="for sharing an evaluation dataset: SEG and SR are built on each "
                        "image's de-identified copy (PS3.15 Basic profile, UIDs replaced "
                        "consistently) and carry no patient data; masks and COCO name images "
                        "by case id only (docs/privacy.md)")
    p.add_argument("--phase", choices=[str(x) for x in Phase], default=str(Phase.FORMAL),
                   help="the phase of the annotations (default formal)")
    p.add_argument("--round", type=int, default=1,
                   help="the round (default 1, the first pass; revisions are 2, 3, …)")
    p.add_argument("--rater", action="append", metavar="NAME",
                   help="only this rater (repeat for several)")
    p.add_argument("--include-in-progress", action="store_true",
                   help="also export annotations that were not submitted yet")
    p.add_argument("--consensus", choices=("majority", "staple"),
                   help="instead of one mask per annotation, write one consensus mask per "
                        "image with two or more finished annotations (0/1; png, nifti or "
                        "dicom-seg, where staple is a FRACTIONAL probability): "
                        "majority = marked by more than half of the annotators, staple = "
                        "SimpleITK STAPLE probability > 0.5; per-annotator sensitivity and "
                        "specificity go to consensus.csv")
    p.add_argument("--level", choices=("relaxed", "strict"), default="relaxed",
                   help="with --consensus: relaxed counts certain and uncertain pixels as "
                        "marked, strict certain pixels only (default relaxed)")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    if args.format in DICOM_FORMATS:
        from slicereview.cli.export_dicom import export_dicom

        return export_dicom(args)
    if args.masks is None:
        raise ValueError("give the output folder with --masks DIR")
    if args.reports or args.stow or args.include_empty:
        raise ValueError("--reports, --stow and --include-empty go with --format dicom-seg or "
                         "dicom-sr")
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
    from slicereview.app.exporting.consensus import CONSENSUS_FORMATS, export_consensus

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
