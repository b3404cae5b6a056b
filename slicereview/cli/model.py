"""The project model's commands: ``model train``, ``model predict`` and ``model status``
(docs/models.md, "The project model in a project").

* ``model train PROJECT`` trains the next version on the accepted images and scores it by
  cross-validation by image; ``--if-due`` trains only when the retraining rule says so
  (``model status --retrain-every N``), for a scheduled job; ``--trees``, ``--tissue`` and
  ``--seed`` change the settings (kept for the next versions).
* ``model predict PROJECT`` predicts images with a version (default: the newest; images:
  all not trained on, or ``--images CASE...``), stores each as the model rater
  ``project@vN``'s annotation, keeps each image's mean entropy for the *uncertainty* order
  (``slicereview selection``) and lists them most uncertain first (``--csv OUT`` too).
* ``model status PROJECT`` lists the versions with their held-out scores and intervals,
  the accepted images now and whether retraining is due; ``--retrain-every N`` sets the rule
  (0: on demand only), ``--min-region PX`` the smallest region a stored prediction keeps.
"""

from __future__ import annotations

import argparse
import csv
import getpass
import sys
from pathlib import Path
from typing import Any

from slicereview.cli._common import ProgressBar, add_project_argument, open_project


def register(sub: argparse._SubParsersAction) -> None:
    model = sub.add_parser("model", help="the project model: train it on the accepted work, "
                                         "predict, status")
    verbs = model.add_subparsers(dest="verb", metavar="VERB", required=True)
    p = verbs.add_parser("train", help="train the next version on the accepted images and "
                                       "score it on held-out images")
    add_project_argument(p)
    p.add_argument("--if-due", action="store_true",
                   help="train only when the retraining rule says it is due")
    p.add_argument("--trees", type=int, help="trees of the forest (default: as the newest "
                                             "version, else 24)")
    p.add_argument("--tissue", choices=("breast", "none"),
                   help="learn and predict inside the breast-tissue mask (mammograms) or "
                        "everywhere (default: as the newest version, else breast)")
    p.add_argument("--seed", type=int, help="seed of sampling, folds and forest")
    p.add_argument("--by", help="who trains it (default: your user name)")
    p.set_defaults(func=cmd_train)

    p = verbs.add_parser("predict", help="predict images with a version and store them as "
                                         "the model rater project@vN")
    add_project_argument(p)
    p.add_argument("--version", type=int, help="the version (default: the newest)")
    p.add_argument("--images", nargs="+", metavar="CASE",
                   help="case ids (default: every image the version was not trained on)")
    p.add_argument("--csv", type=Path, metavar="OUT", help="write the list as CSV")
    p.set_defaults(func=cmd_predict)

    p = verbs.add_parser("status", help="the versions, their held-out scores, and whether "
                                        "retraining is due")
    add_project_argument(p)
    p.add_argument("--retrain-every", type=int, metavar="N",
                   help="retrain after every N newly accepted images (0: on demand only)")
    p.add_argument("--min-region", type=int, metavar="PX",
                   help="leave regions smaller than PX pixels out of stored predictions "
                        "(what pre-annotation shows; 0: keep every region)")
    p.set_defaults(func=cmd_status)


def _interval(summary: dict[str, Any]) -> str:
    if summary.get("mean") is None:
        return "-"
    if summary.get("low") is None:
        return f"{summary['mean']:.3f}"
    return f"{summary['mean']:.3f} [{summary['low']:.3f}, {summary['high']:.3f}]"


