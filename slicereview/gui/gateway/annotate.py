"""The gateway's annotating service, ``gateway.annotate`` (the rules are in
:mod:`slicereview.app.annotating`).

Writes are undoable commands, one undo history per annotation (one annotator's work on one
image in a phase and round), except active time; every write emits
:attr:`AnnotateService.annotation_changed` ``(image id, annotation id)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal

from slicereview.app import annotating, people
from slicereview.gui.gateway.service import Service
from slicereview.model import Annotation, AnnotationStatus, Phase, Polygon, Rater
from slicereview.store import ProjectError

if TYPE_CHECKING:
    from slicereview.app.commands import Command
    from slicereview.app.qa.claiming import Claim
    from slicereview.app.review.decisions import Returned
    from slicereview.app.undo import CommandStack
    from slicereview.gui.gateway import ProjectGateway
    from slicereview.model import Review


class AnnotateService(Service):
    """Reads and writes of the Annotate tab."""

    #: An annotation's polygons, status, time or classifications changed: (image id, annotation id).
    annotation_changed = Signal(int, int)

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__(gateway)
        self._histories: dict[int, CommandStack] = {}

    def reset(self) -> None:
        self._histories.clear()

    def history(self, annotation_id: int) -> CommandStack:
        """The undo history of one annotation in this window (kept while the project is open)."""
        if annotation_id not in self._histories:
            self._histories[annotation_id] = self.gateway.history()
        return self._histories[annotation_id]

    def execute(self, annotation_id: int, command: Command) -> bool:
        """Apply ``command`` through the annotation's history; ``False`` when the write failed
        (then it is not in the history and :attr:`ProjectGateway.write_failed` said why)."""
        self.gateway.watch.check()
        return self.history(annotation_id).push(command)

    def changed(self, key: int, command: Command | None = None) -> None:
        try:
            image_id = self.open_project.annotations.get(key).image_id
        except KeyError:
            return
        self.annotation_changed.emit(image_id, key)

    # -- annotators ----------------------------------------------------------------------------
    def annotators(self) -> list[Rater]:
        """Raters with role annotator, people first, simulated ones last."""
        return annotating.annotators(self.project) if self.project else []

    def logged_in(self) -> Rater | None:
        """On a server, the rater named as this window's login
        (:func:`slicereview.app.people.logged_in`); ``None`` on a file."""
        return people.logged_in(self.project) if self.project else None

    def add_annotator(self, name: str) -> int:
        """Create an annotator (or return the existing rater of that name)."""
        rater_id = annotating.add_annotator(self.open_project, name)
        self.gateway.raters_changed.emit()
        return rater_id

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

    # -- claims (batches handed out by claims: slicereview.app.qa.claiming) ---------------------
    def claim_batches(self, phase: Phase | str, rater_id: int | None = None) -> list[int]:
        """The batches of ``phase`` handed out by claims (with ``rater_id``: theirs)."""
        from slicereview.app.qa.claiming import claim_batches

        return claim_batches(self.project, phase, rater_id) if self.project else []

    def claimed(self, rater_id: int, phase: Phase | str) -> dict[int, bool]:
        """The images the annotator claimed in ``phase``: image id → finished."""
        from slicereview.app.qa.claiming import claimed_images

        return claimed_images(self.project, rater_id, phase) if self.project else {}

    def next_claim(self, rater_id: int, phase: Phase | str) -> Claim:
        """Claim the annotator's next image of ``phase``
        (:func:`~slicereview.app.qa.claiming.next_in_phase`) with the busy-file and lost-server
        retry of :meth:`ProjectGateway.write`; a claim that could not be written is no image,
        with the reason."""
        from slicereview.app.qa.claiming import Claim, next_in_phase
        from slicereview.store.errors import ConnectionLostError, ProjectBusyError

        project = self.open_project
        try:
            return self.gateway.write(lambda: next_in_phase(project, rater_id, phase))
        except (ConnectionLostError, ProjectBusyError) as exc:
            return Claim(None, f"No image was claimed: {exc}")

    # -- annotations ---------------------------------------------------------------------------
    def start(self, rater_id: int, image_id: int, phase: Phase | str, round: int
              ) -> Annotation | None:
        """The annotation, made now if needed (:func:`annotating.start`) through the
        gateway's one write path; ``None`` when the project refused it (a server login
        that may not write for this annotator, the owner's hold, a lost connection), after
        :attr:`ProjectGateway.write_failed` said why."""
        try:
            return self.gateway.write(
                lambda: annotating.start(self.open_project, rater_id, image_id, phase, round))
        except (ProjectError, ValueError) as exc:
            self.gateway.write_failed.emit(str(exc))
            return None

    def annotation_for(self, rater_id: int, image_id: int, phase: Phase | str, round: int,
                       *, create: bool = False, opened: bool = False) -> Annotation | None:
        """The annotation, or ``None``; ``create``: made now (:func:`annotating.start`, which
        refuses while the owner's decision after onboarding holds the annotator back);
        ``opened``: the acting annotator opened the image, so an annotation that
        pre-annotation starts from the model's polygons is made now (:meth:`start`; the
        annotator sees them at once, :mod:`slicereview.app.qa.preannotation`)."""
        if create:
            return annotating.start(self.open_project, rater_id, image_id, phase, round)
        found = self.open_project.annotations.for_image(rater_id, image_id, phase, round,
                                                        create=False)
        if found is None and opened and round == 1 and self.open_project.preannotation.\
                shown_to(rater_id, image_id, str(Phase(phase))) is not None:
            return self.start(rater_id, image_id, phase, round)
        return found

    def questions(self, scope: str) -> list:
        """The classification questions asked now of an ``"image"`` or a ``"polygon"``."""
        return self.gateway.questions(scope)

    def guideline(self) -> tuple[int, str] | None:
        """The newest guidelines: ``(version, Markdown text)``, ``None`` when there are none."""
        return self.gateway.guideline()

    def image_name(self, image_id: int) -> str:
        """The file name of an image, with its frame when it has one (``"a.dcm [2]"``)."""
        image = self.gateway.image(image_id)
        return self.gateway.file_of(image).name + (f" [{image.frame}]" if image.frame else "")

    def annotation(self, annotation_id: int) -> Annotation:
        return self.open_project.annotations.get(annotation_id)

    def polygons(self, annotation_id: int) -> list[Polygon]:
        return self.open_project.polygons.of(annotation_id)

    def add_active_time(self, annotation_id: int, ms: int) -> int:
        total = self.open_project.annotations.add_active_time(annotation_id, ms)
        self.changed(annotation_id)
        return total

    def statuses(self, rater_id: int, phase: Phase | str, round: int
                 ) -> dict[int, AnnotationStatus]:
        """``{image id: status}`` of one annotator's annotations in a phase and round."""
        if self.project is None:
            return {}
        found = self.project.annotations.all(rater_id=rater_id, phase=phase, round=round)
        return {a.image_id: a.status for a in found}

    def batch(self, rater_id: int, phase: Phase | str) -> list[int]:
        """The images ``rater_id`` is given to annotate in ``phase``
        (:func:`annotating.batch_images`)."""
        return annotating.batch_images(self.project, rater_id, phase) if self.project else []

    # -- returned work and repeats -------------------------------------------------------------
    def returned(self, rater_id: int) -> list[Returned]:
        """The rater's rejected annotations not yet revised."""
        from slicereview.app.review.decisions import returned_annotations

        return returned_annotations(self.project, rater_id) if self.project else []

    def review_notes(self, annotation: Annotation) -> tuple[Review | None, list[Review],
                                                             int | None]:
        """A rejected annotation's decision, the pins its annotator is shown with it
        (:func:`~slicereview.app.review.decisions.pins_for_annotator`: its own pins and the
        image's pins for everyone) and its revision's round; an annotation that was not
        rejected has no decision and no revision, only the pins for everyone."""
        from slicereview.app.review.decisions import pins_for_annotator
        from slicereview.model import Decision

        project = self.open_project
        decision = project.reviews.current_decisions([annotation.id]).get(annotation.id)
        pins = pins_for_annotator(project, annotation)
        if decision is None or decision.decision is not Decision.REJECT:
            return None, pins, None
        revision = project.annotations.for_image(annotation.rater_id, annotation.image_id,
                                                 annotation.phase, annotation.round + 1,
                                                 create=False)
        return decision, pins, None if revision is None else revision.round

    def pins_for_everyone(self, image_id: int) -> list[Review]:
        """The image's pins for everyone (:func:`~slicereview.app.review.decisions.
        pins_for_everyone`), shown before the annotator's work on it has started."""
        from slicereview.app.review.decisions import pins_for_everyone

        return pins_for_everyone(self.open_project, image_id)

    def start_revision(self, annotation_id: int) -> int:
        """Start (or find) the revision of a rejected annotation; returns its id."""
        from slicereview.app.review.decisions import start_revision

        new_id = start_revision(self.open_project, annotation_id)
        self.changed(new_id)
        return new_id

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
