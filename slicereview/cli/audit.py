"""The review queue's audit slots and the batches' selection orders from the command line
(rules in :mod:`slicereview.app.review.audit` and :mod:`slicereview.app.qa.selection`):

* ``audit set PROJECT --share 0.05 [--seed N] --owner NAME`` (``--share 0``: off);
* ``audit show PROJECT [--method M] [--k 20] [queue filters]`` prints the queue's live P@k,
  the base rate from the audit and R@k, each with its interval, and the audit members;
* ``selection PROJECT --batch B`` prints the batch's selection order with each image's score;
  ``--order batch|random|uncertainty|disagreement [--rater NAME] [--seed N] --owner NAME``
  sets it; ``--refresh NAME`` stores a new snapshot of it (what annotators' server logins
  claim by).
"""

from __future__ import annotations

import argparse
import math

from slicereview.cli._common import add_project_argument, open_project
from slicereview.cli.review import _METHODS, _compute, _selection_args, _spec
from slicereview.store import Project


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="random audit slots of the review queue, and the "
                       "queue's live precision they measure")
    what = p.add_subparsers(dest="audit_command", metavar="set|show", required=True)
    s = what.add_parser("set", help="set the share of the queue's slots drawn at random")
    add_project_argument(s)
    s.add_argument("--share", type=float, required=True,
                   help="share of the review slots (0.05: one in 20; 0: no audit; at most 0.5)")
    s.add_argument("--seed", type=int, help="the draw's seed (default: keep the stored one, "
                   "or draw one at random)")
    s.add_argument("--owner", required=True, help="the task owner's name")
    s.set_defaults(func=cmd_audit_set)
    s = what.add_parser("show", help="the queue's live P@k, base rate and R@k, with intervals")
    _selection_args(s)
    s.add_argument("--method", default="box-score", choices=_METHODS,
                   help="the priority method whose top k is graded (default box-score)")
    s.add_argument("--k", type=int, default=20, help="the cut-off (default 20, the budget)")
    s.set_defaults(func=cmd_audit_show)

    p = sub.add_parser("selection", help="the order in which a batch hands out its images "
                       "(claims, packages): show it, or set it with --order")
    add_project_argument(p)
    p.add_argument("--batch", required=True, help="the batch's name")
    p.add_argument("--order", choices=("batch", "random", "uncertainty", "disagreement"),
                   help="set this order (docs/qa-process.md, 'Active selection')")
    p.add_argument("--rater", help="uncertainty: whose stored work is read: a model's "
                   "NAME@VERSION (or NAME), or any rater's name")
    p.add_argument("--seed", type=int, default=0, help="random: the permutation's seed")
    p.add_argument("--owner", help="the task owner's name (needed with --order)")
    p.add_argument("--refresh", metavar="NAME",
                   help="store a new snapshot of the order, computed now by NAME (an owner or "
                        "a reviewer): what annotators' server logins claim by")
    p.set_defaults(func=cmd_selection)


def _rater(project: Project, name: str, what: str) -> int:
    rater = project.raters.by_name(name)
    if rater is None:
        raise ValueError(f"no rater named {name!r} in this project ({what})")
    return rater.id


def _work_of(project: Project, text: str) -> int:
    """``--rater``: a rater's name, or a model's label ``NAME@VERSION`` (or its ``NAME`` when
    one version exists)."""
    found = project.raters.by_name(text)
    if found is not None:
        return found.id
    from slicereview.app.models.raters import find_model

    try:
        return find_model(project, text).id
    except LookupError as exc:
        why = str(exc.args[0] if exc.args else exc)
        raise ValueError(f"no rater named {text!r} in this project, and {why[:1].lower()}"
                         f"{why[1:]}") from None


def cmd_audit_set(args: argparse.Namespace) -> int:
    from slicereview.app.review.audit import set_audit

    with open_project(args.project) as project:
        chosen = set_audit(project, _rater(project, args.owner, "--owner"), args.share,
                           args.seed)
    if chosen is None:
        print("audit off: the review queue shows the method's order only")
    else:
        size = chosen.block
        print(f"audit on: one review slot in {size} ({100 / size:.3g} %) shows an image drawn "
              f"at random from the whole queue (seed {chosen.seed})")
    return 0


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f} %"


