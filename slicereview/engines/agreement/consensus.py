"""Labelbox-style consensus between labels ([Thomas2019], "Labelbox Consensus Calculation Method").

A *label* is one annotator's complete set of global classifications and shapes on one image.
Scores are fractions in [0, 1] (Labelbox prints percent). Following the method:

* radio and text: 1 when equal (text is exact: case- and whitespace-sensitive), else 0;
* checklist: ``|A ∩ B| / max(|A|, |B|)``;
* dropdown: the answer is the path ``("Urban", "Day")``; shared options over the depth of the
  deeper path, ``|set(A) ∩ set(B)| / max(len(A), len(B))``;
* a classification present in only one label scores 0;
* shapes (polygons rasterised to masks, or boxes) are paired within each object class, nearest
  first: every shape of label A points at its nearest free shape of label B; when several point
  at the same one, the best match keeps it and the others re-pair among the remaining shapes,
  until every A shape is paired or none is left. "Nearest" is the highest IoU, ties broken by
  the smaller centroid distance (so disjoint shapes still pair with their neighbour), then by
  input order;
* a pair scores ``(IoU + Σ nested) / (1 + max(nested_A, nested_B))``, an unpaired shape 0;
* a class scores ``Σ pairs / max(shapes_A, shapes_B)``;
* two labels score ``(Σ global + Σ class) / (max(global_A, global_B) + max(classes_A,
  classes_B))`` — the maxima of the two labels' counts, exactly as the method states;
* a label's final consensus is the mean of its scores against every other label of the image;
  the benchmark score is the score against the reference label.

Conventions where the method is silent: two empty checklists agree (1.0); two labels with no
classifications and no shapes agree (1.0); a shape with no pixels has IoU 1.0 with another
empty shape and 0 with anything else; the final consensus of the only label of an image is NaN.
Points and lines are not part of the method and are not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Kind = Literal["radio", "checklist", "text", "dropdown"]
KINDS: tuple[str, ...] = ("radio", "checklist", "text", "dropdown")


@dataclass(frozen=True)
class Classification:
    """One classification answer.

    ``answer`` is a ``str`` for ``radio`` and ``text``, a sequence of option names for
    ``checklist`` (order ignored) and the path of options for ``dropdown``.
    """

    name: str
    kind: Kind
    answer: str | tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind in ("checklist", "dropdown"):
            if isinstance(self.answer, str):
                raise ValueError(f"{self.kind} {self.name!r}: answer must be a sequence of "
                                 "option names, not a string")
            object.__setattr__(self, "answer", tuple(self.answer))
        elif not isinstance(self.answer, str):
            raise ValueError(f"{self.kind} {self.name!r}: answer must be a string")


@dataclass(frozen=True, eq=False)
class Shape:
    """One object of a class: a boolean mask ``(H, W)`` or a box ``(row0, col0, row1, col1)``.

    Boxes are half-open (``row1``/``col1`` exclusive) in pixel rows and columns; masks of one
    image share one shape. ``classifications`` are the nested classifications of the shape.
    """

    object_class: str
    geometry: np.ndarray | tuple[int, int, int, int]
    classifications: tuple[Classification, ...] = ()
    _extent: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "classifications", tuple(self.classifications))
        geometry = self.geometry
        extent: tuple[tuple[int, int, int, int], np.ndarray | None, int]
        if isinstance(geometry, np.ndarray):
            mask = geometry if geometry.dtype == np.bool_ else geometry != 0
            if mask.ndim != 2:
                raise ValueError("a mask geometry must be 2-D (H, W)")
            rows = np.flatnonzero(mask.any(axis=1))
            cols = np.flatnonzero(mask.any(axis=0))
            if rows.size == 0:
                extent = ((0, 0, 0, 0), None, 0)
            else:
                box = (int(rows[0]), int(cols[0]), int(rows[-1]) + 1, int(cols[-1]) + 1)
                crop = mask[box[0]:box[2], box[1]:box[3]]
                extent = (box, crop, int(np.count_nonzero(crop)))
        else:
            r0, c0, r1, c1 = (int(v) for v in geometry)
            if r1 < r0 or c1 < c0:
                raise ValueError(f"box {geometry} has negative size")
            extent = ((r0, c0, r1, c1), None, (r1 - r0) * (c1 - c0))
        object.__setattr__(self, "_extent", extent)

    @classmethod
    def from_crop(cls, object_class: str, top_left: tuple[int, int], crop: np.ndarray,
                  classifications: Sequence[Classification] = ()) -> Shape:
        """A mask shape given by its bounding box only: ``crop`` (bool) placed with its first
        pixel at ``top_left = (row, col)`` — the same shape as the full-image mask, without
        allocating one (a polygon on a 4k × 3k mammogram).

        >>> crop = np.ones((2, 3), bool)
        >>> Shape.from_crop("a", (4, 5), crop).area, Shape.from_crop("a", (4, 5), crop).centroid()
        (6, (5.0, 6.5))
        """
        shape = cls(object_class, (0, 0, 0, 0), tuple(classifications))
        mask = np.asarray(crop, dtype=bool)
        rows = np.flatnonzero(mask.any(axis=1))
        cols = np.flatnonzero(mask.any(axis=0))
        if rows.size == 0:
            extent: tuple = ((0, 0, 0, 0), None, 0)
        else:
            r, c = int(top_left[0]), int(top_left[1])
            box = (r + int(rows[0]), c + int(cols[0]), r + int(rows[-1]) + 1,
                   c + int(cols[-1]) + 1)
            tight = mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
            extent = (box, tight, int(np.count_nonzero(tight)))
        object.__setattr__(shape, "geometry", mask)
        object.__setattr__(shape, "_extent", extent)
        return shape

    @property
    def area(self) -> int:
        """Pixels of the shape."""
        return self._extent[2]

    def centroid(self) -> tuple[float, float]:
        """``(row, col)`` centre of mass (pixel centres at ``r + 0.5, c + 0.5``); computed once
        (pairing asks it for every candidate pair)."""
        cached = self.__dict__.get("_centroid")
        if cached is not None:
            return cached
        (r0, c0, r1, c1), crop, area = self._extent
        if area == 0:
            found = (math.nan, math.nan)
        elif crop is None:
            found = ((r0 + r1) / 2.0, (c0 + c1) / 2.0)
        else:
            rr, cc = np.nonzero(crop)
            found = (r0 + float(rr.mean()) + 0.5, c0 + float(cc.mean()) + 0.5)
        object.__setattr__(self, "_centroid", found)
        return found


@dataclass(frozen=True)
class Label:
    """One annotator's complete label of one image: global classifications and shapes."""

    classifications: tuple[Classification, ...] = ()
    shapes: tuple[Shape, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "classifications", tuple(self.classifications))
        object.__setattr__(self, "shapes", tuple(self.shapes))


