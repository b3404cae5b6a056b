"""The "Annotate" page: draw certain/uncertain polygon masks on the current image.

The page follows the image chosen in the main window's browser (:meth:`AnnotatePage.show_image`,
loaded when the page is shown) and asks for the next or previous one with
:attr:`AnnotatePage.step_requested`. What it shows is one Qt-free
:class:`~slicereview.gui.annotate.state.AnnotateState`; the page is composed of parts that
read and set it: :class:`~.people.AnnotatorChoice` (You are / Showing),
:class:`~.intents.PolygonIntents` (the drawing tool's intents → undo commands, one undo
history per annotation through ``gateway.annotate``, written at once),
:class:`~.status.AnnotateStatus` (finishing, time, statuses, returned work),
:class:`~.repeats.AnnotateRepeats`, :class:`~.workflow.AnnotateWorkflow` and the guidelines
notice (:mod:`.guideline_notice`).

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
from PySide6.QtGui import QAction, QHideEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QVBoxLayout, QWidget

from slicereview.app.undo import CommandStack
from slicereview.gui.annotate.claims import AnnotateClaims
from slicereview.gui.annotate.draw_tool import DrawTool, Mode
from slicereview.gui.annotate.guideline_notice import GuidelineNotice
from slicereview.gui.annotate.intents import PolygonIntents
from slicereview.gui.annotate.panel import (
    AnnotatePanel,
    connect_tool_actions,
    make_actions,
    make_toolbar,
)
from slicereview.gui.annotate.people import AnnotatorChoice
from slicereview.gui.annotate.repeats import AnnotateRepeats
from slicereview.gui.annotate.returned_box import ReturnedBox
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.status import AnnotateStatus
from slicereview.gui.annotate.workflow import AnnotateWorkflow
from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.gateway import ProjectGateway
from slicereview.model import Annotation

#: The actions that act on the annotation (disabled while it is not yours to edit).
_EDIT_ACTIONS = ("toggle_certainty", "delete", "submit", "polygon", "freehand", "edit")


class AnnotatePage(QWidget):
    #: Ask for the next (+1) or previous (-1) image of the browser.
    step_requested = Signal(int)
    #: ``{image id: status word}`` of the annotator shown (``None`` when the page is hidden).
    statuses_changed = Signal(object)
    #: ``{image id: why}`` given to the annotator shown by the low-agreement rule (``None``
    #: when the page is hidden; workflow.py).
    assignments_changed = Signal(object)
    #: The images the acting annotator claimed in the phase shown (``None``: no claims).
    claims_changed = Signal(object)
    #: Show this image (a claimed one): the browser selects it, clearing filters that hide it.
    open_requested = Signal(int)

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.state = AnnotateState()
        self.view = ImageView()
        self.tool = DrawTool(self.view)
        self.panel = AnnotatePanel()
        self.returned = ReturnedBox()
        self.panel.insert(2, self.returned)
        self.clock = IdleClock(self)
        #: Another instance changed the file while a polygon was being drawn: catch up later.
        self.stale = False
        #: The image to load when the page is shown.
        self._pending: int | None = None
        self.actions_: dict[str, QAction]
        self.actions_, self.history_actions = make_actions(self)
        self.people = AnnotatorChoice(self)
        self.intents = PolygonIntents(self)
        self.status = AnnotateStatus(self)
        self.workflow = AnnotateWorkflow(self)
        self.repeats = AnnotateRepeats(self)
        self.repeats_box = self.repeats.box
        self.guideline_notice = GuidelineNotice(self)
        self.claims = AnnotateClaims(self)
        self.panel.insert(1, self.claims.box)
        self._build()
        self._wire()
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self.status.tick)
        self._ticker.start()
        self.set_context_enabled()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        left = QVBoxLayout()
        left.setContentsMargins(0, 0, 0, 0)
        left.setSpacing(0)
        left.addWidget(make_toolbar(self.actions_))
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
        a, p, t, g, i = self.actions_, self.panel, self.tool, self.gateway, self.intents
        a["polygon"].triggered.connect(lambda: self.set_mode(Mode.POLYGON))
        a["freehand"].triggered.connect(lambda: self.set_mode(Mode.FREEHAND))
        a["edit"].triggered.connect(lambda: self.set_mode(Mode.EDIT))
        connect_tool_actions(a, t)
        a["submit"].triggered.connect(self.submit)
        for action in self.actions_.values():
            action.triggered.connect(self.clock.touch)
        t.polygon_drawn.connect(i.on_drawn)
        t.polygon_edited.connect(i.on_edited)
        t.delete_requested.connect(i.on_delete)
        t.certainty_toggle_requested.connect(i.on_toggle)
        t.selection_changed.connect(self.on_selection)
        t.message.connect(p.message_label.setText)
        t.user_input.connect(self.clock.touch)
        p.annotator_box.currentIndexChanged.connect(self.on_context)
        p.you_box.currentIndexChanged.connect(self.people.on_you_changed)
        p.phase_box.currentIndexChanged.connect(self.on_context)
        p.round_box.valueChanged.connect(self.on_context)
        p.new_annotator_button.clicked.connect(self.people.ask_new)
        p.previous_button.clicked.connect(lambda: self.step_requested.emit(-1))
        p.next_button.clicked.connect(lambda: self.step_requested.emit(+1))
        p.nothing_button.clicked.connect(self.mark_nothing_to_annotate)
        p.submit_button.clicked.connect(self.submit)
        p.guidelines_button.clicked.connect(self.status.show_guidelines)
        p.image_form.answers_changed.connect(i.on_image_answers)
        p.polygon_form.answers_changed.connect(i.on_polygon_answers)
        self.returned.revise_requested.connect(self.status.revise)
        g.project_opened.connect(self.on_project_opened)
        g.project_about_to_close.connect(self.status.commit_pending)
        g.project_closed.connect(self._on_project_closed)
        g.images_changed.connect(self._on_images_changed)
        g.raters_changed.connect(self.people.fill)
        g.write_failed.connect(self._on_write_failed)
        g.changed_elsewhere.connect(self.on_changed_elsewhere)
        g.annotate.annotation_changed.connect(self._on_annotation_changed)
        g.owner.questions_changed.connect(self.workflow.reload_questions)
        g.owner.workflow_changed.connect(self._on_workflow_changed)  # a decision may hold

    # -- what the main window and the tests use ----------------------------------------------
    def image_views(self) -> list[ImageView]:
        return [self.view]

    @property
    def image_id(self) -> int | None:
        return self.state.image_id

    @property
    def annotation(self) -> Annotation | None:
        return self.state.annotation

    @property
    def rater_id(self) -> int | None:
        """Whose annotation is shown."""
        return self.state.rater_id

    @property
    def acting_id(self) -> int | None:
        """Who uses the program ("You are")."""
        return self.state.acting_id

    @property
    def own(self) -> bool:
        return self.state.own

    @property
    def history(self) -> CommandStack | None:
        """The undo history of the annotation shown (``None`` before it exists)."""
        return self.history_actions.history

    def select_you(self, rater_id: int) -> None:
        self.people.select_you(rater_id)

    def select_annotator(self, rater_id: int) -> None:
        self.people.select_annotator(rater_id)

    def create_annotator(self, name: str) -> int:
        return self.people.create(name)

    def submit(self) -> bool:
        return self.status.submit()

    def mark_nothing_to_annotate(self) -> bool:
        return self.status.mark_nothing_to_annotate()

    def commit_pending(self) -> None:
        self.status.commit_pending()

    def advance(self) -> None:
        """After finishing an image: your next claimed one when you work on claims, else the
        list's next image."""
        if self.claims.working():
            self.claims.next()
        else:
            self.step_requested.emit(+1)

    def show_image(self, image_id: int) -> None:
        """Follow the browser's current image (loaded now if the page is shown, else later)."""
        if self.isVisible():
            self.load(image_id)
        else:
            self._pending = image_id

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.status.show()  # the browser shows this annotator's statuses
        pending, self._pending = self._pending, None
        if pending is not None:
            self.load(pending)

    def hideEvent(self, event: QHideEvent) -> None:
        self.statuses_changed.emit(None)
        self.assignments_changed.emit(None)
        self.claims_changed.emit(None)
        if self.gateway.is_open:
            self.status.commit_pending()
        super().hideEvent(event)

    def set_mode(self, mode: Mode | str) -> None:
        self.tool.set_mode(mode)
        self.actions_[Mode(mode).value].setChecked(True)

    # -- context: annotator, phase, round, image -------------------------------------------
    def sync_context(self) -> None:
        """Take who is shown, who you are, the phase and the round from the panel."""
        p = self.panel
        self.state.set_context(self.people.shown_id(), self.people.acting_id(),
                               p.phase_box.currentText(), p.round_box.value())

    def on_context(self, *_args: object) -> None:
        """Annotator, phase or round changed: commit time, then show that annotation."""
        self.sync_context()
        if self.state.image_id is not None:
            self.load(self.state.image_id, keep_view=True)
        else:
            self.set_context_enabled()

    def on_project_opened(self, _path: str = "") -> None:
        self.people.fill()
        self.workflow.reload_questions()
        self.state.batches.clear()
        self.guideline_notice.refresh()

    def _on_project_closed(self) -> None:
        self.state.image_id, self._pending = None, None
        self.state.show(None, None)
        self.history_actions.follow(None)
        self.tool.clear()
        self.view.clear()
        self.clock.take()
        self.set_context_enabled()

    def _on_images_changed(self) -> None:
        self.state.batches.clear()
        self.status.show()

    def _on_workflow_changed(self) -> None:
        self.state.batches.clear()
        self.set_context_enabled()

    def load(self, image_id: int, *, keep_view: bool = False) -> None:
        if not self.gateway.is_open:
            return
        self.status.commit_pending()
        changed_image = image_id != self.state.image_id
        self.state.image_id = image_id
        self.panel.message_label.clear()
        if changed_image or self.view.display is None:
            try:
                display = self.gateway.display(self.gateway.image(image_id))
            except Exception as exc:
                self.view.clear()
                self.tool.clear()
                self.panel.message_label.setText(f"Cannot show this image: {exc}")
                self.state.show(self.state.key, None)
                self.set_context_enabled()
                return
            self.view.set_image(display, keep_view=keep_view)
        self.tool.cancel()
        self.tool.select(None)
        self.reload_annotation()

    def _on_write_failed(self, message: str) -> None:
        if self.isVisible():
            self.panel.message_label.setText(message)

    def reload_annotation(self) -> None:
        """Show the stored annotation of the context (none yet: an empty one)."""
        s, annotate = self.state, self.gateway.annotate
        key = None
        annotation = None
        if s.rater_id is not None and s.image_id is not None:
            key = (s.rater_id, s.image_id, s.phase, s.key_round())
            annotation = annotate.annotation_for(*key)
        s.show(key, annotation)
        self.tool.set_polygons(annotate.polygons(annotation.id) if annotation else [])
        self.history_actions.follow(annotate.history(annotation.id) if annotation else None)
        self.panel.image_form.set_answers(annotation.classifications if annotation else {})
        self.on_selection(-1 if self.tool.selected_id is None else self.tool.selected_id)
        self.status.show_returned()
        self.set_context_enabled()

    def ensure_annotation(self) -> Annotation | None:
        """The annotation shown, created now (the first edit) with the time gathered so far;
        ``None`` when the project refused to create it (a server login that may not write
        for this annotator, a lost connection...), said in the panel."""
        s, annotate = self.state, self.gateway.annotate
        if not s.own:
            raise PermissionError("another annotator's annotation is read-only")
        if s.annotation is None:
            assert s.key is not None, "no annotator or no image"
            annotation = annotate.start(*s.key)
            if annotation is None:
                return None
            s.batches.clear()  # a first annotation in a phase can change the batch
            self.history_actions.follow(annotate.history(annotation.id))
            ms = s.take_unsaved() + self.clock.take()
            if ms > 0:
                annotation = replace(annotation,
                                     active_ms=annotate.add_active_time(annotation.id, ms))
            s.show(s.key, annotation)
            return annotation
        return s.annotation

    def set_context_enabled(self) -> None:
        s, p = self.state, self.panel
        hold = self.workflow.work_hold()  # the owner's decision after onboarding
        ready = s.rater_id is not None and s.image_id is not None and \
            self.view.display is not None and s.own and hold is None
        self.tool.set_enabled(ready)
        for w in (p.nothing_button, p.submit_button, p.image_form, p.polygon_form):
            w.setEnabled(ready)
        for name in _EDIT_ACTIONS:
            self.actions_[name].setEnabled(ready)
        if self.gateway.is_open and s.rater_id is None:
            p.message_label.setText("Add an annotator (New…) to start drawing.")
        elif hold is not None:
            p.message_label.setText(hold)
        elif self.gateway.is_open and not s.own:
            p.message_label.setText(
                f"Showing {p.annotator_box.currentText()}'s annotation: read-only "
                f"(you are {p.you_box.currentText() or 'nobody yet'}).")
        self.status.show()

    # -- selection and changes from elsewhere ------------------------------------------------
    def on_selection(self, polygon_id: int) -> None:
        polygon = self.tool.polygon(polygon_id) if polygon_id >= 0 else None
        form = self.panel.polygon_form
        form.set_answers(polygon.classifications if polygon else {})
        form.setEnabled(polygon is not None and self.state.own)
        self.panel.show_selected(polygon)

    def _on_annotation_changed(self, _image_id: int, annotation_id: int) -> None:
        annotation = self.state.annotation
        if annotation is None or annotation_id != annotation.id:
            return
        annotate = self.gateway.annotate
        self.state.show(self.state.key, annotate.annotation(annotation_id))
        polygons = annotate.polygons(annotation_id)
        if [(p.id, p) for p in polygons] != [(p.id, p) for p in self.tool.polygons]:
            self.tool.set_polygons(polygons)
            self.on_selection(-1 if self.tool.selected_id is None else self.tool.selected_id)
        self.status.show()

    def on_changed_elsewhere(self) -> None:
        """Another instance committed: show its annotators and this image's record as stored.
        Never in the middle of drawing or a drag (that would drop the unfinished polygon): the
        first tick after it catches up."""
        self.stale = True
        if not self.gateway.is_open or self.tool.dragging or self.tool.drawing:
            return
        self.stale = False
        self.state.batches.clear()
        names = [(r.id, r.name) for r in self.gateway.annotate.annotators()]
        if names != self.people.seen:
            self.people.fill()  # (reloads the annotation shown)
        elif self.state.image_id is not None:
            self.reload_annotation()
