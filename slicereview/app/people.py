"""People of a project by role (owner, reviewer, …): the one rule for adding one by name.

* **one name, one role** — a name belongs to one rater; adding a name that exists with the same
  role returns that rater, with another role is refused (``ValueError``, one sentence), so an
  annotator cannot silently become the reviewer of their own work;
* **a name is needed** — blank names are refused; surrounding spaces are dropped.

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
>>> project.close()
"""

from __future__ import annotations

from slicereview.model import Role
from slicereview.store import Project


def add_person(project: Project, name: str, role: Role) -> int:
    """The id of the rater ``name`` with ``role``, created if needed (see the module doc)."""
    name = name.strip()
    if not name:
        raise ValueError(f"The {role} needs a name.")
    found = project.raters.by_name(name)
    if found is not None:
        if found.role is not role:
            raise ValueError(f"{name!r} is already a rater with role {found.role}.")
        return found.id
    return project.raters.add(name, role)
