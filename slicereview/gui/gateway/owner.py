"""The gateway's owner service, ``gateway.owner``: the task owner's part (batches, gold, the
onboarding pre-filter and decisions, the guidelines, questions, groups).

It reaches the project only through the gateway's open project and the app layer
(:mod:`slicereview.app.qa.workflow`, :mod:`slicereview.app.qa.guidelines`), so the rules stay there.
Every write commits at once (one transaction) and emits :attr:`workflow_changed` or
:attr:`guidelines_changed`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from slicereview.app.people import add_person
from slicereview.model import Batch, Image, Phase, Rater, Role

if TYPE_CHECKING:
    from slicereview.app.qa.guidelines import GuidelineChanges
    from slicereview.gui.gateway import ProjectGateway


def _workflow() -> ModuleType:
    """The workflow module, imported on first use (it loads scipy; the window starts without)."""
    from slicereview.app.qa import workflow

    return workflow


def _guidelines() -> ModuleType:
    from slicereview.app.qa import guidelines

    return guidelines


@dataclass(frozen=True)
class OnboardingRow:
    """One annotator of an onboarding batch as the owner sees it: mean scores against gold
    over their scored images (``None``: nothing scored), the pre-filter and the decision in
    force (``None``: not decided)."""

    rater: Rater
    scored: int
    dice: float | None
    strict_alpha: float | None
    relaxed_alpha: float | None
    box_alpha: float | None
    passes: bool | None
    decision: str | None


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


class OwnerService(QObject):
    #: Batches, assignments, gold or decisions changed.
    workflow_changed = Signal()
    #: A new guideline version was saved.
    guidelines_changed = Signal(int)
    #: Questions were added, edited, moved, retired or imported.
    questions_changed = Signal()
    #: Annotators were put in (or taken out of) groups.
    groups_changed = Signal()
    #: The privacy setting changed (what others get of the images).
    privacy_changed = Signal()

    def __init__(self, gateway: ProjectGateway) -> None:
        super().__init__(gateway)
        self.gateway = gateway

    @property
    def is_open(self) -> bool:
        """Whether a project is open."""
        return self.gateway.is_open

    @property
    def _project(self):
        return self.gateway.open_project

    # -- raters ------------------------------------------------------------------------------
    def raters(self, role: Role | None = None) -> list[Rater]:
        project = self.gateway.project
        raters = project.raters.all() if project is not None else []  # (people: no model)
        return sorted((r for r in raters if (role is None or r.role is role) and not r.is_model),
                      key=lambda r: (r.simulated, r.name.lower()))

    def add_owner(self, name: str) -> int:
        """Create a rater with the owner role (or return the owner of that name)."""
        known = {r.id for r in self._project.raters.all()}
        rater_id = add_person(self._project, name, Role.OWNER)
        if rater_id not in known:
            self.gateway.raters_changed.emit()
        return rater_id

    # -- groups (rules in slicereview.app.people) -------------------------------------------
    def groups(self) -> dict[str, list[str]]:
        from slicereview.app.people import groups

        return groups(self._project) if self.gateway.is_open else {}

    def set_group(self, rater_ids: list[int], group: str | None) -> None:
        from slicereview.app.people import set_group

        set_group(self._project, rater_ids, group)
        self.groups_changed.emit()
        self.gateway.raters_changed.emit()

    # -- privacy (rules in slicereview.app.images.privacy and .sharing) ----------------------
    def privacy(self):
        """The privacy setting in force, its log, and ``(case id, warnings)`` of the images to
        check before sharing them."""
        from slicereview.app.images import privacy, sharing

        project = self._project
        return privacy.setting(project), project.privacy.log(), sharing.flagged(project)

    def describe_privacy_change(self, images, names) -> str:
        from slicereview.app.images.privacy import describe_change, setting

        return describe_change(setting(self._project), images, names)

    def change_privacy(self, images, names) -> None:
        """Record the new setting (the owner's login only: ``NotOwnerError``) and tell the
        views."""
        from slicereview.app.images.privacy import change

        project = self._project
        who = project.raters.own()
        self.gateway.write(lambda: change(project, images=images, names=names,
                                          by=who.name if who else "owner"))
        self.privacy_changed.emit()

    # -- questions (rules in slicereview.app.qa.questions) -------------------------------------
    def questions(self) -> list:
        """Every question in its order, retired ones too."""
        return self._project.questions.all(retired=True) if self.gateway.is_open else []

    def question_answers(self, question) -> int:
        from slicereview.app.qa.questions import answered

        return answered(self._project, question)

    def edit_questions(self, action: str, *args, **kwargs):
        """Run one of :mod:`slicereview.app.qa.questions`' writes (``add_question``,
        ``edit_question``, ``move_question``, ``retire_question``, ``restore_question``,
        ``read_questions``, ``write_questions``) on the open project and tell the views."""
        from slicereview.app.qa import questions

        if action not in ("add_question", "edit_question", "move_question", "retire_question",
                          "restore_question", "read_questions", "write_questions"):
            raise ValueError(f"not a question action: {action}")
        result = getattr(questions, action)(self._project, *args, **kwargs)
        if action != "write_questions":
            self.questions_changed.emit()
        return result

    # -- batches ----------------------------------------------------------------------------
    def batches(self) -> list[Batch]:
        project = self.gateway.project
        return project.workflow.batches() if project is not None else []

    def batch_images(self, batch_id: int) -> list[Image]:
        project = self._project
        batch = project.workflow.batch(batch_id)
        return project.images.all(project.image_sets.members(batch.image_set_id))

    def assignments(self, batch_id: int) -> list[tuple[int | None, str | None]]:
        return self._project.workflow.batch_assignments(batch_id)

    def image_sets(self) -> list[tuple[int, str, int]]:
        return self.gateway.rating.image_sets()

    def image_set(self, set_id: int) -> list[int]:
        return self._project.image_sets.members(set_id)

    def define_batch(self, name: str, phase: str, image_ids: list[int], **rules) -> int:
        if not name.strip():
            raise ValueError("A batch needs a name.")
        if self._project.workflow.batch_by_name(name.strip()) or \
                self._project.image_sets.id_by_name(name.strip()):
            raise ValueError(f"There is already an image set or batch named {name.strip()!r}.")
        batch_id = _workflow().define_batch(self._project, name.strip(), phase, image_ids, **rules)
        self.workflow_changed.emit()
        return batch_id

    def edit_batch(self, batch_id: int, **rules) -> None:
        _workflow().edit_batch(self._project, batch_id, **rules)
        self.workflow_changed.emit()

    # -- pre-annotation (rules in slicereview.app.qa.preannotation) -----------------------------
    def models(self) -> list[tuple[int, str]]:
        """``(rater id, NAME@VERSION)`` of the project's models."""
        from slicereview.app.qa import preannotation

        return [(r.id, preannotation.model_label(r)) for r in preannotation.models(self._project)]

    def preannotation(self, batch_id: int) -> tuple[str, int | None, str | None, int]:
        """``(sentence, model id, share, seed)`` of the batch's pre-annotation (no model:
        ``None``s and seed 0)."""
        from slicereview.app.qa import preannotation

        setting = self._project.preannotation.setting(batch_id)
        text = preannotation.describe(self._project, batch_id)
        if setting is None:
            return text, None, None, 0
        return text, setting.model_id, setting.share, setting.seed

    def set_preannotation(self, batch_id: int, model_id: int | None, share: str | None,
                          seed: int) -> None:
        """Show the model on ``share`` of the batch (``None``: show no model any more), set
        by this connection's login (on a file: "owner")."""
        from slicereview.app.qa import preannotation

        project = self._project
        me = project.raters.own()
        owner = me.name if me is not None else "owner"
        if share is None:
            self.gateway.write(lambda: preannotation.clear_preannotation(project, batch_id))
        else:
            if model_id is None:
                raise ValueError("Choose the model to show (import its predictions first).")
            self.gateway.write(lambda: preannotation.set_preannotation(
                project, batch_id, model_id, share, seed, owner))
        self.workflow_changed.emit()

    # -- repeats (intra-rater agreement; rules in slicereview.app.qa.repeats) ------------------
    def repeat_progress(self, batch_id: int) -> list[tuple[Rater, int, int]]:
        """``(annotator, to do, done)`` repeats of each annotator of the batch."""
        from slicereview.app.qa import repeats

        counts = repeats.batch_repeat_progress(self._project, batch_id)
        raters = {r.id: r for r in self._project.raters.all()}
        return [(raters[r], *counts[r]) for r in counts]

    def schedule_repeats(self, batch_id: int, percent: float, seed: int) -> dict[int, int]:
        """Schedule ``percent`` % of the batch to come back to each of its annotators
        (:func:`slicereview.app.qa.repeats.schedule_batch_repeats`, seeded); returns rater id →
        number of repeated images. Existing repeats are kept."""
        from slicereview.app.qa import repeats

        out = repeats.schedule_batch_repeats(self._project, batch_id, percent / 100.0, seed)
        self.workflow_changed.emit()
        return out

    # -- gold and the onboarding pre-filter -------------------------------------------------
    def gold_origin(self, image_id: int) -> str | None:
        gold = self._project.workflow.gold(image_id)
        return None if gold is None else gold[2]

    def gold_candidates(self, image_id: int) -> list[tuple[int, str]]:
        """``(annotation id, label)`` of the finished annotations of an image (experts'
        first: reviewers and owners, then annotators)."""
        project = self._project
        found = []
        for ann in project.annotations.all(image_id=image_id, status=_workflow().FINISHED):
            rater = project.raters.get(ann.rater_id)
            if rater.is_model:  # (a model's prediction is never gold)
                continue
            found.append((rater.role is Role.ANNOTATOR, ann.id,
                          f"{rater.name} ({rater.role}) — {ann.phase}, round {ann.round}, "
                          f"annotation {ann.id}"))
        return [(i, label) for _, i, label in sorted(found)]

    def mark_gold(self, annotation_id: int) -> None:
        _workflow().mark_gold(self._project, annotation_id)
        _workflow().score_pending(self._project)
        self.workflow_changed.emit()

    def import_gold(self, image_id: int, file: str | Path) -> None:
        _workflow().import_gold_mask(self._project, image_id, file)
        _workflow().score_pending(self._project)
        self.workflow_changed.emit()

    def onboarding(self, batch_id: int) -> list[OnboardingRow]:
        """The pre-filter of a batch with mean scores against gold and the decision in force."""
        project = self._project
        batch = project.workflow.batch(batch_id)
        images = set(project.image_sets.members(batch.image_set_id))
        scores = project.workflow.gold_scores()
        decisions = {q.rater_id: q for q in project.workflow.qualifications()
                     if q.batch_id == batch_id}
        rows = []
        for pre in _workflow().prefilter(project, batch_id):
            mine = [scores[a.id] for a in project.annotations.all(
                rater_id=pre.rater_id, phase=batch.phase, status=_workflow().FINISHED)
                if a.image_id in images and a.id in scores]
            q = decisions.get(pre.rater_id)
            said = None
            if q is not None:
                who = project.raters.get(q.decided_by).name if q.decided_by else "?"
                said = (f"{'go on' if q.go_on else 'stop'} — {who}, {q.created_at[:16]}"
                        + (f": {q.reason}" if q.reason else ""))
            rows.append(OnboardingRow(
                project.raters.get(pre.rater_id), pre.scored, pre.mean_dice,
                _mean([s.get("strict_alpha") for s in mine]),
                _mean([s.get("relaxed_alpha") for s in mine]),
                _mean([s.get("strict_box_alpha") for s in mine]), pre.passes, said))
        return rows

    def decide(self, batch_id: int, rater_id: int, owner_id: int, go_on: bool | None = None,
               reason: str = "") -> int:
        found = _workflow().decide(self._project, batch_id, rater_id, owner_id, go_on, reason)
        self.workflow_changed.emit()
        return found

    # -- guidelines -------------------------------------------------------------------------
    def guideline_versions(self) -> list[tuple[int, str]]:
        project = self.gateway.project
        return project.guidelines.versions() if project is not None else []

    def guideline_text(self, version: int | None = None) -> str:
        found = self._project.guidelines.get(version)
        return found[1] if found else ""

    def guideline_diff(self, old: int | None, new: int) -> str:
        """Unified diff of the Markdown between two versions (``old=None``: from nothing)."""
        before = self.guideline_text(old) if old else ""
        return "".join(difflib.unified_diff(
            before.splitlines(keepends=True), self.guideline_text(new).splitlines(keepends=True),
            f"guidelines v{old}" if old else "(nothing)", f"guidelines v{new}"))

    def save_guidelines(self, owner_id: int, text: str) -> int:
        """Save the owner's text; a changed text is a new version. Returns the version."""
        before = self._project.guidelines.get()
        version = _guidelines().edit_guidelines(self._project, owner_id, text)
        if before is None or before[0] != version:
            self.guidelines_changed.emit(version)
        return version

    def review_comments(self) -> list[tuple[int, str]]:
        """``(review id, label)`` of reviews that say something (comment or reason tags),
        newest first."""
        project = self._project
        cases = {i.id: i.case_id for i in project.images.all()}
        rows = []
        for r in project.reviews.all():
            said = "; ".join([*r.tags, *([r.comment.strip()] if r.comment.strip() else [])])
            if said:
                kind = r.decision or f"pin ({r.pin_kind})"
                rows.append((r.id, f"{cases.get(r.image_id, '?')} · {kind} · "
                             f"{project.raters.get(r.reviewer_id).name}: {said}"))
        return rows[::-1]

    def example_crop(self, review_id: int) -> bytes:
        return _guidelines().example_crop(self._project, review_id)

    def promote(self, owner_id: int, review_id: int, text: str | None = None) -> int:
        version, _entry = _guidelines().promote_review(self._project, owner_id, review_id, text)
        self.guidelines_changed.emit(version)
        return version

    def entry_crops(self) -> dict[int, bytes]:
        """Entry id → its crop PNG (for ``entry:ID`` pictures in the Markdown)."""
        return {e[0]: e[4] for e in self._project.guidelines.entries() if e[4]}

    def changes_for(self, rater_id: int, *, record: bool) -> GuidelineChanges:
        """What changed in the guidelines since an annotator last looked (``record``: they
        look now)."""
        return _guidelines().guideline_changes(self._project, rater_id, record=record)

    # -- the review queue's audit and the batches' selection orders ----------------------------
    def audit(self):
        """The audit (:func:`slicereview.app.review.audit.audit_settings`), ``None`` when off."""
        from slicereview.app.review.audit import audit_settings

        return audit_settings(self._project)

    def set_audit(self, owner_id: int, share: float, seed: int | None):
        """Set the audit share (0: off) and seed (one transaction)."""
        from slicereview.app.review.audit import set_audit

        return set_audit(self._project, owner_id, share, seed)

    def selection_order(self, batch_id: int):
        """The batch's selection order (:mod:`slicereview.app.qa.selection`)."""
        from slicereview.app.qa.selection import order_of

        return order_of(self._project, batch_id)

    def set_selection_order(self, owner_id: int, batch_id: int, order: str,
                            rater_id: int | None, seed: int):
        """Store the batch's selection order (one transaction)."""
        from slicereview.app.qa.selection import set_order

        return set_order(self._project, owner_id, batch_id, order, rater_id, seed)


__all__ = ["OnboardingRow", "OwnerService", "Phase"]
