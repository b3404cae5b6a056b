"""Review commands: ``queue`` (the ranked review queue, CSV export) and ``review-eval``
(P@k, R@k, NDCG@k of every priority method against the stored reviews, the
curves of [CrowdSegQA, Fig. 6]). ``--model NAME[@VERSION]`` names the model of the
``model-disagreement`` method (default: the project's only model).

Both open the project for writing: features that are not cached yet are computed and cached
(see :mod:`slicereview.app.review.queue`). Engines (numpy, scipy) are imported in the handlers.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project
from slicereview.store import Project

_METHODS = ("image-sort", "box-sort", "box-score", "random",  # engines.review.priority.METHODS
            "model-disagreement")
_SHOWN = ("strict_alpha", "relaxed_alpha", "unsure_share", "n_disagreement", "n_low",
          "n_moderate", "n_high", "n_boxes", "wbbox_per_pixel")


def _selection_args(p: argparse.ArgumentParser) -> None:
    add_project_argument(p)
    p.add_argument("--phase", default="formal", choices=("onboarding", "pilot", "formal"),
                   help="the phase whose annotations are compared (default formal)")
    p.add_argument("--round", type=int, default=None,
                   help="round number (default: each annotator's latest finished round)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--group", help="include the annotators of this group only")
    who.add_argument("--annotators", metavar="A,B",
                     help="include these annotators only (names or rater ids, comma separated)")
    p.add_argument("--level", default="relaxed", choices=("relaxed", "strict"),
                   help="boxes of the box features (default relaxed: anything anyone marked)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random method")
    p.add_argument("--workers", type=int, default=None,
                   help="processes for computing features (default: inline for a few images)")
    p.add_argument("--model", metavar="NAME[@VERSION]",
                   help="the model whose distance from the annotators' consensus the "
                        "model-disagreement method ranks by (default: the project's only "
                        "model); review-eval then grades that method too")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("queue", help="rank images by how likely they need a reviewer")
    _selection_args(p)
    p.add_argument("--method", default="box-score", choices=_METHODS,
                   help="the priority method (default box-score; docs/review.md)")
    p.add_argument("--csv", type=Path, metavar="OUT",
                   help="write the queue as CSV: rank, ids, score, status, why it is reviewed "
                        "first, every feature, the mean pairwise consensus (Labelbox) and the "
                        "mean pairwise mask IoU (Label Studio)")
    p.set_defaults(func=cmd_queue)

    p = sub.add_parser("review-eval",
                       help="P@k, R@k and NDCG@k of every priority method against the reviews")
    _selection_args(p)
    p.add_argument("--k", type=int, default=20, help="cut-off of the printed table (default 20)")
    p.add_argument("--plot", type=Path, metavar="OUT.png",
                   help="draw P@k, R@k and NDCG@k against k (needs matplotlib)")
    p.set_defaults(func=cmd_review_eval)


def _annotators(project: Project, text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    ids = []
    for ref in (t.strip() for t in text.split(",") if t.strip()):
        rater = project.raters.by_name(ref)
        if rater is None and ref.isdigit():
            rater = project.raters.get(int(ref))
        if rater is None:
            raise ValueError(f"no annotator {ref!r} in this project")
        ids.append(rater.id)
    if len(ids) < 2:
        raise ValueError("give at least two annotators: agreement needs two")
    return tuple(ids)


def _spec(project: Project, args: argparse.Namespace, method: str = "box-score", *,
          any_model: bool = False):
    """``any_model``: take the project's only model when none is named (review-eval then
    grades model-disagreement too)."""
    from slicereview.app.review.queue import QueueSpec

    return QueueSpec(phase=args.phase, round=args.round,
                     annotators=_annotators(project, args.annotators), group=args.group,
                     level=args.level, method=method, seed=args.seed,
                     model=_model(project, args.model, method, any_model))


def _model(project: Project, name: str | None, method: str, any_model: bool) -> int | None:
    """The model named, or the project's only one when the method needs a model."""
    from slicereview.app.qa.preannotation import find_model, models

    if name:
        return find_model(project, name).id
    found = models(project)
    if any_model and len(found) == 1:
        return found[0].id
    if method != "model-disagreement":
        return None
    if len(found) != 1:
        raise ValueError("the model-disagreement method needs a model: name it with --model "
                         f"NAME[@VERSION] (this project has {len(found)} models)")
    return found[0].id