def classification_consensus(a: Classification, b: Classification) -> float:
    """Consensus of two answers to the same classification (radio, checklist, text, dropdown).

    Examples
    --------
    >>> city = Classification("where", "dropdown", ("Urban", "Day"))
    >>> classification_consensus(city, Classification("where", "dropdown", ("Rural", "Day")))
    0.5
    >>> classification_consensus(Classification("c", "checklist", ("1", "2", "3")),
    ...                          Classification("c", "checklist", ("2", "3")))
    0.6666666666666666
    """
    if a.kind != b.kind:
        raise ValueError(f"classification {a.name!r} is a {a.kind} in one label and a "
                         f"{b.kind} in the other")
    if a.kind in ("radio", "text"):
        return 1.0 if a.answer == b.answer else 0.0
    if a.kind == "checklist":
        sa, sb = set(a.answer), set(b.answer)
        if not sa and not sb:
            return 1.0
        return len(sa & sb) / max(len(sa), len(sb))
    depth = max(len(a.answer), len(b.answer))
    if depth == 0:
        return 1.0
    return len(set(a.answer) & set(b.answer)) / depth


def shape_iou(a: Shape, b: Shape) -> float:
    """Intersection over union of two shapes (masks and boxes may be mixed)."""
    (ar0, ac0, ar1, ac1), acrop, aarea = a._extent
    (br0, bc0, br1, bc1), bcrop, barea = b._extent
    if aarea == 0 or barea == 0:
        return 1.0 if aarea == barea else 0.0
    r0, c0, r1, c1 = max(ar0, br0), max(ac0, bc0), min(ar1, br1), min(ac1, bc1)
    if r1 <= r0 or c1 <= c0:
        return 0.0
    if acrop is None and bcrop is None:
        inter = (r1 - r0) * (c1 - c0)
    else:
        sub_a = None if acrop is None else acrop[r0 - ar0:r1 - ar0, c0 - ac0:c1 - ac0]
        sub_b = None if bcrop is None else bcrop[r0 - br0:r1 - br0, c0 - bc0:c1 - bc0]
        if sub_a is None:
            assert sub_b is not None  # not both None (handled above)
            inter = int(np.count_nonzero(sub_b))
        elif sub_b is None:
            inter = int(np.count_nonzero(sub_a))
        else:
            inter = int(np.count_nonzero(sub_a & sub_b))
    return inter / (aarea + barea - inter)


