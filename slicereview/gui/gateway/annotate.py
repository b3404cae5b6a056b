"""The gateway's annotating methods (a mixin of ProjectGateway; the rules are in
:mod:`slicereview.app.annotating`)."""

from __future__ import annotations

from slicereview.app import annotating
from slicereview.model import (
    Annotation,
    AnnotationStatus,
    Phase,
    Polygon,
    Question,
    Rater,
)
from slicereview.store import Project


class AnnotateGateway:
    """Methods of :class:`~slicereview.gui.gateway.ProjectGateway` for the Annotate tab."""

    project: Project | None
    open_project: Project

    # -- annotations (annotate page) -------------------------------------------------------
    # Writes are undoable commands (see :meth:`execute`) except active time; the rules are in
    # slicereview.app.annotating. Every write emits annotation_changed(image, annotation).
    def annotators(self) -> list[Rater]:
        """Raters with role annotator, people first, simulated ones last."""
        return annotating.annotators(self.project) if self.project else []

    def add_annotator(self, name: str) -> int:
        """Create an annotator (or return the existing rater of that name)."""
        rater_id = annotating.add_annotator(self.open_project, name)
        self.raters_changed.emit()
        return rater_id

    def annotation_for(self, rater_id: int, image_id: int, phase: Phase | str, round: int,
                       *, create: bool = False) -> Annotation | None:
        """The annotation, or ``None``; ``create``: made now (:func:`annotating.start`, which
        refuses while the owner's decision after onboarding holds the annotator back)."""
        if create:
            return annotating.start(self.open_project, rater_id, image_id, phase, round)
        return self.open_project.annotations.for_image(rater_id, image_id, phase, round,
                                                       create=False)

    def work_hold(self, rater_id: int, phase: Phase | str) -> str | None:
        """Why the annotator may not work in ``phase`` (one sentence), ``None`` when they may
        (:func:`slicereview.app.qa.workflow.why_not_start`)."""
        if self.project is None or str(phase) == "onboarding":
            return None
        from slicereview.app.qa.workflow import why_not_start

        return why_not_start(self.project, rater_id, phase)

    def extra_assignments(self, rater_id: int, phase: Phase | str) -> dict[int, str]:
        """Images the low-agreement rule gave this annotator in ``phase``: image id → why
        (:func:`slicereview.app.qa.low_agreement.extra_assignments`)."""
        if self.project is None:
            return {}
        from slicereview.app.qa.low_agreement import extra_assignments

        return extra_assignments(self.project, rater_id, phase)

    def annotation(self, annotation_id: int) -> Annotation:
        return self.open_project.annotations.get(annotation_id)

    def polygons(self, annotation_id: int) -> list[Polygon]:
        return self.open_project.polygons.of(annotation_id)

    def add_active_time(self, annotation_id: int, ms: int) -> int:
        total = self.open_project.annotations.add_active_time(annotation_id, ms)
        self.notify(("annotation", annotation_id))
        return total

    def annotation_statuses(self, rater_id: int, phase: Phase | str, round: int
                            ) -> dict[int, AnnotationStatus]:
        """``{image id: status}`` of one annotator's annotations in a phase and round."""
        if self.project is None:
            return {}
        found = self.project.annotations.all(rater_id=rater_id, phase=phase, round=round)
        return {a.image_id: a.status for a in found}

    def annotation_batch(self, phase: Phase | str) -> list[int]:
        """The images annotators work through in ``phase`` (:func:`annotating.batch_images`)."""
        return annotating.batch_images(self.project, phase) if self.project else []

    def returned_annotations(self, rater_id: int) -> list:
        """The rater's rejected annotations not yet revised (``review_decisions.Returned``)."""
        from slicereview.app.review.decisions import returned_annotations

        return returned_annotations(self.project, rater_id) if self.project else []

    def review_notes(self, annotation: Annotation) -> tuple[object, list, int | None]:
        """A rejected annotation's decision, the pins on its image and its revision's round
        (``(None, [], None)`` when it was not rejected)."""
        from slicereview.model import Decision

        project = self.open_project
        decision = project.reviews.current_decisions([annotation.id]).get(annotation.id)
        if decision is None or decision.decision is not Decision.REJECT:
            return None, [], None
        pins = [r for r in project.reviews.all(image_id=annotation.image_id) if r.is_pin]
        revision = project.annotations.for_image(annotation.rater_id, annotation.image_id,
                                                 annotation.phase, annotation.round + 1,
                                                 create=False)
        return decision, pins, None if revision is None else revision.round

    def start_revision(self, annotation_id: int) -> int:
        """Start (or find) the revision of a rejected annotation; returns its id."""
        from slicereview.app.review.decisions import start_revision

        new_id = start_revision(self.open_project, annotation_id)
        self.notify(("annotation", new_id))
        return new_id

    def questions(self, scope: str | None = None) -> list[Question]:
        return self.project.questions.all(scope) if self.project else []

    def guideline(self) -> tuple[int, str] | None:
        return self.project.guidelines.get() if self.project else None

    def repeats_due(self, rater_id: int, batch: list[int], phase: Phase | str, round: int
                    ) -> tuple[list[Annotation], int]:
        """The annotator's repeats offered now (:func:`slicereview.app.qa.repeats.repeats_due`)
        and how many of their repeats in ``phase`` are not finished at all."""
        from slicereview.app.qa import repeats

        if self.project is None:
            return [], 0
        due = repeats.repeats_due(self.project, rater_id, batch, phase, round)
        waiting = sum(again.round == -abs(round) and again.status not in repeats.FINISHED
                      for _, again in self.project.repeats.pairs(rater_id=rater_id, phase=phase))
        return due, waiting
