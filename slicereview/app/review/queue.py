"""The review queue: which annotations an image's features come from, the features cache, the
ranked queue and the evaluation of priority methods against what reviewers did.

Rules held here, once:

* **which annotations** — a :class:`QueueSpec` selects a phase, a round (``None``: each
  annotator's latest *finished* round, so a revision in progress does not hide the work under
  review), and the annotators (a list of rater ids, a group, or everyone). Finished means
  ``submitted`` or ``nothing_to_annotate``; the latter counts as an all-zero mask.
* **enough annotations** — an image needs two finished annotations to have agreement; images
  with one are listed apart (:attr:`QueueResult.not_enough`), never ranked.
* **repeats** — an included annotator's finished ``(first, repeat)`` pairs of the phase
  (:mod:`slicereview.app.qa.repeats`; both ``submitted`` or ``nothing_to_annotate``) give the
  image's intra-rater α (:func:`~slicereview.engines.review.features.intra_rater_alpha`, the
  mean over those pairs); without one it is NaN. Repeats never count as another annotator.
* **review first** — images the low-agreement rule flagged *review first* (a batch of the
  queue's phase, :func:`slicereview.app.qa.low_agreement.review_first`) come before every other
  image in every method, in the method's order among themselves; each says why
  (:attr:`QueueRow.flag`, first in its ``explain``). The flag is the owner's rule acting on
  the queue; the methods' evaluation (:func:`evaluate`) ranks by the method alone.
* **audit slots** — when the owner set an audit share (:mod:`slicereview.app.review.audit`),
  one slot in ``round(1 / share)`` shows an image drawn at random from the whole queue
  (review-first images included), reviewed like the others.
* **the cache** — features are stored per image and selection with a *source key*, a digest of
  the included annotations' ids, rounds, statuses and edit times (``updated_at``, stamped by
  every polygon or status change), the same of the repeat pairs, and the image size. An entry
  is used only while its key matches, so editing one annotation recomputes that image alone.

Example
-------
>>> import tempfile, pathlib
>>> import numpy as np
>>> from slicereview.model import NewImage, Polygon
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> images = project.images.add_source(pathlib.Path(__file__), "0" * 64, "png",
...                             [NewImage(8, 8, frame=k) for k in range(2)])
>>> square = Polygon(np.array([[1.0, 1.0], [5.0, 1.0], [5.0, 5.0], [1.0, 5.0]]))
>>> for name in ("a", "b"):
...     ann = project.annotations.for_image(project.raters.add(name), images[0])
...     _ = project.polygons.replace(ann.id, [square])
...     project.annotations.set_status(ann.id, "submitted")
>>> result = compute_features(project, QueueSpec())
>>> result.computed, compute_features(project, QueueSpec()).computed
((1,), ())
>>> [(row.rank, row.case_id, row.status) for row in queue(project, QueueSpec())]
[(1, 'C000001', 'not reviewed')]
>>> project.close()
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from slicereview.app.models.raters import model_ids
from slicereview.app.qa.repeats import repeat_pairs_for_queue
from slicereview.engines.review.audit import interleave
from slicereview.engines.review.evaluation import (
    MethodEvaluation,
    ReviewSignal,
    evaluate_methods,
    review_relevance,
)
from slicereview.engines.review.features import ImageFeatures
from slicereview.engines.review.parallel import FeatureTask, default_workers, features_of_images
from slicereview.engines.review.priority import (
    METHODS,
    MODEL_METHODS,
    explanations,
    priority,
    scores,
)
from slicereview.model import Annotation, AnnotationStatus, Decision, Phase, Role
from slicereview.store import Project

#: Finished work: what a review looks at.
FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
#: Bump when the feature computation changes, so every cached entry is recomputed.
FEATURES_VERSION = 2
#: Batches smaller than this are computed inline: spawning workers costs more.
INLINE_LIMIT = 16

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class QueueSpec:
    """Which annotations a queue is built from, and how it is ranked.

    Attributes
    ----------
    phase : str
        ``"onboarding"``, ``"pilot"`` or ``"formal"``.
    round : int or None
        A round number, or ``None`` for each annotator's latest finished round.
    annotators : tuple of int or None
        Rater ids to include (``None``: every annotator, or the ``group``).
    group : str or None
        Include the annotators of this group (exclusive with ``annotators``).
    level : {"relaxed", "strict"}
        Boxes of the box features.
    method : str
        A priority method of :data:`~slicereview.engines.review.priority.METHODS`.
    seed : int
        Seed of the ``"random"`` method.
    model : int or None
        The model rater whose distance from the consensus the ``"model-disagreement"``
        method ranks by (needed by it; :mod:`slicereview.app.review.model_view`).
    """

    phase: str = "formal"
    round: int | None = None
    annotators: tuple[int, ...] | None = None
    group: str | None = None
    level: str = "relaxed"
    method: str = "box-score"
    seed: int = 0
    model: int | None = None

    def __post_init__(self) -> None:
        Phase(self.phase)
        if self.annotators is not None and self.group is not None:
            raise ValueError("choose annotators or a group, not both")
        if self.level not in ("relaxed", "strict"):
            raise ValueError(f"level must be 'relaxed' or 'strict', got {self.level!r}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.round is not None and self.round < 1:
            raise ValueError(f"rounds start at 1, got {self.round}")
        if self.method in MODEL_METHODS and self.model is None:
            raise ValueError(f"the {self.method} method needs a model: name one "
                             f"(--model NAME[@VERSION])")

    @property
    def annotators_key(self) -> str:
        """How the cache names this selection of annotators."""
        if self.annotators is not None:
            return "ids:" + ",".join(str(i) for i in sorted(set(self.annotators)))
        return "all" if self.group is None else f"group:{self.group}"


@dataclass(frozen=True)
class QueueResult:
    """Features of the images that can be ranked, and what happened computing them.

    Attributes
    ----------
    features : dict of int to ImageFeatures
        Images with two or more finished annotations.
    annotations : dict of int to tuple of int
        image id → the ids of the annotations its features come from.
    not_enough : tuple of int
        Images with exactly one finished annotation ("not enough annotations").
    computed : tuple of int
        Images whose features were computed now (the others came from the cache).
    cancelled : bool
        The computation was cancelled; ``features`` holds what was finished.
    cases : dict of int to (str, int, int)
        image id → ``(case_id, rows, cols)`` of the images above (read once, for the rows).
    """

    features: dict[int, ImageFeatures]
    annotations: dict[int, tuple[int, ...]]
    not_enough: tuple[int, ...] = ()
    computed: tuple[int, ...] = ()
    cancelled: bool = False
    cases: dict[int, tuple[str, int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class QueueRow:
    """One image of the queue: rank (1 = most urgent), features, score, status, why."""

    rank: int
    image_id: int
    case_id: str
    features: ImageFeatures
    score: float
    status: str
    explain: str
    annotation_ids: tuple[int, ...] = field(default=())
    #: Why the low-agreement rule put the image first ("" when it did not).
    flag: str = ""
    #: Shown in a random audit slot (:mod:`slicereview.app.review.audit`); for the owner's
    #: eyes (``audit show``): the reviewer's queue does not mark it.
    audit: bool = False

    def as_dict(self) -> dict[str, Any]:
        """Flat values for a table or CSV: rank, ids, score, status, review first, then every
        feature."""
        out: dict[str, Any] = {"rank": self.rank, "image_id": self.image_id,
                               "case_id": self.case_id, "score": self.score,
                               "status": self.status, "review_first": self.flag}
        out.update(self.features.to_dict())
        out["wbbox_per_pixel"] = self.features.wbbox_per_pixel
        return out


def _included_raters(project: Project, spec: QueueSpec) -> set[int] | None:
    if spec.annotators is not None:
        return set(spec.annotators)
    if spec.group is not None:
        found = {r.id for r in project.raters.all()
                 if r.group == spec.group and r.role is Role.ANNOTATOR}
        if not found:
            raise ValueError(f"no annotators in group {spec.group!r}")
        return found
    return None


def selection(project: Project, spec: QueueSpec) -> dict[int, list[Annotation]]:
    """image id → the finished annotations a queue of ``spec`` uses (one per annotator)."""
    raters = _included_raters(project, spec)
    models = model_ids(project)  # (the queue ranks people's work; a model is never one)
    chosen: dict[int, dict[int, Annotation]] = {}
    for ann in project.annotations.all(phase=spec.phase, round=spec.round, status=FINISHED):
        if (raters is None or ann.rater_id in raters) and ann.rater_id not in models:
            # ordered by image, rater, round: the latest round per annotator wins
            chosen.setdefault(ann.image_id, {})[ann.rater_id] = ann
    return {i: list(by_rater.values()) for i, by_rater in chosen.items()}


def source_key(annotations: Sequence[Annotation], shape: tuple[int, int],
               repeats: Sequence[tuple[Annotation, Annotation]] = ()) -> str:
    """Digest of what an image's features depend on (see the module docstring)."""
    parts = [f"v{FEATURES_VERSION}", f"{shape[0]}x{shape[1]}"]
    parts += sorted(f"{a.id}:{a.round}:{a.status}:{a.updated_at}" for a in annotations)
    parts += sorted(f"r{a.id}:{a.updated_at}/{b.id}:{b.status}:{b.updated_at}"
                    for a, b in repeats)
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def compute_features(
    project: Project, spec: QueueSpec, progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None, workers: int | None = None,
) -> QueueResult:
    """Features of every image with two or more finished annotations, from the cache where
    the source key matches, else computed from the stored polygons and cached.

    ``workers`` defaults to inline for fewer than :data:`INLINE_LIMIT` images to compute,
    else a process pool (:func:`~slicereview.engines.review.parallel.features_of_images`).
    ``progress(done, total)`` counts the images to compute.
    """
    chosen = selection(project, spec)
    pairs = repeat_pairs_for_queue(project, spec.phase, _included_raters(project, spec))
    cases = project.images.cases(chosen)
    rnd = spec.round or 0
    cached = project.reviews.features(spec.phase, rnd, spec.annotators_key, spec.level)
    features: dict[int, ImageFeatures] = {}
    keys: dict[int, str] = {}
    not_enough = []
    for image_id, anns in chosen.items():
        if len(anns) < 2:
            not_enough.append(image_id)
            continue
        key = source_key(anns, cases[image_id][1:], pairs.get(image_id, ()))
        hit = cached.get(image_id)
        if hit is not None and hit[0] == key:
            features[image_id] = ImageFeatures.from_dict(hit[1])
        else:
            keys[image_id] = key
    tasks = [FeatureTask.from_polygons(
                i, cases[i][1:],
                [project.polygons.of(a.id) for a in chosen[i]],
                [(project.polygons.of(a.id), project.polygons.of(b.id))
                 for a, b in pairs.get(i, ())],
                level=spec.level)  # type: ignore[arg-type]
            for i in keys]
    if workers is None:
        workers = 1 if len(tasks) < INLINE_LIMIT else default_workers()
    new = features_of_images(tasks, workers=workers, progress=progress, cancelled=cancelled)
    if new:
        project.reviews.store_features(spec.phase, rnd, spec.annotators_key, spec.level,
                                       [(i, keys[i], f.to_dict()) for i, f in new.items()])
    features.update(new)
    if spec.model is not None:  # (never cached: it follows the model's prediction)
        from slicereview.app.review.model_view import model_disagreements

        far = model_disagreements(project, {i: [a.id for a in chosen[i]] for i in features},
                                  spec.model)
        features = {i: replace(f, model_disagreement=far[i]) for i, f in features.items()}
    ordered = {i: features[i] for i in sorted(features)}
    return QueueResult(
        features=ordered,
        annotations={i: tuple(a.id for a in chosen[i]) for i in ordered},
        not_enough=tuple(sorted(not_enough)),
        computed=tuple(new),
        cancelled=len(new) < len(tasks),
        cases=cases,
    )


