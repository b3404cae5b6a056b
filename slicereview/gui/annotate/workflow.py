"""What the owner's workflow means on the Annotate tab: :class:`AnnotateWorkflow`, a part of
the Annotate page.

* **held back** — when the owner's decision after onboarding holds the acting annotator back
  from the phase shown (they said *stop*, or have not decided yet), the annotation is shown
  read-only with the application layer's one sentence saying why and who decided
  (:func:`slicereview.app.qa.workflow.why_not_start`); the rule itself is enforced on every write
  (:mod:`slicereview.app.annotating`), this only says it before anyone tries;
* **one more annotator** — images the low-agreement rule gave the annotator shown are listed
  in the image list with a marker (``⚑ given to you: low agreement``) and the reason as the
  tooltip, and the list's status filter can show only those
  (:func:`slicereview.app.qa.low_agreement.extra_assignments`);
* **questions** — the classification forms follow the owner's questions (Owner ▸ Questions…,
  another window or instance): retired questions are no longer asked
  (:attr:`AnnotateWorkflow.questions_changed` then asks for the stored answers again);
* **the batch** — the images the annotator shown is given in the phase shown
  (:meth:`AnnotateWorkflow.batch`, the application layer's rule, cached in the state until
  images, annotations or claims appear).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from slicereview.gui.annotate.panel import AnnotatePanel
from slicereview.gui.annotate.state import AnnotateState

if TYPE_CHECKING:
    from slicereview.gui.gateway.annotate import AnnotateService


class AnnotateWorkflow(QObject):
    """The owner's workflow on ``panel`` (see the module docstring)."""

    #: The forms show other questions now: show the stored answers again.
    questions_changed = Signal()

    def __init__(self, state: AnnotateState, annotate: AnnotateService, panel: AnnotatePanel
                 ) -> None:
        super().__init__()
        self.state = state
        self.annotate = annotate
        self.panel = panel

    def work_hold(self) -> str | None:
        """Why the acting annotator may not work in the phase shown (``None``: they may)."""
        acting = self.state.acting_id
        if not self.annotate.is_open or acting is None or not self.state.own:
            return None
        return self.annotate.work_hold(acting, self.state.phase)

    def extra_images(self) -> dict[int, str]:
        """Images given to the annotator shown by the low-agreement rule: image id → why."""
        rater = self.state.rater_id
        if not self.annotate.is_open or rater is None:
            return {}
        return self.annotate.extra_assignments(rater, self.state.phase)

    def batch(self) -> list[int]:
        """The images the annotator shown is given in the phase shown (cached in the state;
        no annotator shown: none)."""
        rater, phase = self.state.rater_id, self.state.phase
        if rater is None:
            return []
        key = f"{rater}:{phase}"
        if key not in self.state.batches:
            self.state.batches[key] = self.annotate.batch(rater, phase)
        return self.state.batches[key]

    def reload_questions(self) -> None:
        """Show the questions asked now (retired ones left out) with the stored answers."""
        panel = self.panel
        panel.image_form.set_questions(self.annotate.questions("image"))
        panel.polygon_form.set_questions(self.annotate.questions("polygon"))
        panel.image_group.setVisible(bool(panel.image_form.questions))
        panel.polygon_group.setVisible(bool(panel.polygon_form.questions))
        self.questions_changed.emit()
