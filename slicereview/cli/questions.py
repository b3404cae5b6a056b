"""``slicereview questions list|add|remove|restore|export|import PROJECT``: the project's
classification questions (rules in :mod:`slicereview.app.qa.questions`, imported in the handlers).

``remove`` retires a question: it is no longer asked and every answer stored under its key
stays (``restore`` asks it again). Nested dropdown choices are paths: ``--choice "Mass >
Round"``. ``export``/``import`` write and read the JSON the Owner ▸ Questions… dialog uses too.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from slicereview.cli._common import add_project_argument, open_project
from slicereview.store import Project

_KINDS = ("radio", "checklist", "text", "dropdown")


def register(sub: argparse._SubParsersAction) -> None:
    top = sub.add_parser("questions", help="list, add, retire, export or import the project's "
                                           "classification questions")
    acts = top.add_subparsers(dest="action", metavar="ACTION", required=True)

    p = acts.add_parser("list", help="the questions in their order (retired ones marked)")
    add_project_argument(p)
    p.add_argument("--json", action="store_true", help="print the export JSON instead")
    p.set_defaults(func=cmd_list)

    p = acts.add_parser("add", help="add a question at the end of the list")
    add_project_argument(p)
    p.add_argument("key", help="the name answers are stored under (letters, digits, _ - .; "
                               "never changes)")
    p.add_argument("--kind", required=True, choices=_KINDS, help="how it is answered")
    p.add_argument("--scope", default="image", choices=("image", "polygon"),
                   help="asked once per image (default) or for each polygon")
    p.add_argument("--title", default="", help="what the annotator reads (default: the key)")
    p.add_argument("--choice", action="append", default=[], metavar="TEXT",
                   help="a choice (repeat for each; 'Parent > Child' nests a dropdown's)")
    p.set_defaults(func=cmd_add)

    for name, what in (("remove", "retire a question: no longer asked, its stored answers "
                                  "stay"),
                       ("restore", "ask a retired question again")):
        p = acts.add_parser(name, help=what)
        add_project_argument(p)
        p.add_argument("key", help="the question's key")
        p.set_defaults(func=cmd_retire, retire=name == "remove")

    p = acts.add_parser("export", help="write every question (retired ones too) as JSON")
    add_project_argument(p)
    p.add_argument("out", type=Path, help="the JSON file to write")
    p.set_defaults(func=cmd_export)

    p = acts.add_parser("import", help="add and update questions from a JSON file (all or "
                                       "nothing)")
    add_project_argument(p)
    p.add_argument("file", type=Path, help="JSON written by `questions export` (or by hand)")
    p.set_defaults(func=cmd_import)



def _find(project: Project, key: str):
    found = project.questions.by_name(key)
    if found is None:
        raise ValueError(f"no question with the key {key!r} in this project")
    return found


def cmd_list(args: argparse.Namespace) -> int:
    from slicereview.app.qa.questions import answered, choices_text, export_questions

    with open_project(args.project) as project:
        if args.json:
            print(json.dumps(export_questions(project), indent=2, ensure_ascii=False))
            return 0
        questions = project.questions.all(retired=True)
        counts = {q.id: answered(project, q) for q in questions}
    if not questions:
        print("no questions yet: add one with `slicereview questions add`")
        return 0
    rows = [("#", "key", "scope", "kind", "answered", "state", "title")]
    rows += [(str(k), q.name, q.scope, q.kind, str(counts[q.id]),
              "retired" if q.retired else "asked", q.title)
             for k, q in enumerate(questions, 1)]
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
    for k, row in enumerate(rows):
        print("  ".join(f"{v:<{w}}" for v, w in zip(row, widths, strict=False)) + "  " + row[-1])
        if k and questions[k - 1].options:
            choices = choices_text(questions[k - 1].options)
            print("\n".join(" " * (widths[0] + 2) + "· " + line for line in
                            choices.splitlines()))
    print("answered: annotations (image questions) or polygons (polygon questions) holding an "
          "answer")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from slicereview.app.qa.questions import add_question, choices_from_paths

    with open_project(args.project) as project:
        add_question(project, args.key, args.title, args.kind, args.scope,
                     choices_from_paths(args.choice))
    print(f"question {args.key!r} added ({args.scope}, {args.kind})")
    return 0


def cmd_retire(args: argparse.Namespace) -> int:
    from slicereview.app.qa.questions import answered, restore_question, retire_question

    with open_project(args.project) as project:
        q = _find(project, args.key)
        (retire_question if args.retire else restore_question)(project, q.id)
        n = answered(project, q)
    if args.retire:
        print(f"question {args.key!r} retired: no longer asked; its {n} stored answer(s) stay")
    else:
        print(f"question {args.key!r} asked again ({n} stored answer(s))")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from slicereview.app.qa.questions import write_questions

    with open_project(args.project) as project:
        write_questions(project, args.out)
        n = len(project.questions.all(retired=True))
    print(f"{n} question(s) written to {args.out}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from slicereview.app.qa.questions import read_questions

    if not args.file.is_file():
        raise FileNotFoundError(f"no questions file {args.file}")
    with open_project(args.project) as project:
        report = read_questions(project, args.file)
    print(f"imported {args.file.name}: {report.text}")
    return 0
