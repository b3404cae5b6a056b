"""What an assisted tool returns: certain and uncertain pixels, their outlines, a probability.

A tool works on a crop of the image (:mod:`.pixels`), so the result keeps its pixels on that
crop (:attr:`AssistResult.labels`, :attr:`AssistResult.probability`) and gives the full-size
masks on demand (:attr:`AssistResult.certain`, :attr:`AssistResult.uncertain`).

**The certain/uncertain split** of a probability ``p`` (of being the object, per pixel):
``p >= hi`` is certain, ``lo <= p < hi`` uncertain, the rest background. The defaults
:data:`HI` = 0.9 and :data:`LO` = 0.5 make certain ∪ uncertain the tool's best guess of the
object (``p >= 0.5``) and certain its confident core; the uncertain pixels are its *uncertain
margin*, where a person should look again.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.assist.result import from_probability
>>> p = np.array([[0.2, 0.6, 0.95]], dtype=np.float32)
>>> r = from_probability(p, shape=(3, 5), crop=(1, 2, 2, 5), tolerance=0)
>>> r.labels.tolist(), int(r.certain.sum()), r.uncertain[1].tolist()
([[0, 2, 1]], 1, [False, False, False, True, False])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from slicereview.engines.assist.outline import TOLERANCE, Outline, label_outlines
from slicereview.engines.assist.pixels import Crop

#: Default thresholds of the certain/uncertain split (module docstring).
HI, LO = 0.9, 0.5


@dataclass(frozen=True, eq=False)
class AssistResult:
    """One run of an assisted tool.

    Attributes
    ----------
    shape
        ``(rows, cols)`` of the image.
    crop
        ``(row0, col0, row1, col1)``, end exclusive: the part of the image the tool worked on.
        No pixel outside it is certain or uncertain.
    labels
        ``uint8 (row1 - row0, col1 - col0)``: the crop's label image, 0 background, 1 certain,
        2 uncertain (docs/design.md, "Glossary"). Read-only.
    polygons
        ``(certain, vertices)`` pairs: ``vertices`` ``float64 (n, 2)`` ``(row, col)`` in the
        continuous pixel frame, simplified to the tool's ``tolerance``; holes are bridged in
        (:mod:`.outline`). Uncertain outlines surround their certain cores.
        :func:`~.outline.model_polygons` makes :class:`~slicereview.model.Polygon` values
        (``(x, y)``) of them.
    probability
        ``float32`` of the crop's shape, the probability of the object per pixel, where the tool
        has one (``points``, ``scribble``, ``box``); ``None`` otherwise. Read-only.
    """

    shape: tuple[int, int]
    crop: Crop
    labels: np.ndarray
    polygons: tuple[Outline, ...]
    probability: np.ndarray | None = None

    @cached_property
    def certain(self) -> np.ndarray:
        """``bool (rows, cols)``: the certain pixels of the whole image (made on first use)."""
        return self._full(self.labels == 1)

    @cached_property
    def uncertain(self) -> np.ndarray:
        """``bool (rows, cols)``: the uncertain pixels, disjoint from :attr:`certain`."""
        return self._full(self.labels == 2)

    def _full(self, part: np.ndarray) -> np.ndarray:
        out = np.zeros(self.shape, dtype=bool)
        r0, c0, r1, c1 = self.crop
        out[r0:r1, c0:c1] = part
        out.setflags(write=False)
        return out


def split(probability: np.ndarray, hi: float = HI, lo: float = LO) -> np.ndarray:
    """Label image ``uint8`` of ``probability``: 1 where ``p >= hi``, 2 where
    ``lo <= p < hi``, else 0.

    >>> split(np.array([0.1, 0.5, 0.89, 0.9])).tolist()
    [0, 2, 2, 1]
    """
    p = np.asarray(probability)
    labels = np.zeros(p.shape, np.uint8)
    labels[p >= lo] = 2
    labels[p >= hi] = 1
    return labels


def check_thresholds(hi: float, lo: float) -> tuple[float, float]:
    """``(hi, lo)`` as floats with ``0 < lo <= hi <= 1``, or ``ValueError``."""
    try:
        h, low = float(hi), float(lo)
    except (TypeError, ValueError):
        raise ValueError(f"The thresholds hi and lo are probabilities; got {hi!r}, {lo!r}.") \
            from None
    if not (0.0 < low <= h <= 1.0):
        raise ValueError(f"The thresholds need 0 < lo <= hi <= 1; got lo={low}, hi={h}.")
    return h, low


def from_labels(labels: np.ndarray, *, shape: tuple[int, int], crop: Crop,
                tolerance: float = TOLERANCE, probability: np.ndarray | None = None
                ) -> AssistResult:
    """An :class:`AssistResult` from a crop's label image (outlined here)."""
    lab = np.ascontiguousarray(labels, dtype=np.uint8)
    lab.setflags(write=False)
    polys = tuple(label_outlines(lab, tolerance=tolerance, offset=crop[:2]))
    prob = None
    if probability is not None:
        prob = np.ascontiguousarray(probability, dtype=np.float32)
        prob.setflags(write=False)
    box = (int(crop[0]), int(crop[1]), int(crop[2]), int(crop[3]))
    return AssistResult((int(shape[0]), int(shape[1])), box, lab, polys, prob)


def from_probability(probability: np.ndarray, *, shape: tuple[int, int], crop: Crop,
                     hi: float = HI, lo: float = LO, tolerance: float = TOLERANCE,
                     keep: np.ndarray | None = None) -> AssistResult:
    """An :class:`AssistResult` from a crop's probability, split at ``hi``/``lo``. ``keep``
    (``bool``, the crop's shape) limits the marked pixels, e.g. to the components a click
    touched."""
    labels = split(probability, *check_thresholds(hi, lo))
    if keep is not None:
        labels[~keep] = 0
    return from_labels(labels, shape=shape, crop=crop, tolerance=tolerance,
                       probability=probability)
