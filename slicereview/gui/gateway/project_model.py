"""The project model's part of the gateway: its status read from the open project, the
retraining rule written through the app layer (:mod:`slicereview.app.models.project_model`),
and the location a worker opens. Every write commits at once and emits :attr:`changed`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from slicereview.app.models.project_model import Status
    from slicereview.gui.gateway import ProjectGateway
    from slicereview.store.location import Location


class ProjectModelService(QObject):
    #: A version was trained, predictions were stored, or the retraining rule changed.
    changed = Signal()

    def __init__(self, gateway: ProjectGateway, parent: QObject | None = None) -> None:
        super().__init__(parent or gateway)
        self.gateway = gateway

    @property
    def is_open(self) -> bool:
        return self.gateway.is_open

    def location(self) -> Location:
        """What a worker opens: the open project's path or URL."""
        return self.gateway.open_project.location

    def who(self) -> str:
        """The name a version is trained by: the server login's rater, else the user's."""
        import getpass

        me = self.gateway.annotate.logged_in()
        return me.name if me is not None else getpass.getuser()

    def status(self) -> Status:
        from slicereview.app.models.project_model import status

        return status(self.gateway.open_project)

    def set_retrain_every(self, n: int) -> None:
        from slicereview.app.models.project_model import set_retrain_every

        set_retrain_every(self.gateway.open_project, n)
        self.changed.emit()

    def min_region(self) -> int:
        from slicereview.app.models.project_model import min_region

        return min_region(self.gateway.open_project)

    def set_min_region(self, pixels: int) -> None:
        from slicereview.app.models.project_model import set_min_region

        set_min_region(self.gateway.open_project, pixels)
        self.changed.emit()

    def stored(self) -> None:
        """A worker stored a version or predictions: re-read what the project holds."""
        self.gateway.raters_changed.emit()
        self.changed.emit()
