"""``slicereview review show|accept|reject|expert|comment PROJECT --case C …``: review decisions
and pinned comments from a terminal (rules in :mod:`slicereview.app.review.decisions`, imported
in the handlers).

* ``show`` lists the image's finished annotations the queue compares (each annotator's latest
  finished round), with round, edit stamp, polygons (by tool, and how many were edited) and
  the decision in force;
* ``accept``/``reject``/``expert`` decide on one annotator's annotation (``--annotator``; a
  rejection needs ``--reason`` or ``--text``); ``--seen STAMP`` (the edit stamp ``show``
  printed) refuses the decision when the annotation changed since — what the Review tab does;
* ``comment`` pins a comment to a box (``--box ROW0,COL0,ROW1,COL1``) or a point
  (``--point X,Y``), in image pixels: on one annotator's annotation (``--annotator``; it goes
  back to them with a rejection), or on the image (for reviewers and owners; with
  ``--for-everyone``, an owner's, every annotator reads it);
* ``for-everyone`` marks pin ``--pin K`` (as ``show`` numbers them) of an image for everyone
  (``--off``: for reviewers and owners again), the owner's (``--owner NAME``).

The reviewer is a rater with the reviewer role (``--reviewer NAME``; ``people add NAME --role
reviewer`` adds one); an owner may comment too.
"""

from __future__ import annotations

import argparse

from slicereview.cli._common import add_project_argument, open_project
from slicereview.store import Project

_DECISIONS = {"accept": "accept", "reject": "reject", "expert": "expert_review"}


def _common(p: argparse.ArgumentParser) -> None:
    add_project_argument(p)
    p.add_argument("--case", required=True, help="the image's case id (C000001)")
    p.add_argument("--phase", default="formal", choices=("onboarding", "pilot", "formal"),
                   help="the phase of the annotations (default formal)")


