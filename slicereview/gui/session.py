"""ProjectSession: the only GUI object that talks to the project store.

Views never call the store directly; they call the session (or push an undo command that
calls it) and listen to its signals, which carry ids (DESIGN.md §4).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from slicereview.core.imaging.display import DisplayImage
from slicereview.core.imaging.loader import load_display
from slicereview.core.model import Image
from slicereview.core.store import Project
from slicereview.gui.image_cache import ImageCache


class ProjectSession(QObject):
    project_opened = Signal(str)
    project_closed = Signal()
    #: Images were added or relinked; views re-read the image list.
    images_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project: Project | None = None
        self.cache = ImageCache(load_display)

    @property
    def is_open(self) -> bool:
        return self.project is not None

    def open(self, path: str | Path) -> Project:
        """Open ``path`` (closing the current project first). Raises ProjectError subclasses."""
        project = Project.open(path)
        self.close()
        self.project = project
        self.project_opened.emit(str(project.path))
        return project

    def close(self) -> None:
        if self.project is not None:
            self.project.close()
            self.project = None
            self.cache.clear()
            self.project_closed.emit()

    # -- images ----------------------------------------------------------------------------
    def images(self) -> list[Image]:
        return self.project.images() if self.project else []

    def image(self, image_id: int) -> Image:
        assert self.project is not None
        return self.project.image(image_id)

    def file_of(self, image: Image) -> Path:
        assert self.project is not None
        return self.project.resolve(image.path)

    def display(self, image: Image) -> DisplayImage:
        """Decoded pixels of ``image`` (cached). Raises imaging errors for unreadable files."""
        return self.cache.get(self.file_of(image), image)

    def volume_images(self, image: Image) -> list[Image]:
        if self.project is None or not image.is_slice:
            return []
        return self.project.volume_images(image.source_id, image.axis)

    def missing_files(self) -> list[str]:
        return [s.path for s in self.project.missing_sources()] if self.project else []
