"""How well a priority method finds the images reviewers cared about ([CrowdSegQA, §5.4, Fig. 6]).

The graded ground truth of [CrowdSegQA, §5.4] comes from what reviewers did, reduced to a store-free
:class:`ReviewSignal` per review: grade 3 when any review asked for an expert, else 2 when any
reviewer left a comment, else 1 when the image-level strict α is in the "low" band or below
(α ≤ 0.667), else 0. :func:`evaluate_methods` then scores each method's queue with P@k, R@k and
NDCG@k from :mod:`slicereview.engines.review.metrics` (relevant = grade > 0, linear gain).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from slicereview.engines.agreement import band
from slicereview.engines.review.features import ImageFeatures
from slicereview.engines.review.metrics import ndcg_at_k, precision_at_k, recall_at_k
from slicereview.engines.review.priority import METHODS, MODEL_METHODS, priority

#: The methods that rank by the features alone.
BASE_METHODS = tuple(m for m in METHODS if m not in MODEL_METHODS)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class ReviewSignal:
    """What one review of one image tells the ground truth.

    Attributes
    ----------
    expert_review : bool
        The reviewer tagged the annotation "expert review".
    commented : bool
        The reviewer left a comment (a pin or a rejection reason counts).
    """

    expert_review: bool = False
    commented: bool = False


def review_relevance(
    reviews_by_image: Mapping[int, Iterable[ReviewSignal]],
    strict_alpha_by_image: Mapping[int, float],
) -> dict[int, int]:
    """Graded relevance 0–3 of every image named in either mapping ([CrowdSegQA, §5.4]).

    An image without reviews is graded on its α alone; an image without α (or with NaN α, e.g.
    a single annotator) is never graded 1 on α.

    Examples
    --------
    >>> reviews = {1: [ReviewSignal(commented=True), ReviewSignal(expert_review=True)],
    ...            2: [ReviewSignal(commented=True)], 3: [ReviewSignal()]}
    >>> review_relevance(reviews, {1: 0.9, 2: 0.9, 3: 0.667, 4: 0.7, 5: float("nan")})
    {1: 3, 2: 2, 3: 1, 4: 0, 5: 0}
    """
    grades = {}
    for image in sorted(set(reviews_by_image) | set(strict_alpha_by_image)):
        signals = list(reviews_by_image.get(image, ()))
        alpha = strict_alpha_by_image.get(image, math.nan)
        if any(s.expert_review for s in signals):
            grades[image] = 3
        elif any(s.commented for s in signals):
            grades[image] = 2
        elif band(alpha) in ("disagreement", "low"):
            grades[image] = 1
        else:
            grades[image] = 0
    return grades


@dataclass(frozen=True)
class MethodEvaluation:
    """P@k, R@k and NDCG@k of each method's queue at each cut-off.

    Attributes
    ----------
    ks : tuple of int
        The cut-offs, ascending.
    rankings : dict
        method → its queue (image ids, most urgent first).
    precision, recall, ndcg : dict
        method → one value per ``ks`` entry (R@k and NDCG@k are NaN without relevant images).
    """

    ks: tuple[int, ...]
    rankings: dict[str, tuple[int, ...]]
    precision: dict[str, tuple[float, ...]]
    recall: dict[str, tuple[float, ...]]
    ndcg: dict[str, tuple[float, ...]]

    def row(self, method: str, k: int) -> tuple[float, float, float]:
        """``(P@k, R@k, NDCG@k)`` of one method, as in [CrowdSegQA, Table 3]."""
        j = self.ks.index(k)
        return self.precision[method][j], self.recall[method][j], self.ndcg[method][j]

    def table(self, k: int) -> str:
        """A plain-text table at cut-off ``k``, laid out as [CrowdSegQA, Table 3]."""
        w = max([12, *(len(m) for m in self.rankings)])
        lines = [f"{'method':<{w}} {'P@' + str(k):>7} {'R@' + str(k):>7} {'N@' + str(k):>7}"]
        for method in self.rankings:
            p, r, n = self.row(method, k)
            lines.append(f"{method:<{w}} {p:7.3f} {r:7.3f} {n:7.3f}")
        return "\n".join(lines)


def evaluate_methods(
    features: Mapping[int, ImageFeatures],
    relevance: Mapping[int, float],
    methods: Sequence[str] = BASE_METHODS,
    ks: Sequence[int] | None = None,
    seed: int = 0,
) -> MethodEvaluation:
    """Rank the images with each method and score the queues against graded ``relevance``.

    Parameters
    ----------
    features : mapping of int to ImageFeatures
        The images to rank (``M``).
    relevance : mapping of int to grade
        Ground truth, e.g. from :func:`review_relevance`; missing images have grade 0.
    methods : sequence of str
        Priority method names (default: those of :data:`~.priority.METHODS` that need no
        model; ``model-disagreement`` ranks by a value the features carry only when the
        application layer set it).
    ks : sequence of int, optional
        Cut-offs; default ``1 .. M``.
    seed : int
        Seed of the ``"random"`` method.

    Examples
    --------
    >>> from dataclasses import replace
    >>> base = ImageFeatures(1.0, 1.0, 0.0, 0, 0.0, 0.0, math.nan, math.nan,
    ...                      0, 0, 0, 0, 0, 0.0, 0, 100)
    >>> images = {1: replace(base, strict_alpha=0.9), 2: replace(base, strict_alpha=0.3)}
    >>> ev = evaluate_methods(images, {2: 3}, methods=["image-sort"])
    >>> ev.ks, ev.rankings["image-sort"], ev.precision["image-sort"], ev.ndcg["image-sort"]
    ((1, 2), (2, 1), (1.0, 0.5), (1.0, 1.0))
    """
    cutoffs = tuple(sorted(ks)) if ks is not None else tuple(range(1, len(features) + 1))
    if any(k < 1 for k in cutoffs):
        raise ValueError(f"cut-offs must be at least 1, got {cutoffs}")
    rankings, prec, rec, ndcg = {}, {}, {}, {}
    for method in methods:
        ranked = priority(features, method, seed)
        rankings[method] = tuple(ranked)
        prec[method] = tuple(precision_at_k(ranked, relevance, k) for k in cutoffs)
        rec[method] = tuple(recall_at_k(ranked, relevance, k) for k in cutoffs)
        ndcg[method] = tuple(ndcg_at_k(ranked, relevance, k) for k in cutoffs)
    return MethodEvaluation(cutoffs, rankings, prec, rec, ndcg)


def plot_curves(evaluation: MethodEvaluation, path: str | Path) -> Figure:
    """Draw P@k, R@k and NDCG@k against k, one line per method ([CrowdSegQA, Fig. 6]), to ``path``.

    Needs matplotlib (imported here, not with the module). Draws on matplotlib's Agg canvas
    directly (no pyplot, no global backend switch), so it is safe in a worker thread of the
    GUI. The format follows the file suffix (``.png``, ``.svg``, ...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure written, axes in the order P, R, NDCG (handy to check the plotted values).

    Examples
    --------
    >>> import tempfile
    >>> ev = MethodEvaluation((1, 2), {"random": (2, 1)}, {"random": (1.0, 0.5)},
    ...                       {"random": (1.0, 1.0)}, {"random": (1.0, 1.0)})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     fig = plot_curves(ev, Path(d) / "curves.png")
    ...     (Path(d) / "curves.png").stat().st_size > 0
    True
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # matplotlib is optional: only this function needs it
        raise ImportError("plot_curves needs matplotlib: pip install matplotlib") from exc

    fig = Figure(figsize=(12, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    panels = (("P@k", evaluation.precision), ("R@k", evaluation.recall),
              ("NDCG@k", evaluation.ndcg))
    axes = fig.subplots(1, 3)
    for ax, (title, values) in zip(axes, panels, strict=True):
        for method, series in values.items():
            ax.plot(evaluation.ks, series, label=method, linewidth=1.4)
        ax.set_title(title)
        ax.set_xlabel("k (rank position)")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="best", fontsize="small")
    fig.savefig(path, dpi=110)
    return fig
