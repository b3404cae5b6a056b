"""``slicereview report PROJECT --out report.html``: the owner's report as one stand-alone HTML
file (see :mod:`slicereview.app.report.owner_report`). The application layer (numpy, scipy,
matplotlib) is imported in the handler."""

from __future__ import annotations

import argparse
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write the owner's QA report (stand-alone HTML)")
    add_project_argument(p)
    p.add_argument("--out", type=Path, required=True, metavar="report.html",
                   help="the HTML file to write (stand-alone: plots embedded)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--group", help="agreement over the annotators of this group only")
    who.add_argument("--without-group", metavar="GROUP",
                     help="agreement over every annotator except this group")
    who.add_argument("--annotators", metavar="A,B",
                     help="agreement over these annotators only (names, comma separated)")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from slicereview.app.report.owner_report import write_report
    from slicereview.cli._common import ProgressBar
    from slicereview.model import Role

    with open_project(args.project) as project:
        annotators = [r for r in project.raters.all()
                      if r.role is Role.ANNOTATOR and not r.is_model]
        raters, subset = None, "all annotators"
        if args.group is not None:
            raters = [r.id for r in annotators if r.group == args.group]
            subset = f"group {args.group}"
        elif args.without_group is not None:
            raters = [r.id for r in annotators if r.group != args.without_group]
            subset = f"all annotators except group {args.without_group}"
        elif args.annotators is not None:
            names = [n.strip() for n in args.annotators.split(",") if n.strip()]
            found = {n: project.raters.by_name(n) for n in names}
            unknown = [n for n, rater in found.items() if rater is None]
            if unknown:
                raise ValueError(f"no annotator named {', '.join(unknown)} in this project")
            raters = [rater.id for rater in found.values() if rater is not None]
            subset = "annotators " + ", ".join(names)
        if raters is not None and len(raters) < 2:
            raise ValueError(f"agreement needs two annotators; {subset} has {len(raters)}")
        out = write_report(project, args.out, raters, ProgressBar("report"), subset)
    print(f"wrote {out}")
    return 0
