"""What every per-job service of the gateway has: the gateway it belongs to and the open project.

A service is one job's part of :class:`~slicereview.gui.gateway.ProjectGateway` — its reads,
its writes and its signals — reached as ``gateway.rating``, ``gateway.annotate``,
``gateway.review`` (see their modules). Services call the application layer, where the rules
live; views call services and listen to their signals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from slicereview.store import Project

if TYPE_CHECKING:
    from slicereview.app.commands import Command
    from slicereview.gui.gateway import ProjectGateway


class Service(QObject):
    """Base of the per-job services (see the module docstring)."""

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__(gateway)
        self.gateway = gateway

    @property
    def project(self) -> Project | None:
        """The open project, or ``None``."""
        return self.gateway.project

    @property
    def is_open(self) -> bool:
        """Whether a project is open."""
        return self.gateway.is_open

    @property
    def open_project(self) -> Project:
        """The open project; :class:`~slicereview.app.errors.NoProjectError` when none is."""
        return self.gateway.open_project

    def reset(self) -> None:
        """Forget what belongs to the project (it closed): cached engines, undo histories."""

    def changed(self, key: int, command: Command) -> None:
        """A command of this job was applied or reverted (``key``: its ``changed`` id):
        tell the views, which re-read it."""
