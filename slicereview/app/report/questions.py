"""Image-level classification questions answered by several annotators ([Piwowar2008]): accuracy
of the majority vote against gold answers as a function of the number of annotators, the
generalizability coefficient ICC(2,1) and the annotators needed for a target.

Definitions:

* **answers** — a question's value in the image classifications of each annotator's latest
  finished annotation of the image (any phase; gold left out); radio and dropdown questions
  only (one value per answer).
* **gold answers** — the question's value in the image's gold annotation (an expert's
  annotation marked gold; an imported mask carries no answers).
* **majority vote of k annotators** — for every image with gold and ≥ k answers, every subset
  of k of its annotators (at most :data:`MAX_SUBSETS` seeded random subsets per image): the
  most frequent value; a tie counts as wrong (no majority), which is why odd k are preferred.
  Accuracy is the share of correct votes over all subsets of all images.
* **generalizability** — ICC(2,1) of the answers coded as the option's position in the
  question's option list (ordinal coding; exact for two options), from
  :func:`~slicereview.engines.agreement.generalizability`; annotators needed for a target
  coefficient by Spearman–Brown (:func:`~slicereview.engines.agreement.raters_needed`).

Example
-------
>>> majority(["a", "a", "b"]), majority(["a", "b"])
('a', None)
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from slicereview.engines.agreement import generalizability, raters_needed
from slicereview.model import AnnotationStatus
from slicereview.store import Project

FINISHED = (AnnotationStatus.SUBMITTED, AnnotationStatus.NOTHING_TO_ANNOTATE)
MAX_SUBSETS = 50
#: The sufficient generalizability coefficient for system evaluation ([Hripcsak1999], as
#: [Piwowar2008] uses it).
TARGET = 0.7


def majority(values: Sequence[object]) -> object | None:
    """The most frequent value, ``None`` on a tie for first place."""
    top = Counter(values).most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


@dataclass(frozen=True)
class QuestionAnalysis:
    """One question: ``accuracy`` k → (accuracy, votes); ``icc21`` (NaN when it cannot be
    computed), ``needed`` annotators for :data:`TARGET` (``None``: unreachable), ``images``
    with two or more answers, ``gold_images`` with gold answers."""

    name: str
    title: str
    images: int
    gold_images: int
    accuracy: dict[int, tuple[float, int]]
    icc21: float
    needed: int | None


def _answers(project: Project, name: str) -> tuple[dict[int, dict[int, object]],
                                                   dict[int, object]]:
    gold_ids = project.workflow.gold_annotation_ids()
    answers: dict[int, dict[int, object]] = {}
    gold: dict[int, object] = {}
    for ann in project.annotations.all(status=FINISHED):
        value = ann.classifications.get(name)
        if value is None or isinstance(value, list):
            continue
        if ann.id in gold_ids:
            gold[ann.image_id] = value
        else:
            answers.setdefault(ann.image_id, {})[ann.rater_id] = value
    return answers, gold


def majority_accuracy(answers: dict[int, dict[int, object]], gold: dict[int, object],
                      seed: int = 0) -> dict[int, tuple[float, int]]:
    """k → (accuracy of the majority vote of k annotators against gold, number of votes)."""
    rng = random.Random(seed)
    most = max((len(v) for i, v in answers.items() if i in gold), default=0)
    found: dict[int, tuple[float, int]] = {}
    for k in range(1, most + 1):
        right = votes = 0
        for image, by_rater in answers.items():
            if image not in gold or len(by_rater) < k:
                continue
            values = list(by_rater.values())
            subsets: Iterable[Sequence[object]]
            if math.comb(len(values), k) <= MAX_SUBSETS:
                subsets = itertools.combinations(values, k)
            else:
                subsets = [rng.sample(values, k) for _ in range(MAX_SUBSETS)]
            for subset in subsets:
                right += majority(subset) == gold[image]
                votes += 1
        if votes:
            found[k] = (right / votes, votes)
    return found


def analyse_questions(project: Project, seed: int = 0) -> list[QuestionAnalysis]:
    """:class:`QuestionAnalysis` of every image-level radio/dropdown question (retired ones
    too: their answers stay) answered by two or more annotators on some image."""
    found = []
    for q in project.questions.all("image", retired=True):  # retired ones keep their answers
        if q.kind not in ("radio", "dropdown"):
            continue
        answers, gold = _answers(project, q.name)
        multi = {i: v for i, v in answers.items() if len(v) >= 2}
        if not multi:
            continue
        options = [o if isinstance(o, str) else str(o) for o in q.options]
        rows = [(i, r, float(options.index(v)) if v in options else math.nan)
                for i, by in multi.items() for r, v in by.items()]
        try:
            icc = generalizability(rows).icc21
        except ValueError:
            icc = math.nan
        try:
            needed: int | None = raters_needed(icc, TARGET)
        except ValueError:
            needed = None
        found.append(QuestionAnalysis(q.name, q.title, len(multi),
                                      sum(i in gold for i in multi),
                                      majority_accuracy(answers, gold, seed), icc, needed))
    return found