def review_status(decided: int, total: int) -> str:
    """``"reviewed"`` (a decision on every annotation), ``"partly reviewed"`` or
    ``"not reviewed"``.

    >>> review_status(0, 3), review_status(2, 3), review_status(3, 3)
    ('not reviewed', 'partly reviewed', 'reviewed')
    """
    if decided == 0:
        return "not reviewed"
    return "reviewed" if decided >= total else "partly reviewed"


def queue(project: Project, spec: QueueSpec, result: QueueResult | None = None,
          **compute: Any) -> list[QueueRow]:
    """The ranked queue of ``spec`` (most urgent first), computing missing features first
    (``compute`` goes to :func:`compute_features`), or from a given ``result``."""
    if result is None:
        result = compute_features(project, spec, **compute)
    from slicereview.app.qa.low_agreement import review_first
    from slicereview.app.review.audit import audit_settings

    feats = result.features
    flags = review_first(project, spec.phase)
    order = method_order(project, spec, result, flags)
    audit = audit_settings(project)
    slots = ([(i, False) for i in order] if audit is None
             else interleave(order, audit.share, audit.seed))
    score = scores(feats, spec.method, spec.seed)
    why = explanations(feats, spec.method, spec.seed)
    decided = project.reviews.current_decisions()
    cases = result.cases or project.images.cases(order)
    rows = []
    for rank, (image_id, audited) in enumerate(slots, start=1):
        anns = result.annotations[image_id]
        status = review_status(sum(a in decided for a in anns), len(anns))
        flag = flags.get(image_id, "")
        explain = f"{flag}\n{why[image_id]}" if flag else why[image_id]
        rows.append(QueueRow(rank, image_id, cases[image_id][0], feats[image_id],
                             score[image_id], status, explain, anns, flag, audited))
    return rows


