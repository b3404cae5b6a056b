"""The gateway's models service, ``gateway.models``: what Owner ▸ Models… reads (the model
raters with their counts) and where its workers open their own connection (importing
predictions and running an ONNX model: :mod:`slicereview.gui.common.workers`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from slicereview.app.models.raters import ModelRow
    from slicereview.gui.gateway import ProjectGateway


class ModelsService(QObject):
    #: A model's predictions were imported or computed (a worker committed them).
    models_changed = Signal()

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__(gateway)
        self.gateway = gateway

    @property
    def is_open(self) -> bool:
        return self.gateway.is_open

    def location(self) -> Path | str:
        """Where the workers open their own connection (a file's path or a server's URL)."""
        return self.gateway.open_project.location

    def models(self) -> list[ModelRow]:
        """The project's model raters with their licence and counts of predictions."""
        from slicereview.app.models.raters import model_counts

        return model_counts(self.gateway.open_project) if self.gateway.is_open else []

    def hold(self) -> None:
        """A worker writes now: hold the window's re-reads until :meth:`release`."""
        self.gateway.hold_changes()

    def release(self) -> None:
        """The worker ended: re-read once and tell the views."""
        self.gateway.release_changes()
        self.models_changed.emit()
