"""Whose project is open: a project, or an annotator's work package of one (light: the main
window asks at start-up).

A work package's project (:func:`slicereview.app.qa.packages.package`) is a copy of the owner's
project for one annotator; its ``meta`` names the annotator (``package_annotator``) and the
project's name stays the owner's. The window title says whose package it is, so nobody takes
the copy for the project itself.

>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj", name="Study") as p:
...     before = window_title(p)
...     p.set_meta("package_annotator", "Ann")
...     before, window_title(p)
('Study — slicereview', 'Work package of Ann (project Study) — slicereview')
"""

from __future__ import annotations

from slicereview.store import Project


def package_annotator(project: Project) -> str | None:
    """The annotator whose work package this project is, ``None`` for a project."""
    return project.meta("package_annotator") or None


def window_title(project: Project) -> str:
    """The main window's title for ``project``; on a server it names the login too (two
    windows on two logins are told apart: "Study — ann — slicereview")."""
    annotator = package_annotator(project)
    login = project.db.login()
    if login is not None:
        return f"{project.name} — {login} — slicereview"
    if annotator is None:
        return f"{project.name} — slicereview"
    return f"Work package of {annotator} (project {project.name}) — slicereview"
