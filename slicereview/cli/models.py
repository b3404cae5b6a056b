"""``slicereview predictions import``, ``slicereview predict`` and ``slicereview models``: a
model's predictions as a rater's annotations (docs/models.md; the jobs are in
:mod:`slicereview.app.models`, imported in the handlers)."""

from __future__ import annotations

import argparse
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project


class _Intermixed(argparse.ArgumentParser):
    """A parser that takes positional arguments on both sides of options (``import PROJECT
    --model M PATH...``: argparse alone takes the paths after an option for unknown ones)."""

    _inside = False

    def parse_known_args(self, args=None, namespace=None):
        if self._inside:  # (parse_known_intermixed_args calls this again)
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("predictions", help="a model's predictions as its annotations")
    inner = p.add_subparsers(dest="predictions_command", metavar="ACTION", required=True,
                             parser_class=_Intermixed)
    q = inner.add_parser(
        "import", help="store predictions from files (PNG/TIFF, NIfTI, DICOM SEG) or a PACS",
        description="Match each file to an image (case id, file name, or a SEG's referenced "
                    "SOP Instance UIDs) and store it as the model's finished annotation. "
                    "Probabilities become certain polygons where p >= --certain and uncertain "
                    "ones where --uncertain <= p < --certain.")
    add_project_argument(q)
    q.add_argument("--model", required=True, metavar="NAME[@VERSION]",
                   help="the model rater (created when new)")
    q.add_argument("--certain", type=float, default=0.5, metavar="P",
                   help="probability from which a pixel is certain (default 0.5)")
    q.add_argument("--uncertain", type=float, default=0.3, metavar="P",
                   help="probability from which a pixel is uncertain (default 0.3)")
    q.add_argument("--licence", metavar="TEXT", help="the model's licence, kept with a new rater")
    q.add_argument("--dicomweb", metavar="URL",
                   help="also pull the SEG objects of the project's studies from this "
                        "DICOMweb service (its AI results): only those --model made "
                        "(their segments' algorithm name and version, docs/models.md)")
    q.add_argument("--any-seg", action="store_true",
                   help="with --dicomweb: take every SEG of the studies as --model's, "
                        "whoever made it")
    q.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                   help="prediction files, or folders of them")
    q.set_defaults(func=cmd_import)

    p = sub.add_parser("predict", help="run an ONNX model on the project's images",
                       description="Run an ONNX model (onnxruntime, CPU) tile by tile on "
                                   "each image and store its predictions as the model's "
                                   "annotations (the card's NAME@VERSION).")
    add_project_argument(p)
    p.add_argument("--model", required=True, type=Path, metavar="FILE.onnx",
                   help="the ONNX model file (onnxruntime runs it in a process of its own)")
    p.add_argument("--card", required=True, type=Path, metavar="CARD.json",
                   help="the model card (docs/models.md)")
    p.add_argument("--images", nargs="+", metavar="CASE",
                   help="only these images (case ids or image ids; default: all)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("models", help="list the project's model raters")
    add_project_argument(p)
    p.set_defaults(func=cmd_models)


def cmd_import(args: argparse.Namespace) -> int:
    from slicereview.app.models.importing import import_predictions
    from slicereview.app.models.raters import model_rater, parse_label
    from slicereview.cli._common import ProgressBar

    name, version = parse_label(args.model)
    if args.any_seg and not args.dicomweb:
        raise ValueError("--any-seg chooses among a PACS's SEG objects: give --dicomweb URL.")
    if not args.paths and not args.dicomweb:
        raise ValueError("Name prediction files or folders, or a PACS with --dicomweb URL.")
    with open_project(args.project) as project:
        from slicereview.app.models.importing import check_thresholds

        check_thresholds(args.certain, args.uncertain)
        rater = model_rater(project, name, version,
                            card={"licence": args.licence} if args.licence else None)
        paths = list(args.paths)
        pulled = None
        if args.dicomweb:
            from slicereview.app.models.pacs_predictions import pull_segs

            pulled = pull_segs(project, args.dicomweb, progress=ProgressBar("Pulling SEG"),
                               model=None if args.any_seg else (name, version))
            paths += pulled.files
        report = import_predictions(project, rater, paths, certain=args.certain,
                                    uncertain=args.uncertain, progress=ProgressBar("Importing"))
    if pulled is not None:
        for line in pulled.lines():
            print(line)
    for line in report.lines():
        print(line)
    print(report.summary())
    return 0 if report.matched or not (report.unmatched or report.refused) else 1


def _image_ids(project, refs: list[str] | None) -> list[int] | None:
    if not refs:
        return None
    by_case = {im.case_id: im.id for im in project.images.all()}
    ids = []
    for ref in refs:
        if ref in by_case:
            ids.append(by_case[ref])
        elif ref.isdigit() and int(ref) in by_case.values():
            ids.append(int(ref))
        else:
            raise ValueError(f"No image {ref!r} in this project (give case ids, e.g. C000001, "
                             f"or image ids).")
    return ids


def cmd_predict(args: argparse.Namespace) -> int:
    from slicereview.app.models.running import read_card, run_model
    from slicereview.cli._common import ProgressBar

    card = read_card(args.card)  # (a bad card: one sentence before the project is opened)
    with open_project(args.project) as project:
        report = run_model(project, args.model, card, _image_ids(project, args.images),
                           progress=ProgressBar(f"Predicting ({card.label})"))
    for case, why in report.failed:
        print(f"failed     {case}: {why}")
    print(report.summary())
    return 0 if not report.failed else 1


def cmd_models(args: argparse.Namespace) -> int:
    from slicereview.app.models.raters import model_counts

    with open_project(args.project, read_only=True) as project:
        rows = model_counts(project)
    if not rows:
        print("no models yet: `slicereview predictions import` or `slicereview predict`")
        return 0
    table = [("model", "licence", "images", "with polygons", "nothing found")]
    table += [(row.label + (" (simulated)" if row.simulated else ""), row.licence or "–",
               str(row.images), str(row.submitted), str(row.empty)) for row in rows]
    widths = [max(len(r[c]) for r in table) for c in range(5)]
    for line in table:
        print("  ".join(v.ljust(w) if c < 2 else v.rjust(w)
                        for c, (v, w) in enumerate(zip(line, widths, strict=True))).rstrip())
    return 0