def cmd_train(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from slicereview.app.models import project_model as pm

    with open_project(args.project) as project:
        if args.if_due and not pm.status(project).due:
            st = pm.status(project)
            rule = (f"every {st.retrain_every} newly accepted images" if st.retrain_every
                    else "on demand only")
            print(f"not due: {st.new_since} newly accepted image(s) since the newest version "
                  f"(retraining: {rule})")
            return 0
        settings = pm.current_settings(project)
        changes = {k: v for k, v in (("trees", args.trees), ("tissue", args.tissue),
                                     ("seed", args.seed)) if v is not None}
        settings = replace(settings, **changes)
        version = pm.train_version(project, settings=settings,
                                   trained_by=args.by or getpass.getuser(),
                                   progress=ProgressBar("Training"))
    score = version.score
    print(f"trained {version.name} on {version.accepted} accepted image(s) in "
          f"{version.seconds:.1f} s")
    if score.get("folds"):
        print(f"held-out ({score['method']}, 95 % t intervals over images): Dice "
              f"{_interval(score['dice'])}, sensitivity {_interval(score['sensitivity'])}, "
              f"specificity {_interval(score['specificity'])}")
    else:
        print(f"no held-out score: {score.get('reason', '')}")
    if score.get("reason") and score.get("folds"):
        print(f"note: {score['reason']}")
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from slicereview.app.qa.model_predictions import predict_and_rank

    with open_project(args.project) as project:
        ids = None
        if args.images:
            by_case = {i.case_id: i.id for i in project.images.all()}
            missing = [c for c in args.images if c not in by_case]
            if missing:
                raise KeyError(f"no image with case id {', '.join(missing)} in this project")
            ids = [by_case[c] for c in args.images]
        found = predict_and_rank(project, ids, version=args.version,
                                 progress=ProgressBar("Predicting"))
        version = args.version or project.project_models.latest().version  # type: ignore[union-attr]
    rows = sorted(found, key=lambda f: (-f.entropy, f.case_id))
    stored = sum(f.annotation_id is not None for f in found)
    print(f"project@v{version} predicted {len(found)} image(s), {stored} stored as its "
          f"annotations; most uncertain first:")
    header = ("case", "region_px", "uncertain_%", "entropy")
    print("  ".join(f"{h:>12}" for h in header))
    for f in rows:
        print(f"{f.case_id:>12}  {f.region_px:>12}  {100 * f.uncertain_fraction:>12.2f}  "
              f"{f.entropy:>12.4f}")
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["case_id", "image_id", "version", "region_px", "uncertain_fraction",
                        "entropy", "annotation_id"])
            for f in rows:
                w.writerow([f.case_id, f.image_id, version, f.region_px,
                            f"{f.uncertain_fraction:.6f}", f"{f.entropy:.6f}",
                            "" if f.annotation_id is None else f.annotation_id])
        print(f"written to {args.csv}")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from slicereview.app.models import project_model as pm

    with open_project(args.project) as project:
        if args.retrain_every is not None:
            pm.set_retrain_every(project, args.retrain_every)
        if args.min_region is not None:
            pm.set_min_region(project, args.min_region)
        st = pm.status(project)
        smallest = pm.min_region(project)
    rule = (f"after every {st.retrain_every} newly accepted images" if st.retrain_every
            else "on demand only")
    print(f"{st.accepted} accepted image(s); {st.new_since} not in the newest version; "
          f"retraining {rule}{': due' if st.due else ''}")
    print("stored predictions keep " + (f"regions of {smallest} pixels and more"
                                        if smallest > 1 else "every region"))
    if not st.versions:
        print("not trained yet: slicereview model train PROJECT")
        return 0
    print(f"{'version':>10}  {'trained':>20}  {'images':>6}  {'Dice [95 % CI]':>24}  "
          f"{'sensitivity':>24}  {'specificity':>24}")
    for v in st.versions:
        s = v.score
        print(f"{v.name:>10}  {v.trained_at[:19]:>20}  {v.accepted:>6}  "
              f"{_interval(s.get('dice', {})):>24}  {_interval(s.get('sensitivity', {})):>24}  "
              f"{_interval(s.get('specificity', {})):>24}")
    latest = st.versions[-1].score
    if latest.get("method"):
        print(f"held-out: {latest['method']}" if latest.get("folds")
              else f"held-out: none ({latest.get('reason', '')})")
    sys.stdout.flush()
    return 0