def _compute(project: Project, spec, workers: int | None):
    from slicereview.app.review.queue import compute_features
    from slicereview.cli._common import ProgressBar

    return compute_features(project, spec, progress=ProgressBar("features"), workers=workers)


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "NaN"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def cmd_queue(args: argparse.Namespace) -> int:
    from slicereview.app.review.queue import queue

    with open_project(args.project) as project:
        spec = _spec(project, args, args.method)
        result = _compute(project, spec, args.workers)
        rows = queue(project, spec, result)
        extra = _label_columns(project, rows) if args.csv else {}
    cases = result.cases
    apart = ", ".join(cases[i][0] for i in result.not_enough)
    summary = (f"{len(rows)} images ranked by {spec.method} ({len(result.computed)} computed, "
               f"{len(rows) - len(result.computed)} cached)")
    if args.csv:
        _write_csv(args.csv, rows, extra)
        print(f"{summary}; written to {args.csv}")
    else:
        print(summary)
        shown = ("model_disagreement", *_SHOWN) if spec.model is not None else _SHOWN
        header = ["rank", "case", "score", "status", "first", *shown]
        widths = [max(len(h), 7) for h in header]
        widths[3] = len("partly reviewed")
        widths[4] = len("first")
        print("  ".join(f"{h:>{w}}" for h, w in zip(header, widths, strict=True)))
        for row in rows:  # (the shown features only: not every feature's as_dict)
            cells = [row.rank, row.case_id, row.score, row.status, "yes" if row.flag else "",
                     *(getattr(row.features, k) for k in shown)]
            print("  ".join(f"{_cell(c):>{w}}" for c, w in zip(cells, widths, strict=True)))
        flagged = sum(bool(r.flag) for r in rows)
        if flagged:
            print(f"first: {flagged} image(s) the low-agreement rule flagged 'review first' "
                  "come before the method's order (the reason is in --csv's review_first)")
    if apart:
        print(f"not enough annotations (fewer than 2): {apart}", file=sys.stderr)
    return 0


def _label_columns(project: Project, rows) -> dict[int, dict[str, float]]:
    """image id → the two label-agreement columns (app.report.label_agreement)."""
    from slicereview.app.report.label_agreement import image_scores, question_kinds

    kinds = question_kinds(project)
    return {r.image_id: image_scores(project, r.image_id, r.annotation_ids, kinds).as_dict()
            for r in rows}


def _write_csv(path: Path, rows, extra: dict[int, dict[str, float]]) -> None:
    from slicereview.app.report.label_agreement import CONSENSUS, MASK_IOU
    from slicereview.app.review.queue import nan_to_none

    if not rows:
        path.write_text(f"rank,image_id,case_id,score,status,review_first,{CONSENSUS},"
                        f"{MASK_IOU}\n", encoding="utf-8")
        return
    fields = [*rows[0].as_dict(), CONSENSUS, MASK_IOU]
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            values = {**row.as_dict(), **extra[row.image_id]}
            writer.writerow({k: nan_to_none(v) for k, v in values.items()})


def cmd_review_eval(args: argparse.Namespace) -> int:
    from slicereview.app.qa.preannotation import model_label, models
    from slicereview.app.report.plots import write_curves
    from slicereview.app.review.queue import evaluate

    if args.k < 1:
        raise ValueError(f"--k must be at least 1, got {args.k}")
    with open_project(args.project) as project:
        spec = _spec(project, args, any_model=True)
        n = len(_compute(project, spec, args.workers).features)
        if n == 0:
            raise ValueError("no image has two finished annotations: nothing to evaluate")
        ks = sorted(set(range(1, n + 1)) | {args.k})
        ev = evaluate(project, spec, ks)
        found = [] if spec.model is not None else [model_label(m) for m in models(project)]
    print(f"{n} images; relevance from the stored reviews (3 expert review, 2 commented, "
          f"1 strict α ≤ 0.667)")
    print(ev.table(args.k))
    if len(found) > 1:
        print(f"model-disagreement not graded: this project has {len(found)} models; "
              f"name one with --model (e.g. --model {found[0]})")
    if args.plot:
        write_curves(ev, args.plot)
        print(f"curves written to {args.plot}", file=sys.stderr)
    return 0
