"""People and repeats from the command line (rules in :mod:`slicereview.app.people` and
:mod:`slicereview.app.qa.repeats`, imported in the handlers):

* ``people list PROJECT`` — name, role, group, simulated (and, on a server, login);
* ``people add PROJECT NAME [--role annotator|reviewer|owner] [--group G]``;
* ``people remove URL NAME`` — on a server: take the person's login away (their work stays);
* ``people group PROJECT GROUP NAME…`` — put annotators in a group (``--none``: in no group);
* ``repeats schedule PROJECT --batch B [--percent 5] [--seed 0]`` — every annotator of the
  batch annotates a seeded share of it a second time, blind, after the batch;
* ``repeats list PROJECT --batch B`` — each annotator's repeats to do and done.
"""

from __future__ import annotations

import argparse
import sys

from slicereview.cli._common import add_project_argument, open_project
from slicereview.store import Project


def _project_arg(p: argparse.ArgumentParser) -> None:
    add_project_argument(p)


def register(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("people", help="list, add or remove people (logins on a server); "
                                        "put annotators in groups")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = acts.add_parser("list", help="everyone in the project with role and group")
    _project_arg(p)
    p.set_defaults(func=cmd_list)
    p = acts.add_parser("add", help="add a person (an existing name with the same role is "
                                    "kept)")
    _project_arg(p)
    p.add_argument("name", help="the person's name (unique in the project)")
    p.add_argument("--role", default="annotator", choices=("annotator", "reviewer", "owner"),
                   help="what they do (default annotator)")
    p.add_argument("--group", help="an annotator's group")
    p.add_argument("--no-login", action="store_true",
                   help="on a server project: do not make a login for them (by default the "
                        "person gets a PostgreSQL login of their name, whose one-time "
                        "password is printed; docs/server.md)")
    p.set_defaults(func=cmd_add)
    p = acts.add_parser("remove", help="on a server project: remove a person's login (their "
                                       "rater row and finished work stay; docs/server.md)")
    _project_arg(p)
    p.add_argument("name", help="the person's name")
    p.set_defaults(func=cmd_remove)
    p = acts.add_parser("group", help="put annotators in a group (batches can be assigned to "
                                      "a whole group)")
    _project_arg(p)
    p.add_argument("group", nargs="?", help="the group's name")
    p.add_argument("names", nargs="+", metavar="NAME", help="annotators to put in it")
    p.add_argument("--none", action="store_true",
                   help="take the annotators out of any group (give no GROUP)")
    p.set_defaults(func=cmd_group)

    top = sub.add_parser("repeats", help="schedule or list repeats (a blind second pass, for "
                                         "intra-rater agreement)")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = acts.add_parser("schedule", help="every annotator of a batch annotates a share of it "
                                         "again")
    _project_arg(p)
    p.add_argument("--batch", required=True, help="the batch's name")
    p.add_argument("--percent", type=float, default=5.0,
                   help="share of the batch per annotator, in %% (default 5; at least one "
                        "image)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the draw: the same seed picks the same images (default 0)")
    p.set_defaults(func=cmd_schedule)
    p = acts.add_parser("list", help="each annotator's repeats of a batch: to do and done")
    _project_arg(p)
    p.add_argument("--batch", required=True, help="the batch's name")
    p.set_defaults(func=cmd_repeats)



def cmd_list(args: argparse.Namespace) -> int:
    from slicereview.app.models.raters import people
    from slicereview.app.people import logins

    with open_project(args.project) as project:  # (models: `slicereview models list`)
        raters = people(project.raters.all())
        login = logins(project)
    rows = [("name", "role", "group", "simulated") + (("login",) if login is not None else ())]
    rows += [(r.name, str(r.role), r.group or "–", "yes" if r.simulated else "")
             + (() if login is None else ("yes" if login[r.id] else "no",))
             for r in sorted(raters, key=lambda r: (str(r.role), r.name.lower()))]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for row in rows:
        print("  ".join(f"{v:<{w}}" for v, w in zip(row, widths, strict=True)).rstrip())
    if login is None:
        print("(a project file has no logins: people work in the file or in a work package)",
              file=sys.stderr)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from slicereview.app.people import remove_login

    with open_project(args.project) as project:
        removed = remove_login(project, args.name)
    name = args.name.strip()
    print({"dropped": f"{name}: login removed (the server has it no more: it cannot connect)",
           "kept": f"{name}: login removed from this project (another project on this server "
                   "still uses it, so it can still connect there)",
           "none": f"{name} had no login"}[removed.login])
    print(f"{name}'s rater row and finished work stay in the project (reports count them)"
          + (f"; {removed.released} unfinished claim(s) handed back for others"
             if removed.released else ""))
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from slicereview.app.people import add_person, set_group
    from slicereview.model import Role

    login, password = False, None
    with open_project(args.project) as project:
        if project.is_server and not args.no_login:
            from slicereview.app.people import add_login

            rater, password = add_login(project, args.name, Role(args.role))
            login = True
        else:
            rater = add_person(project, args.name, Role(args.role))
        if args.group:
            set_group(project, [rater], args.group)
    article = "an" if str(args.role)[0] in "aeiou" else "a"
    print(f"{args.name.strip()} is {article} {args.role}" + (f" in group {args.group.strip()}"
                                                            if args.group else ""))
    if password is not None:
        print(f"login {args.name.strip()!r}, password (shown once, not stored): {password}")
    elif login:
        print(f"login {args.name.strip()!r} exists on this server: it keeps its password")
    return 0


def cmd_group(args: argparse.Namespace) -> int:
    from slicereview.app.people import person, set_group

    names = list(args.names)
    if args.none:
        if args.group is not None:
            names.insert(0, args.group)
        group = None
    elif args.group is None:
        raise ValueError("give the group's name (or --none)")
    else:
        group = args.group
    with open_project(args.project) as project:
        set_group(project, [person(project, n).id for n in names], group)
    print(f"{', '.join(names)}: " + (f"group {group.strip()}" if group else "in no group"))
    return 0


def _batch(project: Project, name: str):
    batch = project.workflow.batch_by_name(name)
    if batch is None:
        raise ValueError(f"no batch named {name!r} in this project")
    return batch


def cmd_schedule(args: argparse.Namespace) -> int:
    from slicereview.app.qa.repeats import schedule_batch_repeats

    if not 0 < args.percent <= 100:
        raise ValueError(f"--percent is a share in % (0 to 100], got {args.percent}")
    with open_project(args.project) as project:
        batch = _batch(project, args.batch)
        out = schedule_batch_repeats(project, batch.id, args.percent / 100.0, args.seed)
        names = {r.id: r.name for r in project.raters.all()}
    print(f"repeats of batch {batch.name} ({args.percent:g} %, seed {args.seed}):")
    for rater, n in out.items():
        print(f"  {names[rater]}: {n} image(s)")
    return 0


def cmd_repeats(args: argparse.Namespace) -> int:
    from slicereview.app.qa.repeats import batch_repeat_progress

    with open_project(args.project) as project:
        batch = _batch(project, args.batch)
        counts = batch_repeat_progress(project, batch.id)
        names = {r.id: r.name for r in project.raters.all()}
    if not counts:
        print(f"batch {batch.name} has no annotators")
    for rater, (todo, done) in counts.items():
        print(f"{names[rater]}: {todo} to do, {done} done")
    return 0