def method_order(project: Project, spec: QueueSpec, result: QueueResult,
                 flags: dict[int, str] | None = None) -> list[int]:
    """The queue's images in the method's order, the review-first images first (without
    audit slots: :mod:`slicereview.app.review.audit` interleaves them)."""
    if flags is None:
        from slicereview.app.qa.low_agreement import review_first

        flags = review_first(project, spec.phase)
    ranked = priority(result.features, spec.method, spec.seed)
    return [i for i in ranked if i in flags] + [i for i in ranked if i not in flags]


def relevance(project: Project, result: QueueResult) -> dict[int, int]:
    """Graded ground truth ([CrowdSegQA, §5.4]) of the queue's images from the stored reviews: 3
    expert review, 2 commented (a pin, a reason or a comment), 1 strict α ≤ 0.667, else 0."""
    decided = project.reviews.current_decisions()
    signals: dict[int, list[ReviewSignal]] = {}
    for image_id, anns in result.annotations.items():
        found = [decided[a] for a in anns if a in decided]
        found += [r for r in project.reviews.all(image_id=image_id) if r.is_pin]
        signals[image_id] = [ReviewSignal(r.decision is Decision.EXPERT_REVIEW, r.commented)
                             for r in found]
    alphas = {i: f.strict_alpha for i, f in result.features.items()}
    return review_relevance(signals, alphas)


def evaluate(project: Project, spec: QueueSpec, ks: Sequence[int] | None = None,
             methods: Sequence[str] | None = None, **compute: Any) -> MethodEvaluation:
    """P@k, R@k and NDCG@k of every method on the images of ``spec`` against the stored
    reviews (:func:`relevance`); ``ks`` default ``1 .. M``; ``methods`` default every method,
    those of a model only when ``spec`` names one."""
    if methods is None:
        methods = [m for m in METHODS if spec.model is not None or m not in MODEL_METHODS]
    result = compute_features(project, spec, **compute)
    if not result.features:
        raise ValueError("no image has two finished annotations: nothing to evaluate")
    grades = relevance(project, result)
    return evaluate_methods(result.features, grades, methods, ks, spec.seed)


def nan_to_none(value: float) -> float | None:
    """For CSV and JSON: NaN as an empty value."""
    return None if isinstance(value, float) and math.isnan(value) else value
