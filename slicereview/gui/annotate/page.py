"""The "Annotate" page: draw certain/uncertain polygon masks on the current image.

The page follows the image chosen in the main window's browser (:meth:`AnnotatePage.show_image`,
loaded when the page is shown) and asks for the next or previous one with
:attr:`AnnotatePage.step_requested`. What it shows is one Qt-free
:class:`~slicereview.gui.annotate.state.AnnotateState`; the page builds its parts, each with
only what it uses (docs/design.md, "The GUI's structure"), and wires their signals. No part
imports this module (``tests/gui/annotate/test_parts.py``).

An annotation is created on the first edit, classification answer or status button — never by
time alone: active time gathered before that is kept in memory (per annotator, image, phase and
round) and written with the first edit, so looking at images creates no empty annotations.

*You are* (the acting annotator, remembered in the user settings) is distinct from *Showing*
(whose annotation is on screen). Showing someone else's annotation is read-only: the drawing
tools, status buttons and questions are disabled, no active time runs and nothing is written,
so looking never changes another person's record (status, time or ``updated_at``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QHideEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QWidget

from slicereview.app.undo import CommandStack
from slicereview.gui.annotate import guideline_notice
from slicereview.gui.annotate.assist_runner import AssistRunner
from slicereview.gui.annotate.assist_settings import AssistSettings
from slicereview.gui.annotate.claims import AnnotateClaims
from slicereview.gui.annotate.draw_tool import DrawTool, Mode
from slicereview.gui.annotate.guideline_notice import GuidelineNotice
from slicereview.gui.annotate.intents import PolygonIntents
from slicereview.gui.annotate.panel import AnnotatePanel
from slicereview.gui.annotate.people import AnnotatorChoice
from slicereview.gui.annotate.repeats import AnnotateRepeats
from slicereview.gui.annotate.returned_box import ReturnedBox
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.status import AnnotateStatus
from slicereview.gui.annotate.toolbar import (
    TOOLS,
    connect_tool_actions,
    lay_out,
    make_actions,
    make_tool_bars,
)
from slicereview.gui.annotate.workflow import AnnotateWorkflow
from slicereview.gui.annotate.writer import AnnotationWriter
from slicereview.gui.common.active_time import IdleClock
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.gateway import ProjectGateway
from slicereview.model import Annotation

#: The actions that act on the annotation (disabled while it is not yours to edit).
_EDIT_ACTIONS = ("toggle_certainty", "delete", "submit", *TOOLS)


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
        self.clock = IdleClock(self)
        #: Another instance changed the file while a polygon was being drawn: catch up later.
        self.stale = False
        self._pending: int | None = None  # the image to load when the page is shown
        self.actions_, self.history_actions = make_actions(self)
        self._build_parts()
        self.bars = make_tool_bars(self.actions_, self.tool, self.assist_settings.button)
        lay_out(self, self.bars, self.view, self.panel)
        self._wire()
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self.tick)
        self._ticker.start()
        self.set_context_enabled()

    def _build_parts(self) -> None:
        s, annotate, p = self.state, self.gateway.annotate, self.panel
        self.writer = AnnotationWriter(s, annotate, self.clock, self.history_actions,
                                       (p.image_form, p.polygon_form))
        self.people = AnnotatorChoice(s, annotate, p)
        self.intents = PolygonIntents(s, self.tool, self.writer, annotate, self.clock)
        self.assisted = AssistRunner(s, annotate, self.view, self.tool, self.writer)
        self.assist_settings = AssistSettings(self.assisted)
        self.workflow = AnnotateWorkflow(s, annotate, p)
        self.status = AnnotateStatus(s, annotate, self.writer, self.workflow, p, self.returned,
                                     self.tool, self.view.viewbox, self.clock)
        self.repeats = AnnotateRepeats(s, annotate, self.workflow)
        self.repeats_box = self.repeats.box
        self.guideline_notice = GuidelineNotice(s, self.gateway.owner)
        self.claims = AnnotateClaims(s, annotate, self.writer, self.people,
                                     self.actions_["claim_next"], p.message_label)
        # the side panel from the top: notice, Your batch, Annotator, This image, Repeats,
        # Returned by the reviewer, the questions
        for index, box in ((0, self.guideline_notice), (1, self.claims.box),
                           (4, self.repeats.box), (5, self.returned)):
            p.insert(index, box)
        # Window-wide while the page is shown (a hidden tab's shortcuts do not fire): F2 works
        # with the focus in the image list or the side panel too, not only in the page.
        shortcut = QShortcut(QKeySequence(guideline_notice.KEY), self)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(self.guideline_notice.open_changes)

    def _wire(self) -> None:
        a, p, t, g, i = self.actions_, self.panel, self.tool, self.gateway, self.intents
        for mode in Mode:
            a[mode.value].triggered.connect(lambda _=False, m=mode: self.set_mode(m))
        connect_tool_actions(a, t)
        a["submit"].triggered.connect(self.submit)
        for action in self.actions_.values():
            action.triggered.connect(self.clock.touch)
        t.polygon_drawn.connect(i.on_drawn)
        t.polygon_edited.connect(i.on_edited)
        t.delete_requested.connect(i.on_delete)
        t.certainty_toggle_requested.connect(i.on_toggle)
        t.brush.stroke_drawn.connect(i.on_stroke)
        t.selection_changed.connect(self.on_selection)
        t.message.connect(p.message_label.setText)
        t.user_input.connect(self.clock.touch)
        self.people.context_changed.connect(self.on_context)
        self.people.acting_changed.connect(self.set_context_enabled)
        p.previous_button.clicked.connect(lambda: self.step_requested.emit(-1))
        p.next_button.clicked.connect(lambda: self.step_requested.emit(+1))
        p.nothing_button.clicked.connect(self.mark_nothing_to_annotate)
        p.submit_button.clicked.connect(self.submit)
        p.guidelines_button.clicked.connect(self.status.show_guidelines)
        p.image_form.answers_changed.connect(i.on_image_answers)
        p.polygon_form.answers_changed.connect(i.on_polygon_answers)
        self.returned.revise_requested.connect(self.status.revise)
        self.writer.refused.connect(lambda: g.settle(self.reload_annotation))
        st = self.status
        st.finished.connect(self.advance)
        st.refreshed.connect(self.repeats.show)
        st.refreshed.connect(self.claims.show)
        st.statuses_changed.connect(self.statuses_changed)
        st.assignments_changed.connect(self.assignments_changed)
        self.claims.claims_changed.connect(self.claims_changed)
        self.claims.open_requested.connect(self._open_claimed)
        self.repeats.load_requested.connect(lambda image, keep: self.load(image, keep_view=keep))
        self.workflow.questions_changed.connect(self._on_questions_changed)
        g.project_opened.connect(self.on_project_opened)
        g.project_about_to_close.connect(self.writer.commit_pending)
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
        self.writer.commit_pending()

    def advance(self) -> None:
        """After finishing an image: your next claimed one when you work on claims, else the
        list's next image."""
        if self.claims.working():
            self.claims.next()
        else:
            self.step_requested.emit(+1)

    def _open_claimed(self, image_id: int) -> None:
        self.open_requested.emit(image_id)  # the image list selects it...
        if self.state.image_id != image_id:  # (...unless the page is not in a window)
            self.show_image(image_id)

    def tick(self) -> None:
        """Every second: run the clock while the annotator works, write its time now and
        then, catch up with changes from elsewhere, show the time."""
        window = self.window()
        self.status.tick(self.isVisible() and window is not None and window.isActiveWindow())
        if self.stale:
            self.on_changed_elsewhere()
        self.status.show_time()

    def show_image(self, image_id: int) -> None:
        """Follow the browser's current image (loaded now if the page is shown, else later)."""
        if self.isVisible():
            self.load(image_id)
        else:
            self._pending = image_id

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.state.shown = self.isVisible()
        self.status.show()  # the browser shows this annotator's statuses
        pending, self._pending = self._pending, None
        if pending is not None:
            self.load(pending)

    def hideEvent(self, event: QHideEvent) -> None:
        self.state.shown = self.isVisible()  # (still true when the window is minimised)
        self.statuses_changed.emit(None)
        self.assignments_changed.emit(None)
        self.claims_changed.emit(None)
        if self.gateway.is_open:
            self.writer.commit_pending()
        super().hideEvent(event)

    def set_mode(self, mode: Mode | str) -> None:
        self.tool.set_mode(mode)
        self.actions_[Mode(mode).value].setChecked(True)
        self.assisted.on_mode()

    # -- context: annotator, phase, round, image -------------------------------------------
    def on_context(self) -> None:
        """Annotator, phase or round changed (the state has them): commit time, then show
        that annotation."""
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

    def _on_questions_changed(self) -> None:
        if self.state.image_id is not None:
            self.reload_annotation()

    def _on_workflow_changed(self) -> None:
        self.state.batches.clear()
        self.set_context_enabled()

    def load(self, image_id: int, *, keep_view: bool = False) -> None:
        if not self.gateway.is_open:
            return
        self.writer.commit_pending()
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
            annotation = annotate.annotation_for(*key, opened=s.own)  # (pre-annotation)
        s.show(key, annotation)
        self.tool.set_polygons(annotate.polygons(annotation.id) if annotation else [])
        self.history_actions.follow(annotate.history(annotation.id) if annotation else None)
        self.panel.image_form.set_answers(annotation.classifications if annotation else {})
        self.on_selection(-1 if self.tool.selected_id is None else self.tool.selected_id)
        self.status.show_returned()
        self.set_context_enabled()

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
