"""The project's classification questions, as the task owner defines them: the rules, held once.

A question has a **key** (the name its answers are stored under in an annotation's or a
polygon's classification JSON), a title (what the annotator reads), a **scope** — ``image``
(answered once per image, "global") or ``polygon`` (per polygon) — a **kind** (``radio``,
``checklist``, ``text`` or ``dropdown``) and **choices**: a list of texts, for a dropdown a
nested tree (a choice may hold choices: ``Calcification ▸ Punctate``).

Rules:

* **a key is for good** — it starts with a letter and holds letters, digits, ``_``, ``-`` or
  ``.``; it is unique and never changes (stored answers are found by it);
* **choices** — radio, checklist and dropdown need at least one; text has none; choices are
  non-empty and differ from their siblings; only a dropdown nests;
* **answered questions keep their meaning** — once any annotation answers a question, its
  scope and kind stay (the stored answers are read by them); its title, choices and place in
  the list may change. To ask something else, retire it and add a new question;
* **retiring keeps the answers** — a retired question is no longer asked (the Annotate tab
  leaves it out), its stored answers stay and come back if it is restored; nothing is deleted;
* **export / import** — JSON (:func:`export_questions`, :func:`import_questions`): importing
  checks the whole file first, then adds the new keys and updates the known ones, in one
  transaction; questions the file does not name are left as they are.

Choices as text (the Owner ▸ Questions… dialog): one per line, a child indented under its
parent (:func:`parse_choices`, :func:`choices_text`); on the command line a child is written
as a path, ``"Calcification > Punctate"`` (:func:`choices_from_paths`).

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> tree = choices_from_paths(["Calcification > Punctate", "Calcification > Vascular", "Mass"])
>>> kind = add_question(project, "kind", "Kind of region", "dropdown", "polygon", tree)
>>> print(choices_text(project.questions.get(kind).options))
Calcification
  Punctate
  Vascular
Mass
>>> retire_question(project, kind)
>>> [q.name for q in project.questions.all()], [q.name for q in project.questions.all(retired=True)]
([], ['kind'])
>>> project.close()
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slicereview.model import Question
from slicereview.store import Project

KINDS = ("radio", "checklist", "text", "dropdown")
SCOPES = ("image", "polygon")
#: Version of the JSON of :func:`export_questions`.
FORMAT = 1
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")
_INDENT = "  "


# -- choices ---------------------------------------------------------------------------------
def _node(option: object) -> tuple[str, list]:
    if isinstance(option, dict):
        return str(option.get("value", "")), list(option.get("children") or [])
    return str(option), []


def check_choices(kind: str, choices: Sequence[Any]) -> None:
    """Raise ``ValueError`` (one sentence) when ``choices`` do not fit ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"A question is one of {', '.join(KINDS)}, not {kind!r}.")
    if kind == "text":
        if choices:
            raise ValueError("A text question has no choices.")
        return
    if not choices:
        raise ValueError(f"A {kind} question needs at least one choice.")

    def walk(level: Sequence[Any], where: str) -> None:
        seen: set[str] = set()
        for option in level:
            if not isinstance(option, (str, dict)):
                raise ValueError(f"A choice is a text{' or a nested choice' * (kind == 'dropdown')}"
                                 f", not {option!r}.")
            value, children = _node(option)
            if not value.strip():
                raise ValueError(f"An empty choice{where}: give every choice a text.")
            if value in seen:
                raise ValueError(f"The choice {value!r}{where} is there twice.")
            seen.add(value)
            if children and kind != "dropdown":
                raise ValueError(f"Only a dropdown nests choices ({value!r} holds some).")
            walk(children, f" under {value!r}")

    walk(choices, "")


def parse_choices(text: str) -> list:
    """Choices from text: one per line, a child indented (spaces or tabs) under its parent;
    blank lines are skipped.

    >>> parse_choices("A\\n  A1\\n  A2\\nB")
    [{'value': 'A', 'children': ['A1', 'A2']}, 'B']
    """
    root: list[dict[str, Any]] = []
    open_: list[tuple[int, list[dict[str, Any]]]] = [(-1, root)]
    for line in text.expandtabs(2).splitlines():
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip(" "))
        while open_[-1][0] >= depth:
            open_.pop()
        node: dict[str, Any] = {"value": line.strip(), "children": []}
        open_[-1][1].append(node)
        open_.append((depth, node["children"]))
    return _plain(root)