def register(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("review", help="show an image's annotations; accept, reject, send to "
                                        "an expert or pin a comment")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = acts.add_parser("show", help="the image's annotations with edit stamps and decisions")
    _common(p)
    p.set_defaults(func=cmd_show)
    for name, what in (("accept", "accept an annotator's annotation"),
                       ("reject", "reject it (needs --reason or --text): it goes back to "
                                  "the annotator"),
                       ("expert", "send it to expert review")):
        p = acts.add_parser(name, help=what)
        _common(p)
        p.add_argument("--reviewer", required=True, help="who decides (a reviewer's name)")
        p.add_argument("--annotator", required=True, help="whose annotation (name)")
        p.add_argument("--round", type=int, help="the round (default: their latest finished)")
        p.add_argument("--reason", action="append", default=[], metavar="TAG",
                       help="a reason tag (repeat for more), e.g. 'missed finding'")
        p.add_argument("--text", default="", help="a comment for the annotator")
        p.add_argument("--seen", metavar="STAMP",
                       help="the edit stamp `review show` printed: refuse if it changed since")
        p.set_defaults(func=cmd_decide, decision=_DECISIONS[name])
    p = acts.add_parser("comment", help="pin a comment to a box or a point of the image")
    _common(p)
    p.add_argument("--reviewer", required=True,
                   help="who comments (a reviewer's name, or an owner's)")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--box", metavar="ROW0,COL0,ROW1,COL1", help="a box in image pixels")
    where.add_argument("--point", metavar="X,Y", help="a point in image pixels")
    p.add_argument("--text", default="", help="the comment")
    p.add_argument("--reason", action="append", default=[], metavar="TAG",
                   help="a reason tag (repeat for more)")
    whose = p.add_mutually_exclusive_group()
    whose.add_argument("--annotator", help="on this annotator's annotation (their latest "
                                           "finished round): it goes back to them with a "
                                           "rejection")
    whose.add_argument("--for-everyone", action="store_true",
                       help="on the image, for every annotator too (the owner's)")
    p.set_defaults(func=cmd_comment)
    p = acts.add_parser("for-everyone", help="mark an image pin for everyone (the owner's)")
    _common(p)
    p.add_argument("--pin", type=int, required=True, metavar="K",
                   help="the pin's number, as `review show` lists them")
    p.add_argument("--owner", required=True, help="who marks it (an owner's name)")
    p.add_argument("--off", action="store_true",
                   help="for reviewers and owners only again")
    p.set_defaults(func=cmd_for_everyone)



def _image(project: Project, case: str) -> int:
    for image_id, (case_id, _, _) in project.images.cases().items():
        if case_id == case:
            return image_id
    raise ValueError(f"no image with case id {case} in this project")


def _reviewer(project: Project, name: str, *, owner_too: bool = False) -> int:
    from slicereview.app.people import person
    from slicereview.model import Role

    rater = person(project, name)
    if rater.role is not Role.REVIEWER and not (owner_too and rater.role is Role.OWNER):
        raise ValueError(f"{rater.name} is a {rater.role}, not a reviewer (`slicereview people "
                         f"add PROJECT NAME --role reviewer` adds one)")
    return rater.id


def _numbers(text: str, n: int, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != n:
        raise ValueError(f"{what} is {n} numbers separated by commas, got {text!r}")
    return values


def cmd_show(args: argparse.Namespace) -> int:
    from slicereview.app.annotating import tool_summary
    from slicereview.app.review.decisions import DECISION_WORDS
    from slicereview.app.review.queue import FINISHED

    with open_project(args.project) as project:
        image = _image(project, args.case)
        latest = {}
        for ann in project.annotations.all(image_id=image, phase=args.phase, status=FINISHED):
            latest[ann.rater_id] = ann
        decided = project.reviews.current_decisions([a.id for a in latest.values()])
        rows = [(project.raters.get(a.rater_id).name, str(a.round), str(a.status), a.updated_at,
                 tool_summary(project.polygons.of(a.id)), _said(decided.get(a.id),
                                                                DECISION_WORDS))
                for a in latest.values()]
        pins = [f"pin {k} ({pin.pin_kind} {', '.join(f'{v:g}' for v in pin.pin_at)}; "
                f"{_readers(project, pin)}): {'; '.join([*pin.tags, pin.comment]).strip('; ')}"
                for k, pin in enumerate(
                    (r for r in project.reviews.all(image_id=image) if r.is_pin), 1)]
    if not rows:
        print(f"{args.case}: no finished annotation in the {args.phase} phase")
        return 0
    head = ("annotator", "round", "status", "edit stamp (--seen)", "polygons", "decision")
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(5)]
    for row in [head, *rows]:
        print("  ".join(f"{v:<{w}}" for v, w in zip(row, widths, strict=False)) + "  " + row[5])
    for line in pins:
        print(line)
    return 0


def _readers(project: Project, pin) -> str:
    """Who reads a pin, in words."""
    if pin.annotation_id is not None:
        ann = project.annotations.get(pin.annotation_id)
        return f"on {project.raters.get(ann.rater_id).name}'s round {ann.round}"
    return "for everyone" if pin.for_everyone else "for reviewers and owners"


def _said(review, words: dict[str, str]) -> str:
    if review is None:
        return "–"
    return words[str(review.decision)] + "".join(f": {t}" for t in [", ".join(
        [*review.tags, *([review.comment] if review.comment else [])])] if t)


def cmd_decide(args: argparse.Namespace) -> int:
    from slicereview.app.people import person
    from slicereview.app.review.decisions import DECISION_WORDS, annotation_to_review, decide

    with open_project(args.project) as project:
        image = _image(project, args.case)
        reviewer = _reviewer(project, args.reviewer)
        annotator = person(project, args.annotator)
        ann = annotation_to_review(project, image, annotator.id, args.phase, args.round)
        decide(project, reviewer, ann.id, args.decision, args.reason, args.text,
               shown=args.seen)
    print(f"{args.case}: {annotator.name}'s annotation (round {ann.round}) "
          f"{DECISION_WORDS[args.decision]}")
    return 0


def cmd_comment(args: argparse.Namespace) -> int:
    from slicereview.app.people import person
    from slicereview.app.review.decisions import annotation_to_review, pin

    with open_project(args.project) as project:
        image = _image(project, args.case)
        reviewer = _reviewer(project, args.reviewer, owner_too=True)
        on = None
        if args.annotator is not None:
            on = annotation_to_review(project, image, person(project, args.annotator).id,
                                      args.phase)
        where: dict = ({"box": _numbers(args.box, 4, "--box")} if args.box is not None
                       else {"point": _numbers(args.point, 2, "--point")})
        pin(project, reviewer, image, text=args.text, tags=args.reason,
            annotation_id=None if on is None else on.id, for_everyone=args.for_everyone,
            **where)
    readers = (f"on {args.annotator}'s round {on.round}" if on is not None
               else "for everyone" if args.for_everyone else "for reviewers and owners")
    print(f"{args.case}: comment pinned ({readers})")
    return 0


def cmd_for_everyone(args: argparse.Namespace) -> int:
    from slicereview.app.people import person
    from slicereview.app.review.decisions import set_for_everyone

    with open_project(args.project) as project:
        image = _image(project, args.case)
        pins = [r for r in project.reviews.all(image_id=image) if r.is_pin]
        if not 1 <= args.pin <= len(pins):
            raise ValueError(f"{args.case} has {len(pins)} pin(s); `slicereview review show` "
                             "lists them with their numbers")
        set_for_everyone(project, person(project, args.owner).id, pins[args.pin - 1].id,
                         not args.off)
    print(f"{args.case}: pin {args.pin} is for "
          f"{'reviewers and owners' if args.off else 'everyone'}")
    return 0
