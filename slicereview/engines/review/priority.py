"""Review priority: rank images by how likely they need a reviewer ([CrowdSegQA, §4, §5.4]).

Methods (the names are API and are stored with queues):

``"image-sort"``
    [CrowdSegQA, Table 1], image level, top to bottom: strict α asc, relaxed α asc, unsure share
    desc, unsure pixels desc, area std desc, area mean desc, intra strict α asc, intra relaxed α
    asc.
``"box-sort"``
    [CrowdSegQA, Table 1], box level: # disagreement boxes desc, # low desc, # moderate desc,
    # high *asc*, # boxes desc, Wbbox / image pixels desc.
``"box-score"``
    ``score = pivoted-Wbbox · W_N`` desc ([CrowdSegQA, Eq. 2, 3]), ties by Wbbox / image pixels
    desc, with ``pivoted-Wbbox = Wbbox / (box_area / avg_box_area)`` (0 when the image has no box
    area), ``avg_box_area`` the mean ``box_area`` over the images, and ``W_N = ln(M / m_N)`` for
    ``M`` images of which ``m_N`` have the image's number of boxes ``N``. The numerator of
    [CrowdSegQA, Eq. 3] is printed as ``N``; the IDF it cites ([SparckJones1972]) divides
    the *collection size* by the document frequency, so we read it as ``M``. Note ``W_N = 0``
    when every image has the same number of boxes: the score then ties everywhere and the
    tie-break decides.
``"random"``
    [CrowdSegQA]'s baseline: ten uniform scores per image from ten seeded generators, averaged,
    desc.
``"model-disagreement"``
    How far a model is from the annotators' consensus: ``1 − Dice(model, majority vote)``
    (relaxed ROI, :attr:`ImageFeatures.model_disagreement`) desc, ties by strict α asc. An
    image the model did not predict has NaN and ranks last.

Every method ranks NaN after every number whatever the direction (an α that is undefined is
no evidence of disagreement), and breaks the last tie by image id ascending, so a queue is a
pure function of the features and the seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from slicereview.engines.review.features import ImageFeatures

METHODS: tuple[str, ...] = ("image-sort", "box-sort", "box-score", "random",
                            "model-disagreement")
#: The methods that need a model (the queue names it).
MODEL_METHODS: tuple[str, ...] = ("model-disagreement",)
RANDOM_DRAWS = 10


@dataclass(frozen=True)
class Column:
    """One sort key of a method: a label, each image's value and the direction."""

    label: str
    values: Mapping[int, float]
    descending: bool


_Getter = Callable[[ImageFeatures], float]
_IMAGE_KEYS: tuple[tuple[str, _Getter, bool], ...] = (
    ("strict α", lambda f: f.strict_alpha, False),
    ("relaxed α", lambda f: f.relaxed_alpha, False),
    ("unsure share", lambda f: f.unsure_share, True),
    ("unsure pixels", lambda f: f.unsure_pixels, True),
    ("area std", lambda f: f.area_std, True),
    ("area mean", lambda f: f.area_mean, True),
    ("intra-rater strict α", lambda f: f.intra_strict, False),
    ("intra-rater relaxed α", lambda f: f.intra_relaxed, False),
)
_BOX_KEYS: tuple[tuple[str, _Getter, bool], ...] = (
    ("# disagreement boxes", lambda f: f.n_disagreement, True),
    ("# low-agreement boxes", lambda f: f.n_low, True),
    ("# moderate-agreement boxes", lambda f: f.n_moderate, True),
    ("# high-agreement boxes", lambda f: f.n_high, False),
    ("# boxes", lambda f: f.n_boxes, True),
    ("Wbbox / image pixels", lambda f: f.wbbox_per_pixel, True),
)


def _table(features: Mapping[int, ImageFeatures],
           keys: tuple[tuple[str, _Getter, bool], ...]) -> list[Column]:
    return [Column(label, {i: float(get(f)) for i, f in features.items()}, desc)
            for label, get, desc in keys]


