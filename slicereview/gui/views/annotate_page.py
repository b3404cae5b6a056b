"""The "Annotate" page: draw certain/uncertain polygon masks on the current image.

The page follows the image chosen in the main window's browser (:meth:`AnnotatePage.show_image`,
loaded when the page is shown) and asks for the next or previous one with
:attr:`AnnotatePage.step_requested`. It turns the drawing tool's intents into undo commands —
one ``QUndoStack`` per annotation (one annotator's work on one image in a phase and round),
grouped in a ``QUndoGroup`` whose active stack is the current image's — and every command
writes through the :class:`~slicereview.gui.gateway.ProjectGateway` at once.

An annotation is created on the first edit, classification answer, status button or after two
seconds of active time on the image, so paging through images does not create empty ones.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QShowEvent, QUndoGroup, QUndoStack
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from slicereview.app.commands import SetStatus
from slicereview.gui.active_time import IdleClock
from slicereview.gui.gateway import ProjectGateway
from slicereview.gui.views import guideline_notice
from slicereview.gui.views.annotate_intents import PolygonIntents
from slicereview.gui.views.annotate_panel import (
    AnnotatePanel,
    GuidelinesDialog,
    connect_tool_actions,
    make_actions,
    make_toolbar,
)
from slicereview.gui.views.draw_tool import DrawTool, Mode
from slicereview.gui.views.image_view import ImageView
from slicereview.model import Annotation, AnnotationStatus

#: Active time without an annotation is stored only from this many milliseconds on.
MIN_NEW_TIME_MS = 2000
#: Gathered active time is written at least this often (crash safety).
TIME_COMMIT_MS = 30_000


class AnnotatePage(PolygonIntents, QWidget):
    #: Ask for the next (+1) or previous (-1) image of the browser.
    step_requested = Signal(int)

    def __init__(self, gateway: ProjectGateway, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gateway = gateway
        self.view = ImageView()
        self.tool = DrawTool(self.view)
        self.panel = AnnotatePanel()
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[int, QUndoStack] = {}
        self.clock = IdleClock(self)
        self.image_id: int | None = None
        self._pending: int | None = None
        self.annotation: Annotation | None = None
        #: (rater, image, phase, round) of the annotation shown, even before it exists.
        self._key: tuple[int, int, str, int] | None = None
        self._image_count = 0
        self.guidelines_dialog: GuidelinesDialog | None = None
        self.actions_: dict[str, QAction] = {}
        self._build()
        self._wire()
        gateway.write_failed.connect(self._on_write_failed)
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
        if self._pending is not None:
            image_id, self._pending = self._pending, None
            self._load(image_id)

    def hideEvent(self, event) -> None:
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
        self.panel.image_form.set_questions(self.gateway.questions("image"))
        self.panel.polygon_form.set_questions(self.gateway.questions("polygon"))
        self.panel.image_group.setVisible(bool(self.panel.image_form.questions))
        self.panel.polygon_group.setVisible(bool(self.panel.polygon_form.questions))
        self._image_count = len(self.gateway.images())

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
        self._image_count = len(self.gateway.images())
        self._show_status()

    def _fill_annotators(self) -> None:
        box = self.panel.annotator_box
        current = self.rater_id
        box.blockSignals(True)
        box.clear()
        for rater in self.gateway.annotators():
            simulated = rater.simulated and "simulated" not in rater.name.lower()
            box.addItem(rater.name + (" (simulated)" if simulated else ""), rater.id)
        index = box.findData(current) if current is not None else -1
        box.setCurrentIndex(index if index >= 0 else (0 if box.count() else -1))
        box.blockSignals(False)
        self._on_context()

    def select_annotator(self, rater_id: int) -> None:
        index = self.panel.annotator_box.findData(rater_id)
        if index >= 0:
            self.panel.annotator_box.setCurrentIndex(index)

    def create_annotator(self, name: str) -> int:
        """Add an annotator by name and make it the current one."""
        rater_id = self.gateway.add_annotator(name)
        self.select_annotator(rater_id)
        return rater_id

    def _ask_new_annotator(self) -> None:
        name, ok = QInputDialog.getText(self, "New annotator", "Name:")
        if ok and name.strip():
            try:
                self.create_annotator(name)
            except Exception as exc:  # e.g. the name belongs to a reviewer
                self.panel.message_label.setText(str(exc))

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
            self._key = (rater, self.image_id, self.phase, self.round)
            self.annotation = self.gateway.annotation_for(*self._key)
        polygons = self.gateway.polygons(self.annotation.id) if self.annotation else []
        self.tool.set_polygons(polygons)
        self.undo_group.setActiveStack(self._stack(self.annotation.id) if self.annotation
                                       else None)
        self.panel.image_form.set_answers(self.annotation.classifications
                                          if self.annotation else {})
        self._on_selection(-1 if self.tool.selected_id is None else self.tool.selected_id)
        self._set_context_enabled()

    def _stack(self, annotation_id: int) -> QUndoStack:
        stack = self._stacks.get(annotation_id)
        if stack is None:
            stack = QUndoStack(self.undo_group)
            self._stacks[annotation_id] = stack
        return stack

    def _ensure_annotation(self) -> Annotation:
        if self.annotation is None:
            assert self._key is not None, "no annotator or no image"
            self.annotation = self.gateway.annotation_for(*self._key, create=True)
            self.undo_group.setActiveStack(self._stack(self.annotation.id))
        return self.annotation

    def _set_context_enabled(self) -> None:
        ready = self.rater_id is not None and self.image_id is not None and \
            self.view.display is not None
        self.tool.set_enabled(ready)
        for w in (self.panel.nothing_button, self.panel.submit_button, self.panel.image_form,
                  self.panel.polygon_form):
            w.setEnabled(ready)
        if self.gateway.is_open and self.rater_id is None:
            self.panel.message_label.setText("Add an annotator (New…) to start drawing.")
        self._show_status()

    # -- selection and changes from elsewhere (intents → commands: annotate_intents.py) --
    def _on_selection(self, polygon_id: int) -> None:
        polygon = self.tool.polygon(polygon_id) if polygon_id >= 0 else None
        form = self.panel.polygon_form
        form.set_answers(polygon.classifications if polygon else {})
        form.setEnabled(polygon is not None)
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
    def mark_nothing_to_annotate(self) -> bool:
        if self.tool.polygons:
            self.panel.message_label.setText(
                "This image has polygons: delete them before marking it 'nothing to annotate'.")
            return False
        return self._finish(AnnotationStatus.NOTHING_TO_ANNOTATE)

    def submit(self) -> bool:
        if self._key is None:
            return False
        if self.tool.drawing:
            self.tool.finish()
        return self._finish(AnnotationStatus.SUBMITTED)

    def _finish(self, status: AnnotationStatus) -> bool:
        if self._key is None:
            return False
        self.panel.image_form.flush()
        ann = self._ensure_annotation()
        self.commit_pending()
        if not self._push(SetStatus(self.gateway.open_project, ann.id, status,
                                    f"Mark {status.value.replace('_', ' ')}")):
            return False
        self.step_requested.emit(+1)
        return True

    def commit_pending(self) -> None:
        """Write pending typing and the active time gathered on the current image."""
        if not self.gateway.is_open:
            return
        self.panel.image_form.flush()
        self.panel.polygon_form.flush()
        ms = self.clock.take()
        if ms <= 0 or self._key is None:
            return
        if self.annotation is None and ms < MIN_NEW_TIME_MS:
            return
        self.gateway.add_active_time(self._ensure_annotation().id, ms)

    def _tick(self) -> None:
        window = self.window()
        running = (self.isVisible() and window is not None and window.isActiveWindow()
                   and self.rater_id is not None and self.image_id is not None)
        self.clock.set_running(running)
        if self.clock.peek() >= TIME_COMMIT_MS and self.tool._drag is None:
            self.commit_pending()
        self._show_time()

    def _show_status(self) -> None:
        done = None
        if self.rater_id is not None and self.gateway.is_open:
            statuses = self.gateway.annotation_statuses(self.rater_id, self.phase, self.round)
            done = sum(s is not AnnotationStatus.IN_PROGRESS for s in statuses.values())
        self.panel.show_status(self.annotation.status if self.annotation else None,
                               self.tool.polygons, done, self._image_count)
        self._show_time()

    def _show_time(self) -> None:
        stored = self.annotation.active_ms if self.annotation else 0
        self.panel.show_time(stored + self.clock.peek(), paused=not self.clock.running)

    def show_guidelines(self) -> GuidelinesDialog:
        found = self.gateway.guideline()
        version, text = found if found else (None, "")
        self.guidelines_dialog = GuidelinesDialog(version, text, self)
        self.guidelines_dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.guidelines_dialog.show()
        return self.guidelines_dialog
