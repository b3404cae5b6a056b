"""Writes of the annotation shown: :class:`AnnotationWriter`, a part of the Annotate page.

Every part that changes the annotation on screen goes through this one object:

* **the first edit creates it** (:meth:`AnnotationWriter.ensure_annotation`), with the active
  time gathered before it existed; looking creates nothing;
* **one road for every edit** (:meth:`AnnotationWriter.push`): a command on the annotation's
  undo history (``gateway.annotate.history``), written through to the project at once; when
  the project refuses it, :attr:`AnnotationWriter.refused` asks the page to re-read the stored
  state;
* **active time and pending typing** (:meth:`AnnotationWriter.commit_pending`): the
  classification forms' unfinished text and the clock's time are written on leaving an image,
  before finishing, now and then (crash safety) and when the project closes. Time gathered on a
  submitted annotation is kept in memory until an edit reopens it (looking at finished work
  changes nothing in the file).

Another annotator's annotation is read-only: :meth:`~AnnotationWriter.push` does nothing on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from slicereview.gui.annotate.questions_form import QuestionsForm
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.common.history_actions import HistoryActions
from slicereview.model import Annotation, AnnotationStatus

if TYPE_CHECKING:
    from slicereview.app.commands import Command
    from slicereview.gui.gateway.annotate import AnnotateService


class AnnotationWriter(QObject):
    """Creates the annotation shown, pushes its commands and writes its time (module doc).

    ``history`` is the page's Undo/Redo, pointed at the annotation written; ``forms`` the
    classification forms whose pending typing is written first.
    """

    #: The project refused a write: re-read what is stored (once the file is readable).
    refused = Signal()

    def __init__(self, state: AnnotateState, annotate: AnnotateService, clock: IdleClock,
                 history: HistoryActions, forms: Sequence[QuestionsForm]) -> None:
        super().__init__()
        self.state = state
        self.annotate = annotate
        self.clock = clock
        self.history = history
        self.forms = tuple(forms)

    def ensure_annotation(self) -> Annotation | None:
        """The annotation shown, created now (the first edit) with the time gathered so far;
        ``None`` when the project refused to create it (a server login that may not write
        for this annotator, a lost connection...), said through ``write_failed``."""
        s, annotate = self.state, self.annotate
        if not s.own:
            raise PermissionError("another annotator's annotation is read-only")
        if s.annotation is None:
            assert s.key is not None, "no annotator or no image"
            annotation = annotate.start(*s.key)
            if annotation is None:
                return None
            s.batches.clear()  # a first annotation in a phase can change the batch
            self.history.follow(annotate.history(annotation.id))
            ms = s.take_unsaved() + self.clock.take()
            if ms > 0:
                annotation = replace(annotation,
                                     active_ms=annotate.add_active_time(annotation.id, ms))
            s.show(s.key, annotation)
            return annotation
        return s.annotation

    def push(self, command: Command) -> bool:
        """Apply ``command`` through the annotation's history (created now if needed); whether
        it was written."""
        if not self.state.own:  # another annotator's work is read-only
            return False
        annotation = self.ensure_annotation()
        if annotation is None:  # refused, and said why
            return False
        self.history.follow(self.annotate.history(annotation.id))
        if self.annotate.execute(annotation.id, command):
            return True
        self.refused.emit()  # show the stored state again
        return False

    def commit_pending(self) -> None:
        """Write pending typing and the active time gathered on the current image."""
        if not self.annotate.is_open:
            return
        for form in self.forms:
            form.flush()
        ms = self.clock.take()
        if ms <= 0 or self.state.key is None or not self.state.own:
            return  # (the clock does not run on someone else's annotation)
        annotation = self.state.annotation
        if annotation is None or annotation.status != AnnotationStatus.IN_PROGRESS:
            # Kept until an edit creates the annotation (or reopens finished work): looking
            # at a submitted annotation changes nothing in the file.
            self.state.keep_unsaved(ms)
            return
        self.annotate.add_active_time(annotation.id, ms + self.state.take_unsaved())