def box_scores(features: Mapping[int, ImageFeatures]) -> dict[int, float]:
    """``pivoted-Wbbox · W_N`` of every image ([CrowdSegQA, Eq. 2, 3]).

    Examples
    --------
    >>> from dataclasses import replace
    >>> base = ImageFeatures(1.0, 1.0, 0.0, 0, 0.0, 0.0, math.nan, math.nan,
    ...                      0, 0, 0, 0, 0, 0.0, 0, 100)
    >>> images = {1: replace(base, n_boxes=1, wbbox=10.0, box_area=20),
    ...          2: replace(base, n_boxes=2, wbbox=10.0, box_area=40),
    ...          3: replace(base, n_boxes=2, wbbox=5.0, box_area=30)}
    >>> {i: round(s, 4) for i, s in box_scores(images).items()}
    {1: 16.4792, 2: 3.041, 3: 2.0273}
    """
    if not features:
        return {}
    m = len(features)
    avg_area = float(np.mean([f.box_area for f in features.values()]))
    same_n: dict[int, int] = {}
    for f in features.values():
        same_n[f.n_boxes] = same_n.get(f.n_boxes, 0) + 1
    out = {}
    for i, f in features.items():
        pivoted = f.wbbox * avg_area / f.box_area if f.box_area else 0.0
        if math.isnan(f.wbbox):
            pivoted = math.nan
        out[i] = pivoted * math.log(m / same_n[f.n_boxes])
    return out


def random_scores(image_ids: list[int] | Mapping[int, object], seed: int = 0) -> dict[int, float]:
    """Mean of :data:`RANDOM_DRAWS` uniform scores per image, generator ``k`` seeded ``(seed, k)``.

    Images get their draws in ascending id order, so the scores do not depend on the order
    in which ids are given.

    >>> s = random_scores([3, 1, 2], seed=7)
    >>> s == random_scores([1, 2, 3], seed=7), s == random_scores([1, 2, 3], seed=8)
    (True, False)
    """
    ids = sorted(image_ids)
    draws = np.stack([np.random.default_rng([seed, k]).random(len(ids))
                      for k in range(RANDOM_DRAWS)])
    return {i: float(v) for i, v in zip(ids, draws.mean(axis=0), strict=True)}


def columns(features: Mapping[int, ImageFeatures], method: str, seed: int = 0) -> list[Column]:
    """The sort keys of ``method`` on these images, most significant first (image id excluded).

    >>> [c.label for c in columns({}, "box-score")]
    ['pivoted Wbbox · W_N', 'Wbbox / image pixels']
    """
    if method == "image-sort":
        return _table(features, _IMAGE_KEYS)
    if method == "box-sort":
        return _table(features, _BOX_KEYS)
    if method == "box-score":
        return [Column("pivoted Wbbox · W_N", box_scores(features), True),
                *_table(features, _BOX_KEYS[-1:])]
    if method == "random":
        return [Column("random score", random_scores(list(features), seed), True)]
    if method == "model-disagreement":
        return [Column("1 − Dice(model, majority)",
                       {i: float(f.model_disagreement) for i, f in features.items()}, True),
                *_table(features, _IMAGE_KEYS[:1])]
    raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")


def _cell(value: float, descending: bool) -> tuple[int, float]:
    """Sort key of one value: NaN after every number, either direction."""
    if math.isnan(value):
        return (1, 0.0)
    return (0, -value if descending else value)


def _ranking(cols: list[Column], ids: list[int]) -> list[int]:
    return sorted(ids, key=lambda i: (*(_cell(c.values[i], c.descending) for c in cols), i))


def priority(features: Mapping[int, ImageFeatures], method: str, seed: int = 0) -> list[int]:
    """Image ids in review order, the most urgent first.

    Parameters
    ----------
    features : mapping of int to ImageFeatures
        The images: image id → its features.
    method : {"image-sort", "box-sort", "box-score", "random"}
        See the module docstring.
    seed : int
        Used by ``"random"`` only.

    Examples
    --------
    >>> from dataclasses import replace
    >>> base = ImageFeatures(1.0, 1.0, 0.0, 0, 0.0, 0.0, math.nan, math.nan,
    ...                      0, 0, 0, 0, 0, 0.0, 0, 100)
    >>> images = {1: replace(base, strict_alpha=0.9), 2: replace(base, strict_alpha=math.nan),
    ...          3: replace(base, strict_alpha=0.2), 4: replace(base, strict_alpha=0.9)}
    >>> priority(images, "image-sort")
    [3, 1, 4, 2]
    """
    return _ranking(columns(features, method, seed), list(features))


