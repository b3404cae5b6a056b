"""The assisted tools on the Annotate page: :class:`AssistRunner`, a part that runs
:func:`slicereview.engines.assist.assist` on the assist prompts of the drawing tool's
:class:`~slicereview.gui.annotate.assist_gestures.AssistGestures`, shows its *preview* and
stores it on Enter.

* **The image the engine sees** is the full-resolution image shown, raw values (a display
  pyramid's finest level, memory-mapped: the engine reads only its crop round the prompts),
  with the viewer's inversion (``invert``: MONOCHROME1, or the Invert switch, as displayed);
  each tool scales its crop's raw values itself, whatever the window (see
  :meth:`AssistRunner.settings_for`).
* **In the background.** Each change of the prompts runs the tool once in the one background
  API (:func:`~slicereview.gui.common.background.thread_worker`). A new prompt cancels the
  running run: its result is dropped, and only the newest prompts run next (one run at a time,
  so fast clicking never stacks up work on a busy machine). The GUI never waits; when a run
  takes longer than :data:`BUSY_MS` a busy cue appears (a busy cursor over the image and
  *Working…* in the panel).
* **The preview** shows the result's polygons in the certain and uncertain styles of the
  stored ones (solid red core, dashed green margin), above them; it follows every prompt.
* **Enter** accepts: the previewed polygons are written at once as **one undo step** through
  the annotation's one command history (:class:`~slicereview.app.commands.ChangePolygons`
  with the tool as provenance; refine replaces the polygon it refined, which keeps its id,
  label and answers). Enter during a run accepts its result when it arrives. **Esc** discards.

The part receives the state, the gateway's annotate service, the view, the drawing tool and
the annotation writer — never the page.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal

from slicereview.gui.annotate.draw_tool import DrawTool
from slicereview.gui.annotate.state import AnnotateState
from slicereview.gui.annotate.writer import AnnotationWriter
from slicereview.gui.common.background import Worker, thread_worker
from slicereview.gui.common.image_view import ImageView
from slicereview.gui.common.polygon_items import PAD_PX, PolygonItem
from slicereview.model import Certainty, Polygon, Tool

if TYPE_CHECKING:
    from slicereview.engines.assist import AssistResult, Prompt
    from slicereview.gui.gateway.annotate import AnnotateService

#: A run that takes longer than this (ms) shows the busy cue.
BUSY_MS = 150
#: What each tool asks for next, shown in the panel.
HINTS = {
    "points": "click the object; Shift+click or right-click outside it",
    "scribble": "drag over the object; Shift+drag over what is not the object",
    "box": "drag a box round the object; then click (Shift: outside) to correct it",
    "trace": "click along the vessel, in order",
    "wand": "click the region (more clicks: their union)",
    "refine": "click a polygon to snap it to the edges near it",
}


def image_for_engine(view: ImageView) -> np.ndarray | None:
    """The full-resolution raw pixels of the image ``view`` shows (``None``: no image); a
    display pyramid's finest level is memory-mapped, not read."""
    from slicereview.engines.imaging.pyramid import PyramidDisplay

    display = view.display
    if display is None:
        return None
    if isinstance(display, PyramidDisplay):
        return np.load(dict(display.levels)[1], mmap_mode="r")
    return np.asarray(display.data)


def _run(control: Any, image: np.ndarray, prompts: list[Prompt], tool: str,
         settings: dict[str, object]) -> AssistResult:
    from slicereview.engines.assist import assist  # (scikit-image, OpenCV: on first use)

    control.check()
    result = assist(image, prompts, tool=tool, **settings)
    control.check()
    return result


#: A tiny run of each tool that imports what it needs (scikit-image, SciPy, OpenCV).
_WARM: dict[str, list[tuple[Any, list[list[float]]]]] = {
    "points": [("point", [[16.5, 16.5]])], "scribble": [("scribble", [[16.5, 12.5]])],
    "box": [("box", [[8.0, 8.0], [26.0, 26.0]])],
    "trace": [("point", [[8.5, 8.5]]), ("point", [[24.5, 24.5]])],
    "wand": [("point", [[16.5, 16.5]])], "refine": [("polygon", [[8, 8], [8, 26], [26, 17]])],
}


def _warm(control: Any, name: str) -> None:
    from slicereview.engines.assist import Prompt, assist

    rr, cc = np.mgrid[:34, :34]
    disc = ((rr - 16.5) ** 2 + (cc - 16.5) ** 2 <= 64).astype(np.uint16) * 1000
    assist(disc + 100, [Prompt(k, np.array(pts, float)) for k, pts in _WARM[name]], tool=name)


