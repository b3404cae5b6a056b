"""The model rater and the rule that a model is never counted as a person.

A model is a rater of kind ``model`` (:class:`~slicereview.model.RaterKind`) with a name and
a version: its predictions are stored as its finished annotations, so exports (``export
--rater NAME@VERSION``), the queue and the report can include it, and it does annotator-like
work (its role is ``annotator``), but it has no login, no group, no claims, no batch and no
package, and **every count of people leaves it out**: annotator counts, α between people,
per-annotator tables, qualifications, next image. Code that counts people filters raters with
:func:`people` or :func:`is_person`, and annotations with :func:`people_annotations`.

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> project = Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj")
>>> _ = project.raters.add("ann")
>>> model = model_rater(project, "bac-unet", "1.2", card={"licence": "MIT"})
>>> model.label, model.is_model, model_rater(project, "bac-unet", "1.2").id == model.id
('bac-unet@1.2', True, True)
>>> [r.name for r in people(project.raters.all())], [r.label for r in models(project)]
(['ann'], ['bac-unet@1.2'])
>>> parse_label("bac-unet@1.2"), parse_label("bac-unet")
(('bac-unet', '1.2'), ('bac-unet', None))
>>> project.close()
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from slicereview.model import Annotation, AnnotationStatus, Rater
from slicereview.store import Project

_A = TypeVar("_A", bound=Annotation)


def parse_label(text: str) -> tuple[str, str | None]:
    """``NAME[@VERSION]`` as ``(name, version or None)``; ``ValueError`` with one sentence for
    an empty name or version or a second ``@``."""
    name, at, version = text.strip().partition("@")
    name, version = name.strip(), version.strip()
    if not name or (at and not version) or "@" in version:
        raise ValueError(f"A model is named NAME or NAME@VERSION (text without a second '@'), "
                         f"not {text!r}.")
    return name, (version if at else None)


def model_rater(project: Project, name: str, version: str | None = None, *,
                card: dict | None = None, simulated: bool = False) -> Rater:
    """The rater of model ``name`` at ``version``, created when missing (kind ``model``, with
    what ``card`` says that the project keeps: ``licence``, ``description``, ``source``).

    Raises ``ValueError`` when a person already has the name ``NAME@VERSION`` (or ``NAME``):
    a person is never turned into a model.
    """
    label = f"{name}@{version}" if version else name
    parse_label(label)  # (one sentence for a bad name)
    existing = project.raters.by_name(label)
    if existing is not None:
        if not existing.is_model:
            raise ValueError(f"{label!r} is a person of this project, not a model: give the "
                             f"model another name.")
        return existing
    kept = {k: card[k] for k in ("licence", "description", "source") if card and k in card}
    return project.raters.get(project.raters.add_model(name, version, kept,
                                                       simulated=simulated))


def is_person(rater: Rater) -> bool:
    """True for a person (an annotator, reviewer or owner, simulated or not), False for a
    model: the one test every count of people uses."""
    return not rater.is_model


def people(raters: Iterable[Rater]) -> list[Rater]:
    """The persons among ``raters``, in their order (models left out)."""
    return [r for r in raters if is_person(r)]


def models(project: Project) -> list[Rater]:
    """The project's model raters, by label."""
    return sorted((r for r in project.raters.all() if r.is_model), key=lambda r: r.label)


def model_ids(project: Project) -> frozenset[int]:
    """The ids of the project's model raters."""
    return frozenset(r.id for r in project.raters.all() if r.is_model)


def people_annotations(project: Project, annotations: Sequence[_A],
                       models_ids: frozenset[int] | None = None) -> list[_A]:
    """The annotations made by people (a model's predictions left out), in their order.
    ``models_ids``: :func:`model_ids` as the caller read it, else read here."""
    ids = model_ids(project) if models_ids is None else models_ids
    return [a for a in annotations if a.rater_id not in ids]


def find_model(project: Project, text: str) -> Rater:
    """The model rater named by ``text``: its label ``NAME@VERSION``, or ``NAME`` when exactly
    one version of it exists. ``LookupError`` with one sentence otherwise."""
    name, version = parse_label(text)
    found = [r for r in models(project) if r.name == name and (version is None
                                                               or r.version == version)]
    exact = [r for r in found if r.label == text.strip()]
    if exact:
        return exact[0]
    if len(found) == 1:
        return found[0]
    if not found:
        known = ", ".join(r.label for r in models(project)) or "none yet"
        raise LookupError(f"No model {text!r} in this project (its models: {known}).")
    raise LookupError(f"{text!r} has several versions here ("
                      f"{', '.join(r.label for r in found)}): name one as NAME@VERSION.")


@dataclass(frozen=True)
class ModelRow:
    """One model rater as Owner ▸ Models… and ``slicereview models`` list it: its label,
    what its card said, and its predictions (images; with polygons; with nothing found)."""

    rater_id: int
    label: str
    licence: str
    description: str
    simulated: bool
    images: int
    submitted: int
    empty: int


def model_counts(project: Project) -> list[ModelRow]:
    """Every model rater with the counts of its finished predictions, by label."""
    rows = []
    for r in models(project):
        anns = project.annotations.all(rater_id=r.id)
        submitted = sum(a.status is AnnotationStatus.SUBMITTED for a in anns)
        empty = sum(a.status is AnnotationStatus.NOTHING_TO_ANNOTATE for a in anns)
        rows.append(ModelRow(r.id, r.label, str(r.card.get("licence", "")),
                             str(r.card.get("description", "")), r.simulated,
                             len({a.image_id for a in anns}), submitted, empty))
    return rows


def most_predictions_first(rows: Sequence[ModelRow]) -> list[ModelRow]:
    """``rows`` with the model that predicted the most images first (ties by label): the
    model a view offers first, so that a model with no prediction here is not the default.

    >>> row = lambda label, n: ModelRow(0, label, "", "", False, n, n, 0)
    >>> [r.label for r in most_predictions_first([row("a@1", 0), row("b@1", 8)])]
    ['b@1', 'a@1']
    """
    return sorted(rows, key=lambda r: (-r.images, r.label))
