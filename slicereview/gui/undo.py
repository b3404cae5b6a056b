"""Undo commands for annotation edits (DESIGN.md §4).

Each command carries core values (:class:`~slicereview.core.model.Polygon` snapshots), and both
:meth:`redo` and :meth:`undo` write through :class:`~slicereview.gui.session.ProjectSession`, so
the project file always matches the screen. ``QUndoStack.push`` runs :meth:`redo` — views never
apply an edit themselves and push afterwards.

Polygon ids are kept across undo and redo: a polygon that is added gets its id on the first
:meth:`redo`, and redoing after an undo stores it under the same id again (the store reuses a
free id), so later commands that refer to the id stay valid.

Example
-------
>>> stack = QUndoStack()                                      # doctest: +SKIP
>>> stack.push(AddPolygonCommand(session, annotation_id, Polygon(vertices)))  # doctest: +SKIP
>>> stack.undo()   # the polygon is deleted from the project file again  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtGui import QUndoCommand

from slicereview.core.model import Polygon
from slicereview.gui.session import ProjectSession


class AddPolygonCommand(QUndoCommand):
    """Add one polygon on top of the annotation (undo deletes it)."""

    def __init__(self, session: ProjectSession, annotation_id: int, polygon: Polygon,
                 text: str = "Add polygon") -> None:
        super().__init__(text)
        self.session, self.annotation_id = session, annotation_id
        self.polygon = polygon
        self.position: int | None = None

    @property
    def polygon_id(self) -> int | None:
        return self.polygon.id

    def redo(self) -> None:
        new_id = self.session.add_polygon(self.annotation_id, self.polygon, self.position)
        self.polygon = replace(self.polygon, id=new_id)

    def undo(self) -> None:
        assert self.polygon.id is not None
        self.position = self.session.delete_polygon(self.annotation_id, self.polygon.id)


class EditPolygonCommand(QUndoCommand):
    """Replace a stored polygon (vertices, certainty, classifications) by ``after``.

    ``before`` and ``after`` carry the same id. Used for vertex drags, inserted and deleted
    vertices, moving a polygon, toggling certain/uncertain and per-polygon classifications.
    """

    def __init__(self, session: ProjectSession, annotation_id: int, before: Polygon,
                 after: Polygon, text: str = "Edit polygon") -> None:
        super().__init__(text)
        if before.id is None or before.id != after.id:
            raise ValueError("an edit needs the stored polygon's id on both sides")
        self.session, self.annotation_id = session, annotation_id
        self.before, self.after = before, after

    def redo(self) -> None:
        self.session.update_polygon(self.annotation_id, self.after)

    def undo(self) -> None:
        self.session.update_polygon(self.annotation_id, self.before)


class DeletePolygonCommand(QUndoCommand):
    """Delete a polygon; undo puts it back at its drawing position with its id."""

    def __init__(self, session: ProjectSession, annotation_id: int, polygon: Polygon,
                 text: str = "Delete polygon") -> None:
        super().__init__(text)
        if polygon.id is None:
            raise ValueError("only a stored polygon (with an id) can be deleted")
        self.session, self.annotation_id = session, annotation_id
        self.polygon = polygon
        self.position: int | None = None

    def redo(self) -> None:
        assert self.polygon.id is not None
        self.position = self.session.delete_polygon(self.annotation_id, self.polygon.id)

    def undo(self) -> None:
        self.session.add_polygon(self.annotation_id, self.polygon, self.position)