class AssistRunner(QObject):
    """Runs, previews and accepts the assisted tools (see the module docstring)."""

    #: A result is shown (after each run): its tool and how many polygons.
    previewed = Signal(str, int)
    #: An accepted result was written: the ids of the polygons added or replaced.
    accepted = Signal(object)

    def __init__(self, state: AnnotateState, annotate: AnnotateService, view: ImageView,
                 tool: DrawTool, writer: AnnotationWriter) -> None:
        super().__init__(view)
        self.state = state
        self.annotate = annotate
        self.view = view
        self.tool = tool
        self.writer = writer
        self.gestures = tool.assist
        #: Extra engine settings per tool (the inversion comes from the view).
        self.settings: dict[str, dict[str, object]] = {}
        self.worker: Worker | None = None
        self._dropped: set[Worker] = set()  # cancelled: their results are not shown
        self._pending: tuple | None = None  # the newest job, waiting for the running one
        self._job: tuple | None = None  # the job the worker runs
        self.result: AssistResult | None = None
        self._result_job: tuple | None = None
        self._accept_when_done = False
        self.items: list[PolygonItem] = []
        self.busy = False
        self._said = ""  # the last line this part showed in the panel
        self._warmed: set[str] = set()
        self._warming: set[Worker] = set()
        self._busy_timer = QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(BUSY_MS)
        self._busy_timer.timeout.connect(self._show_busy)
        self.gestures.changed.connect(self.on_prompts)
        self.gestures.accept_requested.connect(self.accept)
        view.viewbox.sigRangeChanged.connect(self._pad)

    # -- running -----------------------------------------------------------------------------
    def warm(self) -> None:
        """The tool chosen runs once on a tiny image in the background the first time, so that
        the first click does not wait for its libraries to load (nothing heavy is imported at
        start-up)."""
        name = self.gestures.name
        if name and name not in self._warmed:
            self._warmed.add(name)
            worker = thread_worker(_warm, name, name=f"assist-warm-{name}")
            self._warming.add(worker)
            for signal in (worker.finished, worker.failed, worker.cancelled):
                signal.connect(lambda *_a, w=worker: self._warming.discard(w))

    @property
    def warming(self) -> bool:
        """Whether a tool's first, warming run is still going."""
        return bool(self._warming)

    @property
    def running(self) -> bool:
        return self.worker is not None and self.worker.is_running()

    def job(self) -> tuple | None:
        """``(tool, prompts, target id, image id)`` of the prompts now (``None``: none)."""
        g = self.gestures
        if not g.prompts or not g.name:
            return None
        return (g.name, tuple(g.prompts), g.target_id, self.state.image_id)

    def on_prompts(self) -> None:
        """The prompts changed: run the tool on them (or clear the preview)."""
        job = self.job()
        self._accept_when_done = False
        if job is None:
            self._pending = None
            if self.worker is not None:
                self.worker.cancel()
                self._dropped.add(self.worker)
            had = self.result is not None
            self._show(None, None)
            self._hide_busy()
            if had:
                self.hint()  # (the old result's line would stay)
            return
        if job[0] == "trace" and len(job[1]) < 2:  # (one click is no vessel yet)
            self._show(None, None)
            self._say("Trace: click the next point along the vessel.")
            return
        if self.running:
            assert self.worker is not None
            self.worker.cancel()  # its result is dropped; the newest prompts run next
            self._dropped.add(self.worker)
            self._pending = job
            return
        self._start(job)

    def _start(self, job: tuple) -> None:
        image = image_for_engine(self.view)
        if image is None:
            return
        name, prompts = job[0], list(job[1])
        self._job = job
        worker = thread_worker(_run, image, prompts, name, self.settings_for(name),
                               name=f"assist-{name}")
        self.worker = worker
        worker.finished.connect(lambda result, w=worker: self._ended(w, result, ""))
        worker.failed.connect(lambda text, w=worker: self._ended(w, None, text))
        worker.cancelled.connect(lambda w=worker: self._ended(w, None, ""))
        self._busy_timer.start()

    def settings_for(self, name: str) -> dict[str, object]:
        """The engine settings of tool ``name``: the viewer's inversion, and
        :attr:`settings`' for the tool. Not the viewer's window: the tools scale the raw
        values of their crop themselves (its 0.5–99.5 percentiles), so a window that
        saturates dense tissue, as the automatic one does on a mammogram, hides nothing
        from them."""
        return {"invert": self.view.inverted, **self.settings.get(name, {})}

    def _ended(self, worker: Worker, result: AssistResult | None, failure: str) -> None:
        if worker is not self.worker:
            return
        self.worker = None
        job, self._job = self._job, None
        current = job is not None and job == self.job() and worker not in self._dropped
        self._dropped.discard(worker)
        if current and job is not None:
            if failure:
                self._say(f"The {job[0]} tool could not outline this: {failure}")
                self._show(None, None)
            else:
                self._show(result, job)
        pending, self._pending = self._pending, None
        if pending is not None and pending == self.job():
            self._start(pending)
            return
        self._hide_busy()
        if current and self._accept_when_done:
            self.accept()

    def _show_busy(self) -> None:
        if self.running:
            self.busy = True
            self.view.graphics.viewport().setCursor(Qt.CursorShape.BusyCursor)
            self._say(f"Working… ({self.gestures.name})")

    def _hide_busy(self) -> None:
        self._busy_timer.stop()
        if self.busy:
            self.busy = False
            self.gestures.show_cursor()

    # -- the preview -------------------------------------------------------------------------
    def preview_polygons(self) -> list[Polygon]:
        """The polygons of the result shown, as they would be stored (``(x, y)``)."""
        from slicereview.engines.assist import model_polygons

        if self.result is None or self._result_job is None:
            return []
        made = Tool(self._result_job[0])
        return [replace(p, tool=made) for p in model_polygons(self.result.polygons)]

    def _show(self, result: AssistResult | None, job: tuple | None) -> None:
        self.result, self._result_job = result, job
        for item in self.items:
            self.view.viewbox.removeItem(item)
        self.items = []
        layer = self.tool.layer
        for z, polygon in enumerate(self.preview_polygons()):
            item = PolygonItem(None, polygon.vertices, polygon.certainty)
            item.set_style(selected=True, fill_alpha=max(layer.fill_alpha, 0.2),
                           outline_only=layer.outline_only)
            item.setZValue(900 + z)
            self.view.viewbox.addItem(item, ignoreBounds=True)
            self.items.append(item)
        self._pad()
        if job is not None:
            n = len(self.items)
            certain = sum(p.certainty is Certainty.CERTAIN for p in self.preview_polygons())
            what = (f"{certain} certain, {n - certain} uncertain polygon"
                    f"{'s' if n != 1 else ''}") if n else "nothing found here"
            self._say(f"{job[0].capitalize()}: {what}. Enter accepts, Esc "
                                   f"discards, Backspace removes the last prompt; "
                                   f"{HINTS[job[0]]}.")
            self.previewed.emit(job[0], n)

    def _pad(self, *_args: object) -> None:
        px = self.tool.layer.pixel()
        for item in self.items:
            item.set_pad(PAD_PX * px)

    def _say(self, text: str) -> None:
        self._said = text
        self.tool.message.emit(text)

    def on_mode(self) -> None:
        """A tool was chosen: warm it up, and say what it asks for (another tool: no old line
        stays), unless refine has already started on the selection (:meth:`hint`)."""
        self.hint()

    def hint(self) -> None:
        """Say what the assisted tool now chosen asks for (another tool: clear what this part
        said last, so that no old line stays)."""
        name = self.gestures.name
        if name and self.gestures.prompts:
            self.warm()  # (refine started on the selection: its run speaks)
        elif name:
            self.warm()
            self._say(f"{name.capitalize()}: {HINTS[name]}; Enter accepts, Esc discards.")
        elif self._said:
            self._say("")

    # -- accepting ---------------------------------------------------------------------------
    def accept(self) -> bool:
        """Enter: store the preview as one undo step (during a run: when it ends); whether
        something was written now."""
        job = self.job()
        if job is None:
            return False
        if self.running or self._pending is not None or self._result_job != job \
                or self._result_job is None:
            self._accept_when_done = True
            return False
        polygons = self.preview_polygons()
        if not polygons:
            self._say("Nothing to accept: the tool found no region here.")
            return False
        from slicereview.app.commands import ChangePolygons

        name, target = job[0], job[2]
        before = [p for p in self.tool.polygons if p.id == target] if target is not None else []
        after = _replacing(before[0], polygons) if before else polygons
        annotation = self.writer.ensure_annotation() if self.state.own else None
        if annotation is None:
            return False
        command = ChangePolygons(self.annotate.open_project, annotation.id, before, after,
                                 name.capitalize(), tool=Tool(name))
        if not self.writer.push(command):
            return False
        ids = ([target] if target is not None else []) + command.added_ids
        self.gestures.clear()
        self._show(None, None)
        stored = {p.id: p for p in self.tool.polygons}
        certain = [i for i in ids if i in stored and stored[i].certainty is Certainty.CERTAIN]
        self.tool.select((certain or ids or [None])[0])  # the core: brush strokes add to it
        self._say(f"{name.capitalize()}: {len(after)} polygon"
                               f"{'s' if len(after) != 1 else ''} stored (Ctrl+Z undoes).")
        self.accepted.emit(ids)
        return True


def _replacing(old: Polygon, new: list[Polygon]) -> list[Polygon]:
    """``new`` replacing ``old``: the first of ``old``'s certainty (else the first) takes its
    id; every one takes its label and answers."""
    keep = next((k for k, p in enumerate(new) if p.certainty is old.certainty), 0)
    return [replace(p, id=old.id if k == keep else None, label=old.label,
                    classifications=dict(old.classifications)) for k, p in enumerate(new)]
