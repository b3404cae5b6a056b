"""The gateway's QA service, ``gateway.qa``: what the Overview tab and the work-package actions
read from the open project. The heavy work (the report, a matrix cell, packages) runs in the
workers of :mod:`slicereview.gui.common.qa_workers`, which open their own connection to
:meth:`QAService.location`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.model import Role

if TYPE_CHECKING:
    from slicereview.gui.gateway import ProjectGateway

#: A subset of annotators for the agreement part: (label, rater ids; ``None`` = all).
Subset = tuple[str, "list[int] | None"]


class QAService:
    """Reads for the owner's views; ``gateway`` is the window's project gateway."""

    def __init__(self, gateway: ProjectGateway) -> None:
        self.gateway = gateway

    def location(self) -> Path | str:
        """Where the workers open their own connection (a file's path or a server's URL)."""
        return self.gateway.open_project.location

    def annotator_names(self) -> list[str]:
        """Annotators (not gold experts, reviewers, the owner or a model), simulated ones
        included."""
        return [r.name for r in self.gateway.open_project.raters.all()
                if r.role is Role.ANNOTATOR and not r.is_model]

    def batch_names(self, annotator: str) -> list[str]:
        """The batches ``annotator`` is assigned to (directly or through a group)."""
        from slicereview.app.qa.workflow import batches_for

        project = self.gateway.open_project
        rater = project.raters.by_name(annotator)
        if rater is None:
            return []
        mine = set(batches_for(project, rater.id))
        return [b.name for b in project.workflow.batches() if b.id in mine]

    def subsets(self) -> list[Subset]:
        """The agreement subsets the CLI offers: everyone, each group, everyone but a group
        (only those with two or more annotators)."""
        annotators = [r for r in self.gateway.open_project.raters.all()
                      if r.role is Role.ANNOTATOR and not r.is_model]
        found: list[Subset] = [("all annotators", None)]
        for group in sorted({r.group for r in annotators if r.group}):
            inside = [r.id for r in annotators if r.group == group]
            outside = [r.id for r in annotators if r.group != group]
            if len(inside) >= 2:
                found.append((f"group {group}", inside))
            if len(outside) >= 2:
                found.append((f"all annotators except group {group}", outside))
        return found

    def merged(self) -> None:
        """A merge added annotations: tell the views that show them."""
        self.gateway.raters_changed.emit()
        self.gateway.images_changed.emit()
