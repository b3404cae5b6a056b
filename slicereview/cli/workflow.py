"""The owner's QA workflow from the command line (rules in :mod:`slicereview.app.qa.workflow` and
:mod:`slicereview.app.qa.guidelines`, imported in the handlers):

* ``batch PROJECT NAME --phase P --cases C000001,C000002 [--groups A,B] [--annotators x,y]
  [--min-dice 0.6] [--alpha-threshold 0.667 --max-annotators 3 --low-action assign|review]``
  ``[--per-image K]`` (hand the images out by claims, :mod:`slicereview.app.qa.claiming`)
  ``[--preannotate all|half --model NAME[@VERSION] [--seed N]]`` (:mod:`.app.qa.preannotation`)
* ``preannotate PROJECT --batch B (--share all|half --model NAME[@VERSION] [--seed N]
  [--owner O] | --off)``: pre-annotation of an existing batch
* ``claim PROJECT --batch B --annotator NAME`` prints the next image's case id and file
* ``gold PROJECT --case C000001 (--mask FILE.png | --annotation ID)``
* ``onboarding PROJECT --batch B`` prints the pre-filter; ``--decide NAME --owner OWNER``
  with ``--go-on``/``--stop`` (an override needs ``--reason``) or neither (confirm it).
* ``guidelines PROJECT --edit FILE.md --owner OWNER`` / ``--changes NAME`` / (show).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project
from slicereview.model import Rater
from slicereview.store import Project


def _names(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("batch", help="define a batch of one phase and assign annotators")
    add_project_argument(p)
    p.add_argument("name", help="the batch's name (unique; also its image set's)")
    p.add_argument("--phase", required=True, choices=("onboarding", "pilot", "formal"),
                   help="the batch's phase")
    p.add_argument("--cases", required=True, metavar="C1,C2", help="case ids of the images")
    p.add_argument("--groups", metavar="A,B", help="assign these annotator groups")
    p.add_argument("--annotators", metavar="X,Y", help="assign these annotators (names)")
    p.add_argument("--min-dice", type=float, help="pre-filter: mean Dice against gold")
    p.add_argument("--alpha-threshold", type=float,
                   help="low-agreement threshold on strict α (image level)")
    p.add_argument("--max-annotators", type=int, default=3,
                   help="at most this many annotators per image (default 3)")
    p.add_argument("--low-action", choices=("assign", "review"), default="assign",
                   help="below the threshold: assign one more annotator (default) or flag "
                        "the image 'review first'")
    p.add_argument("--per-image", type=int, metavar="K",
                   help="hand the images out by claims: each needs K annotators from those "
                        "assigned, who ask for work with `slicereview claim` (default: every "
                        "assigned annotator annotates every image)")
    p.add_argument("--preannotate", choices=("all", "half"),
                   help="show the model's polygons (--model) to the annotators as their "
                        "starting point on every image, or on a seeded random half of each "
                        "annotator's images (what it did: the report)")
    p.add_argument("--model", metavar="NAME[@VERSION]", help="the model pre-annotation shows")
    p.add_argument("--seed", type=int, default=0, help="seed of the random half (default 0)")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("preannotate", help="show a model's polygons to a batch's annotators "
                       "as their starting point (all or a random half of the images), or stop")
    add_project_argument(p)
    p.add_argument("--batch", required=True, help="the batch's name")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--share", choices=("all", "half"), help="every image, or a seeded half")
    how.add_argument("--off", action="store_true",
                     help="show no model from now on (work started keeps its polygons)")
    p.add_argument("--model", metavar="NAME[@VERSION]", help="the model (needed with --share)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random half (default 0)")
    p.add_argument("--owner", metavar="OWNER", help="who sets it (recorded with the setting)")
    p.set_defaults(func=cmd_preannotate)

    p = sub.add_parser("claim", help="the next image an annotator should annotate in a batch "
                       "handed out by claims (claimed for them)")
    add_project_argument(p)
    p.add_argument("--batch", required=True, help="the batch's name")
    p.add_argument("--annotator", required=True, help="who asks (an annotator's name)")
    p.set_defaults(func=cmd_claim)

    p = sub.add_parser("gold", help="set the gold standard of an image")
    add_project_argument(p)
    p.add_argument("--case", required=True, help="the image's case id (C000001)")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--mask", type=Path, help="label PNG: 0 background, 1 certain, 2 uncertain")
    how.add_argument("--annotation", type=int, help="an expert's finished annotation id")
    p.set_defaults(func=cmd_gold)

    p = sub.add_parser("onboarding", help="the pre-filter of a batch; the owner's decision")
    add_project_argument(p)
    p.add_argument("--batch", required=True, help="the onboarding batch's name")
    p.add_argument("--decide", metavar="NAME",
                   help="decide whether this annotator goes on (needs --owner)")
    p.add_argument("--owner", metavar="OWNER", help="who decides (a rater with the owner role)")
    verdict = p.add_mutually_exclusive_group()
    verdict.add_argument("--go-on", action="store_true",
                         help="the annotator goes on (against the pre-filter: needs --reason)")
    verdict.add_argument("--stop", action="store_true",
                         help="the annotator stops: no pilot or formal work, no package for "
                              "it, until an owner decides otherwise")
    p.add_argument("--reason", default="",
                   help="why (needed when the decision goes against the pre-filter)")
    p.set_defaults(func=cmd_onboarding)

    p = sub.add_parser("guidelines", help="show, edit or diff the living guidelines")
    add_project_argument(p)
    act = p.add_mutually_exclusive_group()
    act.add_argument("--edit", type=Path, metavar="FILE.md",
                     help="make this Markdown file the next version (needs --owner)")
    act.add_argument("--changes", metavar="NAME", help="what changed since NAME last looked")
    p.add_argument("--owner", metavar="OWNER", help="who edits (a rater with the owner role)")
    p.set_defaults(func=cmd_guidelines)


def _rater(project: Project, name: str | None, what: str) -> int:
    rater = project.raters.by_name(name or "")
    if rater is None:
        raise ValueError(f"give the {what}: no rater named {name!r} in this project")
    return rater.id


def _cases(project: Project, cases: list[str]) -> list[int]:
    by_case = {case: i for i, (case, _, _) in project.images.cases().items()}
    unknown = [c for c in cases if c not in by_case]
    if unknown:
        raise ValueError(f"no image with case id {', '.join(unknown[:5])}")
    return [by_case[c] for c in cases]


def cmd_batch(args: argparse.Namespace) -> int:
    from slicereview.app.qa.workflow import define_batch

    with open_project(args.project) as project:
        raters = [_rater(project, n, "annotator") for n in _names(args.annotators)]
        if args.preannotate or args.model:  # (checked before the batch is made)
            _model(project, args.model if args.preannotate else None)
        batch = define_batch(
            project, args.name, args.phase, _cases(project, _names(args.cases)), raters=raters,
            groups=_names(args.groups), min_dice=args.min_dice,
            alpha_threshold=args.alpha_threshold, max_annotators=args.max_annotators,
            low_action=args.low_action, annotators_per_image=args.per_image)
        print(f"batch {args.name} ({args.phase}, id {batch}): {len(_names(args.cases))} images")
        if args.preannotate:
            _preannotate(project, batch, args.preannotate, args.model, args.seed, "")
    return 0


def _model(project: Project, model: str | None) -> Rater:
    from slicereview.app.qa.preannotation import find_model

    if not model:
        raise ValueError("pre-annotation needs both --preannotate all|half and the model to "
                         "show, --model NAME[@VERSION]")
    return find_model(project, model)


def _preannotate(project: Project, batch: int, share: str, model: str | None, seed: int,
                 owner: str) -> None:
    from slicereview.app.qa.preannotation import caveats, set_preannotation

    found = _model(project, model)
    rows, predicted = set_preannotation(project, batch, found.id, share, seed,
                                        owner or "command line")
    shown = sum(s for *_, s in project.preannotation.design(batch))
    images = len(project.image_sets.members(project.workflow.batch(batch).image_set_id))
    print(f"pre-annotation: {model} shown on {share} ({shown} of {rows} image × annotator "
          f"starts, seed {seed}); the model predicted {predicted} of {images} images")
    for sentence in caveats(project, batch):
        print(sentence)


def cmd_preannotate(args: argparse.Namespace) -> int:
    from slicereview.app.qa.preannotation import clear_preannotation

    with open_project(args.project) as project:
        batch = project.workflow.batch_by_name(args.batch)
        if batch is None:
            raise ValueError(f"no batch named {args.batch!r} in this project")
        if args.off:
            clear_preannotation(project, batch.id)
            print(f"pre-annotation off for batch {args.batch}")
        else:
            owner = project.raters.get(_rater(project, args.owner, "owner")).name \
                if args.owner else ""
            _preannotate(project, batch.id, args.share, args.model, args.seed, owner)
    return 0


def cmd_claim(args: argparse.Namespace) -> int:
    from slicereview.app.qa.claiming import next_image

    with open_project(args.project) as project:
        batch = project.workflow.batch_by_name(args.batch)
        if batch is None:
            raise ValueError(f"no batch named {args.batch!r} in this project")
        image_id = next_image(project, _rater(project, args.annotator, "annotator"), batch.id)
        if image_id is None:
            claimed, total = project.slots.counts(batch.id)
            print(f"nothing left for {args.annotator} in batch {args.batch} ({claimed} of "
                  f"{total} slots claimed)")
            return 1
        image = project.images.get(image_id)
        print(f"{image.case_id}\t{image.path}")
    return 0


def cmd_gold(args: argparse.Namespace) -> int:
    from slicereview.app.qa.workflow import import_gold_mask, mark_gold

    with open_project(args.project) as project:
        [image] = _cases(project, [args.case])
        if args.mask is not None:
            import_gold_mask(project, image, args.mask)
        else:
            if project.annotations.get(args.annotation).image_id != image:
                raise ValueError(f"annotation {args.annotation} is not on {args.case}")
            mark_gold(project, args.annotation)
    print(f"gold set for {args.case}")
    return 0


def cmd_onboarding(args: argparse.Namespace) -> int:
    from slicereview.app.qa.workflow import decide, prefilter, score_pending

    with open_project(args.project) as project:
        batch = project.workflow.batch_by_name(args.batch)
        if batch is None:
            raise ValueError(f"no batch named {args.batch!r}")
        if args.decide:
            go_on = True if args.go_on else False if args.stop else None
            decide(project, batch.id, _rater(project, args.decide, "annotator"),
                   _rater(project, args.owner, "owner (--owner)"), go_on, args.reason)
        score_pending(project)
        latest = {q.rater_id: q for q in project.workflow.qualifications(batch_id=batch.id)}
        print(f"{'annotator':<16} {'scored':>6} {'mean Dice':>9}  pre-filter  decision")
        for row in prefilter(project, batch.id):
            dice = "–" if row.mean_dice is None else f"{row.mean_dice:.3f}"
            verdict = {True: "passes", False: "fails", None: "–"}[row.passes]
            q = latest.get(row.rater_id)
            said = "not decided" if q is None else ("go on" if q.go_on else "stop") + (
                f" ({q.reason})" if q.reason else "")
            print(f"{project.raters.get(row.rater_id).name:<16} {row.scored:>6} {dice:>9}  "
                  f"{verdict:<10}  {said}")
    print(f"Mean Dice: relaxed ROI against gold; pre-filter ≥ {batch.min_dice}.")
    return 0


def cmd_guidelines(args: argparse.Namespace) -> int:
    from slicereview.app.qa.guidelines import edit_guidelines, guideline_changes

    with open_project(args.project) as project:
        if args.edit is not None:
            version = edit_guidelines(project, _rater(project, args.owner, "owner (--owner)"),
                                      args.edit.read_text(encoding="utf-8"))
            print(f"guidelines version {version}")
        elif args.changes is not None:
            news = guideline_changes(project, _rater(project, args.changes, "annotator"))
            print(news.diff if news.changed else
                  f"no change since version {news.last_seen}" if news.version else
                  "no guidelines yet")
        else:
            current = project.guidelines.get()
            print("no guidelines yet" if current is None else
                  f"<!-- version {current[0]} -->\n{current[1]}")
    return 0
