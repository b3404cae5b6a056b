"""What the owner's workflow means on the Annotate tab: :class:`AnnotateWorkflow`, a part of
:class:`~slicereview.gui.annotate.page.AnnotatePage`.

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
  another window or instance): retired questions are no longer asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from slicereview.gui.annotate.page import AnnotatePage


class AnnotateWorkflow:
    """The owner's workflow on ``page`` (see the module docstring)."""

    def __init__(self, page: AnnotatePage) -> None:
        self.page = page
        self.state = page.state
        self.gateway = page.gateway

    def work_hold(self) -> str | None:
        """Why the acting annotator may not work in the phase shown (``None``: they may)."""
        acting = self.state.acting_id
        if not self.gateway.is_open or acting is None or not self.state.own:
            return None
        return self.gateway.annotate.work_hold(acting, self.state.phase)

    def extra_images(self) -> dict[int, str]:
        """Images given to the annotator shown by the low-agreement rule: image id → why."""
        rater = self.state.rater_id
        if not self.gateway.is_open or rater is None:
            return {}
        return self.gateway.annotate.extra_assignments(rater, self.state.phase)

    def reload_questions(self) -> None:
        """Show the questions asked now (retired ones left out) with the stored answers."""
        panel = self.page.panel
        panel.image_form.set_questions(self.gateway.questions("image"))
        panel.polygon_form.set_questions(self.gateway.questions("polygon"))
        panel.image_group.setVisible(bool(panel.image_form.questions))
        panel.polygon_group.setVisible(bool(panel.polygon_form.questions))
        if self.state.image_id is not None:
            self.page.reload_annotation()