def scores(features: Mapping[int, ImageFeatures], method: str,
           seed: int = 0) -> dict[int, float]:
    """Each image's primary score under ``method`` (its first sort key).

    That is strict α for ``"image-sort"``, the number of disagreement boxes for
    ``"box-sort"``, ``pivoted-Wbbox · W_N`` for ``"box-score"`` and the mean random score for
    ``"random"``.

    >>> scores({}, "random")
    {}
    """
    return dict(columns(features, method, seed)[0].values)


def _fmt(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def _decider(cols: list[Column], a: int, b: int) -> str:
    """The first key on which images ``a`` and ``b`` differ, as text."""
    for c in cols:
        va, vb = c.values[a], c.values[b]
        if _cell(va, c.descending) != _cell(vb, c.descending):
            way = "desc" if c.descending else "asc"
            return f"{c.label} ({way}) {_fmt(va)} vs {_fmt(vb)}"
    return f"all keys equal; image id {a} vs {b}"


def explain(features: Mapping[int, ImageFeatures], image_id: int, method: str,
            seed: int = 0) -> str:
    """Why the image is where it is: its rank, its key values and what separates it from the
    images just above and below.

    Examples
    --------
    >>> from dataclasses import replace
    >>> base = ImageFeatures(1.0, 1.0, 0.0, 0, 0.0, 0.0, math.nan, math.nan,
    ...                      0, 0, 0, 0, 0, 0.0, 0, 100)
    >>> images = {1: replace(base, strict_alpha=0.5, relaxed_alpha=0.7),
    ...          2: replace(base, strict_alpha=0.5, relaxed_alpha=0.6)}
    >>> print(explain(images, 1, "image-sort"))
    image 1: rank 2 of 2 by image-sort
      after image 2: relaxed α (asc) 0.7 vs 0.6
      keys: strict α 0.5, relaxed α 0.7, unsure share 0, unsure pixels 0, area std 0, \
area mean 0, intra-rater strict α NaN, intra-rater relaxed α NaN
    """
    if image_id not in features:
        raise KeyError(f"image {image_id} is not among the images")
    cols = columns(features, method, seed)
    order = _ranking(cols, list(features))
    return _explain_at(cols, order, order.index(image_id), method)


def explanations(features: Mapping[int, ImageFeatures], method: str,
                 seed: int = 0) -> dict[int, str]:
    """:func:`explain` of every image, in queue order, ranking the images once
    (``explain`` per image would rank it once per image).

    >>> from dataclasses import replace
    >>> base = ImageFeatures(1.0, 1.0, 0.0, 0, 0.0, 0.0, math.nan, math.nan,
    ...                      0, 0, 0, 0, 0, 0.0, 0, 100)
    >>> images = {1: replace(base, strict_alpha=0.5), 2: replace(base, strict_alpha=0.4)}
    >>> out = explanations(images, "image-sort")
    >>> list(out), out[1] == explain(images, 1, "image-sort")
    ([2, 1], True)
    """
    cols = columns(features, method, seed)
    order = _ranking(cols, list(features))
    return {i: _explain_at(cols, order, rank, method) for rank, i in enumerate(order)}


def _explain_at(cols: list[Column], order: list[int], rank: int, method: str) -> str:
    image_id = order[rank]
    lines = [f"image {image_id}: rank {rank + 1} of {len(order)} by {method}"]
    if rank > 0:
        lines.append(f"  after image {order[rank - 1]}: "
                     f"{_decider(cols, image_id, order[rank - 1])}")
    if rank + 1 < len(order):
        lines.append(f"  before image {order[rank + 1]}: "
                     f"{_decider(cols, image_id, order[rank + 1])}")
    lines.append("  keys: " + ", ".join(f"{c.label} {_fmt(c.values[image_id])}" for c in cols))
    return "\n".join(lines)