def _plain(level: Sequence[Any]) -> list:
    """Nodes without children as plain texts (the stored form)."""
    out: list = []
    for option in level:
        value, children = _node(option)
        out.append({"value": value, "children": _plain(children)} if children else value)
    return out


def choices_text(choices: Sequence[Any], depth: int = 0) -> str:
    """The inverse of :func:`parse_choices` (two spaces per level)."""
    lines = []
    for option in choices:
        value, children = _node(option)
        lines.append(_INDENT * depth + value)
        if children:
            lines.append(choices_text(children, depth + 1))
    return "\n".join(lines)


def choices_from_paths(paths: Sequence[str]) -> list:
    """Choices from paths such as ``"Calcification > Punctate"`` (``>`` nests).

    >>> choices_from_paths(["A > A1", "B", "A > A2"])
    [{'value': 'A', 'children': ['A1', 'A2']}, 'B']
    """
    root: list = []
    seen: set[tuple[str, ...]] = set()
    for path in paths:
        level = root
        parts = [p.strip() for p in path.split(">")]
        if tuple(parts) in seen:
            raise ValueError(f"The choice {' > '.join(parts)!r} is there twice.")
        seen.add(tuple(parts))
        for k, part in enumerate(parts):
            found = next((i for i, o in enumerate(level) if _node(o)[0] == part), None)
            last = k == len(parts) - 1
            if found is None:
                level.append(part if last else {"value": part, "children": []})
                found = len(level) - 1
            elif not last and not isinstance(level[found], dict):
                level[found] = {"value": part, "children": []}
            if not last:
                level = level[found]["children"]
    return _plain(root)


# -- writing ---------------------------------------------------------------------------------
def _check_key(key: str) -> str:
    key = key.strip()
    if not _KEY.match(key):
        raise ValueError(f"A question's key starts with a letter and holds letters, digits, "
                         f"'_', '-' or '.' (answers are stored under it), not {key!r}.")
    return key


def add_question(project: Project, key: str, title: str, kind: str, scope: str = "image",
                 choices: Sequence[Any] = ()) -> int:
    """Add a question at the end of the list; returns its id."""
    key = _check_key(key)
    if scope not in SCOPES:
        raise ValueError(f"A question is asked per image or per polygon, not {scope!r}.")
    check_choices(kind, choices)
    if project.questions.by_name(key) is not None:
        raise ValueError(f"There is already a question with the key {key!r} (retired ones "
                         "count: restore it instead).")
    return project.questions.add(key, title.strip() or key, kind, scope, list(choices))


def answered(project: Project, question: Question) -> int:
    """How many annotations (image questions) or polygons (polygon questions) answer it."""
    return project.questions.answer_count(question.name, question.scope)


def edit_question(project: Project, question_id: int, *, title: str | None = None,
                  kind: str | None = None, scope: str | None = None,
                  choices: Sequence[Any] | None = None) -> None:
    """Change a question's title, choices, and — while nobody answered it — kind and scope."""
    q = project.questions.get(question_id)
    new_kind, new_scope = kind or q.kind, scope or q.scope
    if new_scope not in SCOPES:
        raise ValueError(f"A question is asked per image or per polygon, not {new_scope!r}.")
    new_choices = list(q.options if choices is None else choices)
    check_choices(new_kind, new_choices)
    if (new_kind, new_scope) != (q.kind, q.scope):
        n = answered(project, q)
        if n:
            raise ValueError(
                f"{n} {'annotation' if q.scope == 'image' else 'polygon'}{'s' * (n != 1)} "
                f"answer {q.name!r} as a {q.scope} {q.kind} question: its scope and kind stay. "
                "Retire it and add a new question to ask something else.")
    project.questions.update(question_id, title=None if title is None else (title.strip()
                                                                           or q.name),
                             kind=new_kind, scope=new_scope, options=new_choices)


