"""The "Annotate" page: draw certain/uncertain polygon masks on the current image.

The page follows the image chosen in the main window's browser (:meth:`AnnotatePage.show_image`,
loaded when the page is shown) and asks for the next or previous one with
:attr:`AnnotatePage.step_requested`. It turns the drawing tool's intents into undo commands —
one ``QUndoStack`` per annotation (one annotator's work on one image in a phase and round),
grouped in a ``QUndoGroup`` whose active stack is the current image's — and every command
writes through the :class:`~slicereview.gui.gateway.ProjectGateway` at once.

An annotation is created on the first edit, classification answer or status button — never by
time alone: active time gathered before that is kept in memory (per annotator, image, phase and
round) and written with the first edit, so looking at images creates no empty annotations.

*You are* (the acting annotator, remembered in the user settings) is distinct from *Showing*
(whose annotation is on screen). Showing someone else's annotation is read-only: the drawing
tools, status buttons and questions are disabled, no active time runs and nothing is written,
so looking never changes another person's record (status, time or ``updated_at``).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QShowEvent, QUndoGroup, QUndoStack
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLayout,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from slicereview.gui.annotate import guideline_notice
from slicereview.gui.annotate.draw_tool import DrawTool, Mode
from slicereview.gui.annotate.intents import PolygonIntents
from slicereview.gui.annotate.panel import (
    AnnotatePanel,
    GuidelinesDialog,
    connect_tool_actions,
    make_actions,
    make_toolbar,
)
from slicereview.gui.annotate.people import AnnotatorChoice
from slicereview.gui.annotate.repeats import AnnotateRepeats
from slicereview.gui.annotate.returned_box import ReturnedBox
from slicereview.gui.annotate.status import AnnotateStatus
from slicereview.gui.annotate.workflow import AnnotateWorkflow
from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.gateway import ProjectGateway
from slicereview.model import Annotation


class AnnotatePage(PolygonIntents, AnnotatorChoice, AnnotateRepeats, AnnotateStatus,
                   AnnotateWorkflow, QWidget):
    #: Ask for the next (+1) or previous (-1) image of the browser.
    step_requested = Signal(int)
    #: ``{image id: status word}`` of the annotator shown (``None`` when the page is hidden).
    statuses_changed = Signal(object)
    #: ``{image id: why}`` given to the annotator shown by the low-agreement rule (``None``
    #: when the page is hidden; annotate_workflow.py).
    assignments_changed = Signal(object)

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.view = ImageView()
        self.tool = DrawTool(self.view)
        self.panel = AnnotatePanel()
        self.returned = ReturnedBox()
        self.panel.layout().insertWidget(2, self.returned)
        # Never squeeze the forms: the scroll area scrolls instead.
        self.panel.layout().setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        self.returned.revise_requested.connect(self.revise)
        self._pin_items: list = []
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[int, QUndoStack] = {}
        self.clock = IdleClock(self)
        self.image_id: int | None = None
        self._pending: int | None = None
        self.annotation: Annotation | None = None
        #: (rater, image, phase, round) of the annotation shown, even before it exists.
        self._key: tuple[int, int, str, int] | None = None
        #: Active time gathered where no annotation exists yet, written on the first edit.
        self._unsaved_ms: dict[tuple[int, int, str, int], int] = {}
        #: The annotators' batch per phase (cached; cleared when images or annotations appear).
        self._batches: dict[str, list[int]] = {}
        self._stale = False  # another instance changed the file while we were drawing
        self._annotators_seen: list[tuple[int, str]] = []
        self.guidelines_dialog: GuidelinesDialog | None = None
        self.actions_: dict[str, QAction] = {}
        self._build()
        self._install_repeats()  # blind second passes (annotate_repeats.py)
        self._wire()
        gateway.write_failed.connect(self._on_write_failed)
        gateway.changed_elsewhere.connect(self._on_changed_elsewhere)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()
        self._set_context_enabled()
        guideline_notice.install(self)  # "Guidelines changed" + F2 (guideline_notice.py)

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.actions_ = make_actions(self, self.undo_group)
        toolbar = make_toolbar(self.actions_)
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.setSpacing(0)
        left.addWidget(toolbar)
        left.addWidget(self.view, 1)
        scroll = QScrollArea()
        scroll.setWidget(self.panel)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(300)
        scroll.setMaximumWidth(380)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(left, 1)
        layout.addWidget(scroll)

    def _wire(self) -> None:
        a, p, t, s = self.actions_, self.panel, self.tool, self.gateway
        a["polygon"].triggered.connect(lambda: self.set_mode(Mode.POLYGON))
        a["freehand"].triggered.connect(lambda: self.set_mode(Mode.FREEHAND))
        a["edit"].triggered.connect(lambda: self.set_mode(Mode.EDIT))
        connect_tool_actions(a, t)
        a["submit"].triggered.connect(self.submit)
        for action in self.actions_.values():
            action.triggered.connect(self.clock.touch)
        t.polygon_drawn.connect(self._on_drawn)
        t.polygon_edited.connect(self._on_edited)
        t.delete_requested.connect(self._on_delete)
        t.certainty_toggle_requested.connect(self._on_toggle)
        t.selection_changed.connect(self._on_selection)
        t.message.connect(p.message_label.setText)
        t.user_input.connect(self.clock.touch)
        p.annotator_box.currentIndexChanged.connect(self._on_context)
        p.you_box.currentIndexChanged.connect(self._on_you_changed)
        p.phase_box.currentIndexChanged.connect(self._on_context)
        p.round_box.valueChanged.connect(self._on_context)
        p.new_annotator_button.clicked.connect(self._ask_new_annotator)
        p.previous_button.clicked.connect(lambda: self.step_requested.emit(-1))
        p.next_button.clicked.connect(lambda: self.step_requested.emit(+1))
        p.nothing_button.clicked.connect(self.mark_nothing_to_annotate)
        p.submit_button.clicked.connect(self.submit)
        p.guidelines_button.clicked.connect(self.show_guidelines)
        p.image_form.answers_changed.connect(self._on_image_answers)
        p.polygon_form.answers_changed.connect(self._on_polygon_answers)
        s.project_opened.connect(self._on_project_opened)
        s.project_about_to_close.connect(self.commit_pending)
        s.project_closed.connect(self._on_project_closed)
        s.annotation_changed.connect(self._on_annotation_changed)
        s.raters_changed.connect(self._fill_annotators)
        s.images_changed.connect(self._on_images_changed)
        s.owner.questions_changed.connect(self.reload_questions)
        s.owner.workflow_changed.connect(self._set_context_enabled)  # a decision may hold

    # -- the main window's hooks -----------------------------------------------------------
    def image_views(self) -> list[ImageView]:
        return [self.view]

    @property
    def undo_stack(self) -> QUndoStack | None:
        """The current annotation's undo stack (the main window clears it on close)."""
        return self.undo_group.activeStack()

    def show_image(self, image_id: int) -> None:
        """Follow the browser's current image (loaded now if the page is shown, else later)."""
        if self.isVisible():
            self._load(image_id)
        else:
            self._pending = image_id

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._show_status()  # the browser shows this annotator's statuses
        if self._pending is not None:
            image_id, self._pending = self._pending, None
            self._load(image_id)

    def hideEvent(self, event) -> None:
        self.statuses_changed.emit(None)
        self.assignments_changed.emit(None)
        if self.gateway.is_open:
            self.commit_pending()
        super().hideEvent(event)

    # -- context: annotator, phase, round, image -------------------------------------------
    @property
    def rater_id(self) -> int | None:
        data = self.panel.annotator_box.currentData()
        return int(data) if data is not None else None

    @property
    def phase(self) -> str:
        return self.panel.phase_box.currentText()

    @property
    def round(self) -> int:
        return self.panel.round_box.value()

    def set_mode(self, mode: Mode | str) -> None:
        self.tool.set_mode(mode)
        self.actions_[Mode(mode).value].setChecked(True)

    def _on_project_opened(self, _path: str) -> None:
        self._fill_annotators()
        self.reload_questions()
        self._batches.clear()

    def clear_undo(self) -> None:
        """Forget every history (QUndoStack emits signals while being destroyed)."""
        for stack in self._stacks.values():
            stack.clear()
            self.undo_group.removeStack(stack)
            stack.deleteLater()
        self._stacks.clear()

    def _on_project_closed(self) -> None:
        self.clear_undo()
        self.image_id, self._pending, self.annotation, self._key = None, None, None, None
        self.tool.clear()
        self.view.clear()
        self.clock.take()
        self._set_context_enabled()

    def _on_images_changed(self) -> None:
        self._batches.clear()
        self._show_status()

    def _on_context(self, *_args: object) -> None:
        """Annotator, phase or round changed: commit time, then show that annotation."""
        if self.image_id is not None:
            self._load(self.image_id, keep_view=True)
        else:
            self._set_context_enabled()

    def _load(self, image_id: int, *, keep_view: bool = False) -> None:
        if not self.gateway.is_open:
            return
        self.commit_pending()
        changed_image = image_id != self.image_id
        self.image_id = image_id
        self.panel.message_label.clear()
        if changed_image or self.view.display is None:
            try:
                display = self.gateway.display(self.gateway.image(image_id))
            except Exception as exc:
                self.view.clear()
                self.tool.clear()
                self.panel.message_label.setText(f"Cannot show this image: {exc}")
                self.annotation = None
                self._set_context_enabled()
                return
            self.view.set_image(display, keep_view=keep_view)
        self.tool.cancel()
        self.tool.select(None)
        self._reload_annotation()

    def _on_write_failed(self, message: str) -> None:
        if self.isVisible():
            self.panel.message_label.setText(message)

    def _reload_annotation(self) -> None:
        rater = self.rater_id
        self.annotation, self._key = None, None
        if rater is not None and self.image_id is not None:
            self._key = (rater, self.image_id, self.phase, self._key_round())
            self.annotation = self.gateway.annotation_for(*self._key)
        polygons = self.gateway.polygons(self.annotation.id) if self.annotation else []
        self.tool.set_polygons(polygons)
        self.undo_group.setActiveStack(self._stack(self.annotation.id) if self.annotation
                                       else None)
        self.panel.image_form.set_answers(self.annotation.classifications
                                          if self.annotation else {})
        self._on_selection(-1 if self.tool.selected_id is None else self.tool.selected_id)
        self._show_returned()
        self._set_context_enabled()

    def _stack(self, annotation_id: int) -> QUndoStack:
        stack = self._stacks.get(annotation_id)
        if stack is None:
            stack = QUndoStack(self.undo_group)
            self._stacks[annotation_id] = stack
        return stack

    def _ensure_annotation(self) -> Annotation:
        """The annotation shown, created now (the first edit) with the time gathered so far."""
        if not self.own:
            raise PermissionError("another annotator's annotation is read-only")
        if self.annotation is None:
            assert self._key is not None, "no annotator or no image"
            self.annotation = self.gateway.annotation_for(*self._key, create=True)
            self._batches.clear()  # a first annotation in a phase can change the batch
            self.undo_group.setActiveStack(self._stack(self.annotation.id))
            ms = self._unsaved_ms.pop(self._key, 0) + self.clock.take()
            if ms > 0:
                self.annotation = replace(
                    self.annotation,
                    active_ms=self.gateway.add_active_time(self.annotation.id, ms))
        return self.annotation

    def _set_context_enabled(self) -> None:
        hold = self.work_hold()  # the owner's decision after onboarding (annotate_workflow.py)
        ready = self.rater_id is not None and self.image_id is not None and \
            self.view.display is not None and self.own and hold is None
        self.tool.set_enabled(ready)
        for w in (self.panel.nothing_button, self.panel.submit_button, self.panel.image_form,
                  self.panel.polygon_form):
            w.setEnabled(ready)
        for name in ("toggle_certainty", "delete", "submit", "polygon", "freehand", "edit"):
            if name in self.actions_:
                self.actions_[name].setEnabled(ready)
        if self.gateway.is_open and self.rater_id is None:
            self.panel.message_label.setText("Add an annotator (New…) to start drawing.")
        elif hold is not None:
            self.panel.message_label.setText(hold)
        elif self.gateway.is_open and not self.own:
            self.panel.message_label.setText(
                f"Showing {self.panel.annotator_box.currentText()}'s annotation: read-only "
                f"(you are {self.panel.you_box.currentText() or 'nobody yet'}).")
        self._show_status()

    # -- selection and changes from elsewhere (intents → commands: annotate_intents.py) --
    def _on_selection(self, polygon_id: int) -> None:
        polygon = self.tool.polygon(polygon_id) if polygon_id >= 0 else None
        form = self.panel.polygon_form
        form.set_answers(polygon.classifications if polygon else {})
        form.setEnabled(polygon is not None and self.own)
        self.panel.show_selected(polygon)

    def _on_annotation_changed(self, image_id: int, annotation_id: int) -> None:
        if self.annotation is None or annotation_id != self.annotation.id:
            return
        self.annotation = self.gateway.annotation(annotation_id)
        polygons = self.gateway.polygons(annotation_id)
        if [(p.id, p) for p in polygons] != [(p.id, p) for p in self.tool.polygons]:
            self.tool.set_polygons(polygons)
            self._on_selection(-1 if self.tool.selected_id is None else self.tool.selected_id)
        self._show_status()

    # -- status, time, guidelines ----------------------------------------------------------