def cmd_audit_show(args: argparse.Namespace) -> int:
    from slicereview.app.review.audit import audit_estimate, audit_members, reviewed_findings

    with open_project(args.project) as project:  # (it caches the features it computes)
        spec = _spec(project, args, args.method)
        result = _compute(project, spec, args.workers)
        e = audit_estimate(project, spec, args.k, result)
        found = reviewed_findings(project, result)
        listed = audit_members(project, spec, result)
    cases = result.cases
    level = f"{100 * e.confidence:g} %"
    print(f"{e.population} images in the queue ({spec.method}, {spec.phase}); "
          f"{e.members} audit members")
    print(f"P@{e.k} of {spec.method}: {_pct(e.precision.value)} "
          f"({e.precision.relevant} of {e.precision.reviewed} reviewed needed review; "
          f"{level} Wilson {_pct(e.precision.low)} .. {_pct(e.precision.high)})")
    print(f"base rate (audit, a random queue's P@k): {_pct(e.base_rate.value)} "
          f"({e.base_rate.relevant} of {e.base_rate.reviewed} reviewed members; "
          f"{level} Wilson {_pct(e.base_rate.low)} .. {_pct(e.base_rate.high)})")
    lift = "n/a" if math.isnan(e.lift) else f"{e.lift:.2f}x"
    print(f"lift of the queue over random: {lift}")
    print(f"R@{e.k} (stratified: top {e.k} and the rest, the rest's rate from "
          f"{e.rest.reviewed} reviewed members): {_pct(e.recall)} "
          f"(≥ {level} Bonferroni-Wilson {_pct(e.recall_low)} .. {_pct(e.recall_high)})")
    shown = [f"{cases[i][0]} ({'needed review' if found[i] else 'fine'})" if i in found
             else f"{cases[i][0]} (not reviewed)" for i in listed]
    print("audit members: " + (", ".join(shown) if shown else "none yet"))
    return 0


def cmd_selection(args: argparse.Namespace) -> int:
    from slicereview.app.qa.selection import (
        order_of,
        ordered_images,
        refresh_order,
        scores,
        set_order,
        snapshot,
    )

    with open_project(args.project) as project:  # (it caches the scores it computes)
        batch = project.workflow.batch_by_name(args.batch)
        if batch is None:
            raise ValueError(f"no batch named {args.batch!r} in this project")
        if args.order is not None:
            if args.owner is None:
                raise ValueError("setting a selection order needs --owner (the task owner)")
            rater = _work_of(project, args.rater) if args.rater else None
            set_order(project, _rater(project, args.owner, "--owner"), batch.id, args.order,
                      rater, args.seed)
        if args.refresh is not None:
            refresh_order(project, _rater(project, args.refresh, "--refresh"), batch.id)
        chosen = order_of(project, batch.id)
        order = ordered_images(project, batch.id, chosen)
        taken_at = snapshot(project, batch.id)[1]
        score = scores(project, batch.id, chosen)
        cases = project.images.cases(order)
        print(f"batch {batch.name}: {chosen.describe(project)}"
              + (f" (snapshot for annotators' server logins: {taken_at})" if taken_at
                 and chosen.order in ("uncertainty", "disagreement") else ""))
        unscored = ("  (not annotated by them: after the others)"
                    if chosen.order == "uncertainty" else "")
        if chosen.order == "uncertainty" and not score:
            print("no stored work of theirs on this batch's images: the batch's order")
        for rank, image_id in enumerate(order, start=1):
            value = score.get(image_id)
            text = (unscored if value is None else "  (fewer than 2 finished annotations)"
                    if math.isinf(value) else f"  {value:.4f}")
            print(f"{rank:>4}  {cases[image_id][0]}{text}")
    return 0