def move_question(project: Project, question_id: int, position: int) -> None:
    """Put a question at ``position`` of the list (0 first; retired ones keep their places)."""
    project.questions.update(question_id, position=position)


def retire_question(project: Project, question_id: int) -> None:
    """No longer ask a question; the answers stored under its key stay."""
    project.questions.set_retired(question_id, True)


def restore_question(project: Project, question_id: int) -> None:
    """Ask a retired question again (its stored answers show again)."""
    project.questions.set_retired(question_id, False)


# -- export and import -----------------------------------------------------------------------
def as_dict(q: Question) -> dict[str, Any]:
    return {"key": q.name, "title": q.title, "scope": q.scope, "kind": q.kind,
            "choices": q.options, "retired": q.retired}


def export_questions(project: Project) -> dict[str, Any]:
    """Every question (retired ones too) in list order, as JSON-able values."""
    return {"format": FORMAT, "questions": [as_dict(q) for q in
                                            project.questions.all(retired=True)]}


def write_questions(project: Project, out: str | Path) -> Path:
    out = Path(out)
    out.write_text(json.dumps(export_questions(project), indent=2, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    return out


@dataclass
class ImportReport:
    """Keys ``added``, ``updated`` (title, choices, kind, scope, order or retired changed) and
    ``unchanged``."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return (f"{len(self.added)} added, {len(self.updated)} updated, "
                f"{len(self.unchanged)} unchanged")


def _entries(data: object) -> list[dict[str, Any]]:
    items = data.get("questions") if isinstance(data, dict) else data
    if isinstance(data, dict) and int(data.get("format", FORMAT)) > FORMAT:
        raise ValueError("The questions file was written by a newer slicereview: update it.")
    if not isinstance(items, list):
        raise ValueError('A questions file holds {"questions": [...]} (or a list of questions).')
    out, seen = [], set()
    for k, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise ValueError(f"Question {k} of the file has no key.")
        key = _check_key(item["key"])
        if key in seen:
            raise ValueError(f"The key {key!r} is in the file twice.")
        seen.add(key)
        entry: dict[str, Any] = {"key": key, "title": str(item.get("title") or key),
                 "scope": str(item.get("scope", "image")), "kind": str(item.get("kind", "")),
                 "choices": list(item.get("choices") or []),
                 "retired": bool(item.get("retired", False))}
        if entry["scope"] not in SCOPES:
            raise ValueError(f"{key!r}: a question is asked per image or per polygon, not "
                             f"{entry['scope']!r}.")
        try:
            check_choices(entry["kind"], entry["choices"])
        except ValueError as exc:
            raise ValueError(f"{key!r}: {exc}") from None
        out.append(entry)
    return out


def import_questions(project: Project, data: object) -> ImportReport:
    """Add and update questions from :func:`export_questions`'s JSON (see the module doc);
    nothing is written when any entry is refused."""
    entries = _entries(data)
    report = ImportReport()
    with project.transaction():
        for position, entry in enumerate(entries):
            known = project.questions.by_name(entry["key"])
            if known is None:
                qid = add_question(project, entry["key"], entry["title"], entry["kind"],
                                   entry["scope"], entry["choices"])
                report.added.append(entry["key"])
            else:
                qid = known.id
                try:
                    edit_question(project, qid, title=entry["title"], kind=entry["kind"],
                                  scope=entry["scope"], choices=entry["choices"])
                except ValueError as exc:
                    raise ValueError(f"{entry['key']!r}: {exc}") from None
            if entry["retired"] != project.questions.get(qid).retired:
                project.questions.set_retired(qid, entry["retired"])
            order = [q.id for q in project.questions.all(retired=True)]
            if order.index(qid) != position:
                move_question(project, qid, position)
            if known is not None:
                after = as_dict(project.questions.get(qid))
                changed = after != as_dict(known) or known.position != project.questions.get(
                    qid).position
                (report.updated if changed else report.unchanged).append(entry["key"])
    return report


def read_questions(project: Project, file: str | Path) -> ImportReport:
    """:func:`import_questions` of a JSON file."""
    try:
        data = json.loads(Path(file).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{Path(file).name} is not JSON ({exc.msg}, line {exc.lineno}).") \
            from None
    return import_questions(project, data)