def _closeness(a: Shape, b: Shape) -> tuple[float, float]:
    """Sort key of a candidate pair: higher IoU first, then smaller centroid distance."""
    (ya, xa), (yb, xb) = a.centroid(), b.centroid()
    distance = math.hypot(ya - yb, xa - xb)
    return (shape_iou(a, b), -distance if not math.isnan(distance) else -math.inf)


def pair_shapes(shapes_a: Sequence[Shape], shapes_b: Sequence[Shape]) -> list[int | None]:
    """Pair each shape of ``shapes_a`` with a distinct shape of ``shapes_b``, nearest first.

    Returns, for each A shape, the index of its B partner or None when it stays unpaired.
    """
    key = {(i, j): _closeness(a, b) for i, a in enumerate(shapes_a)
           for j, b in enumerate(shapes_b)}
    partner: list[int | None] = [None] * len(shapes_a)
    waiting = list(range(len(shapes_a)))
    free = list(range(len(shapes_b)))
    while waiting and free:
        wanted: dict[int, list[int]] = {}
        for i in waiting:
            # max() and index() take the first of equal keys, so ties go to the lower index.
            closeness = [key[i, j] for j in free]
            j = free[closeness.index(max(closeness))]
            wanted.setdefault(j, []).append(i)
        for j, candidates in wanted.items():
            closeness = [key[i, j] for i in candidates]
            winner = candidates[closeness.index(max(closeness))]
            partner[winner] = j
            waiting.remove(winner)
            free.remove(j)
    return partner


def _by_name(items: Sequence[Classification]) -> dict[str, Classification]:
    out: dict[str, Classification] = {}
    for c in items:
        if c.name in out:
            raise ValueError(f"classification {c.name!r} appears twice in one label or shape")
        out[c.name] = c
    return out


def _sum_matched(a: Sequence[Classification], b: Sequence[Classification]) -> float:
    ma, mb = _by_name(a), _by_name(b)
    return sum(classification_consensus(ma[n], mb[n]) for n in ma.keys() & mb.keys())


def shape_consensus(a: Shape, b: Shape) -> float:
    """Consensus of a pair of shapes: IoU averaged with each nested classification."""
    nested = _sum_matched(a.classifications, b.classifications)
    return (shape_iou(a, b) + nested) / (1 + max(len(a.classifications),
                                                 len(b.classifications)))


def class_consensus(shapes_a: Sequence[Shape], shapes_b: Sequence[Shape]) -> float:
    """Consensus of one object class: paired shape scores over the larger shape count."""
    total = max(len(shapes_a), len(shapes_b))
    if total == 0:
        return 1.0
    pairs = pair_shapes(shapes_a, shapes_b)
    score = sum(shape_consensus(shapes_a[i], shapes_b[j])
                for i, j in enumerate(pairs) if j is not None)
    return score / total


def _classes(label: Label) -> dict[str, list[Shape]]:
    out: dict[str, list[Shape]] = {}
    for shape in label.shapes:
        out.setdefault(shape.object_class, []).append(shape)
    return out


def label_consensus(a: Label, b: Label) -> float:
    """Consensus ``C(L_A, L_B)`` of two labels of the same image, in [0, 1].

    Examples
    --------
    >>> box = Shape("vessel", (0, 0, 10, 10))
    >>> a = Label([Classification("dense", "radio", "yes")], [box])
    >>> b = Label([Classification("dense", "radio", "no")], [Shape("vessel", (0, 0, 10, 5))])
    >>> label_consensus(a, b)  # (0 + IoU 0.5) / (1 + 1)
    0.25
    """
    global_sum = _sum_matched(a.classifications, b.classifications)
    ca, cb = _classes(a), _classes(b)
    class_sum = sum(class_consensus(ca[n], cb[n]) for n in ca.keys() & cb.keys())
    denominator = (max(len(a.classifications), len(b.classifications))
                   + max(len(ca), len(cb)))
    if denominator == 0:
        return 1.0
    return (global_sum + class_sum) / denominator


def consensus_scores(labels: Sequence[Label]) -> list[float]:
    """Final consensus of each label: mean of its consensus with every other label.

    NaN for each label when there is only one label.
    """
    n = len(labels)
    if n < 2:
        return [math.nan] * n
    # Each label is scored from its own side (shape pairing starts from its shapes).
    return [
        float(np.mean([label_consensus(labels[i], labels[j]) for j in range(n) if j != i]))
        for i in range(n)
    ]


def benchmark_score(label: Label, reference: Label) -> float:
    """Benchmark agreement: the consensus of ``label`` with the reference label alone."""
    return label_consensus(label, reference)
