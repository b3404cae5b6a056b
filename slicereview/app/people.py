"""People of a project by role (owner, reviewer, …): the one rule for adding one by name.

* **one name, one role** — a name belongs to one rater; adding a name that exists with the same
  role returns that rater, with another role is refused (``ValueError``, one sentence), so an
  annotator cannot silently become the reviewer of their own work;
* **a name is needed** — blank names are refused; surrounding spaces are dropped;
* **groups are of annotators** — a group (``A2``, ``night shift``…) gathers annotators so that a
  batch can be assigned to all of them at once; moving an annotator to another group changes
  which group assignments reach them from now on, their finished work stays where it is.

>>> import tempfile, pathlib
>>> from slicereview.model import Role
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> rid = add_person(project, " Rita ", Role.REVIEWER)
>>> add_person(project, "Rita", Role.REVIEWER) == rid
True
>>> add_person(project, "Rita", Role.OWNER)
Traceback (most recent call last):
ValueError: 'Rita' is already a rater with role reviewer.
>>> ann = add_person(project, "Ann", Role.ANNOTATOR)
>>> set_group(project, [ann], " A2 ")
>>> project.raters.get(ann).group, groups(project)
('A2', {'A2': ['Ann']})
>>> set_group(project, [rid], "A2")
Traceback (most recent call last):
ValueError: Only annotators are in groups; Rita is a reviewer.
>>> project.close()

On a server each person may have their own login (:func:`add_login`); :func:`logins` says who
can log in and :func:`remove_login` takes a login away. A person is never deleted: their rater
row and finished work stay (reports count them), only the login goes, and their unfinished
claims (batches handed out by claims) are handed back for others to take.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from slicereview.model import Rater, Role
from slicereview.store import Project


def add_person(project: Project, name: str, role: Role) -> int:
    """The id of the rater ``name`` with ``role``, created if needed (see the module doc)."""
    name = name.strip()
    if not name:
        raise ValueError(f"The {role} needs a name.")
    found = project.raters.by_name(name)
    if found is not None:
        if found.is_model:
            raise ValueError(f"{name!r} is a model of this project, not a person.")
        if found.role is not role:
            raise ValueError(f"{name!r} is already a rater with role {found.role}.")
        return found.id
    return project.raters.add(name, role)


def add_login(project: Project, name: str, role: Role) -> tuple[int, str | None]:
    """:func:`add_person` on a server project with the person's own login (named as the
    rater), in one transaction: the rater's id and the new login's one-time password
    (``None`` when the login exists already: it keeps its password). What the login may read
    and change is then enforced by the database (docs/server.md, "People, logins and blinding").
    ``ValueError`` on a project file, or when this connection may not create logins."""
    if not project.is_server:
        raise ValueError("A project file has no logins: people get the file (or a work "
                         "package); logins are for a project on a server.")
    with project.transaction():
        rater_id = add_person(project, name, role)
        password = project.raters.grant_login(name.strip())
    return rater_id, password


def logged_in(project: Project) -> Rater | None:
    """The person this connection works as: on a server, the rater named as its login (whose
    work is all an annotator's login may read or change); ``None`` on a file, or when the
    login names no rater of the project (the login that created it, say)."""
    return project.raters.own()


def logins(project: Project) -> dict[int, bool] | None:
    """Rater id → whether the person has a login that can use the project (a server);
    ``None`` for a project file, which has no logins."""
    raters = [r for r in project.raters.all() if not r.is_model]  # (a model has no login)
    found = project.raters.logins([r.name for r in raters])
    return None if found is None else {r.id: found[r.name] for r in raters}


@dataclass(frozen=True)
class Removed:
    """What :func:`remove_login` did: ``login`` is ``"dropped"`` (the server has it no more:
    it cannot connect), ``"kept"`` (another project on the server still uses it; it has no
    access to this one) or ``"none"`` (there was none); ``released``: unfinished claims
    handed back."""

    login: str
    released: int


def remove_login(project: Project, name: str) -> Removed:
    """Take ``name``'s login off a server project, in one transaction, keeping the person's
    rater row and work (see the module docstring). ``ValueError`` on a project file (no
    logins), for nobody of that name, and for a login that administers the project."""
    from slicereview.app.qa.workflow import FINISHED

    if not project.is_server:
        raise ValueError("A project file has no logins: nobody logs in to a file, so there "
                         "is no login to remove (and work in a project is never deleted).")
    rater = person(project, name)
    done = {(a.phase, a.image_id) for a in project.annotations.all(rater_id=rater.id)
            if a.status in FINISHED}
    with project.transaction():
        login = project.raters.remove_login(rater.name)
        released = 0
        for batch in project.workflow.batches():
            mine = project.slots.claimed(batch.id, rater.id)
            released += project.slots.release(
                batch.id, rater.id, [i for i in mine if (batch.phase, i) not in done])
    return Removed(login, released)


def person(project: Project, ref: str) -> Rater:
    """The person named ``ref`` (or with the id ``ref``); one sentence when there is none (a
    model is not a person: :func:`slicereview.app.models.raters.find_model`)."""
    found = project.raters.by_name(ref.strip())
    if found is None and ref.strip().isdigit():
        try:
            found = project.raters.get(int(ref))
        except KeyError:
            found = None
    if found is None or found.is_model:
        raise ValueError(f"Nobody named {ref.strip()!r} in this project"
                         + (" (it is a model)." if found is not None else "."))
    return found


def set_group(project: Project, rater_ids: Sequence[int], group: str | None) -> None:
    """Put annotators in ``group`` (``None`` or blank: in no group), one transaction."""
    name = (group or "").strip() or None
    with project.transaction():
        for rater_id in rater_ids:
            rater = project.raters.get(rater_id)
            if rater.is_model:
                raise ValueError(f"A model is in no group; {rater.label} is a model.")
            if rater.role is not Role.ANNOTATOR:
                raise ValueError(f"Only annotators are in groups; {rater.name} is a "
                                 f"{rater.role}.")
            project.raters.set_group(rater_id, name)


def groups(project: Project) -> dict[str, list[str]]:
    """Group → the names of its annotators, both sorted."""
    found: dict[str, list[str]] = {}
    for r in project.raters.all():
        if r.group and r.role is Role.ANNOTATOR:
            found.setdefault(r.group, []).append(r.name)
    return {g: sorted(found[g], key=str.lower) for g in sorted(found, key=str.lower)}
