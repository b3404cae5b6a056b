"""The owner's report plots with matplotlib, drawn on the Agg canvas (no pyplot, no global
backend switch, safe off the GUI thread) and returned as base64 PNG for a stand-alone HTML
file.

Example
-------
>>> png = alpha_histograms({"strict": [0.9, 0.5], "relaxed": [0.8]},
...                        {"strict": [0.1, 0.7], "relaxed": []}, "test")
>>> png[:8]
'iVBORw0K'
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

BINS = np.linspace(-1.0, 1.0, 41)
BAND_EDGES = (0.1, 0.667, 0.8)


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # no constrained layout: it costs about as much as drawing; fixed margins suit these plots
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.9, wspace=0.22)
    FigureCanvasAgg(fig)
    return fig


def to_base64(fig: Any) -> str:
    """The figure as base64 PNG (100 dpi)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def alpha_histograms(image: Mapping[str, Sequence[float]], box: Mapping[str, Sequence[float]],
                     title: str) -> str:
    """[CrowdSegQA, Fig. 5]: image-level vs box-level α histograms, strict and relaxed."""
    fig = _figure(11, 3.6)
    axes = fig.subplots(1, 2, sharey=False)
    for ax, level in zip(axes, ("strict", "relaxed"), strict=True):
        ax.hist(np.clip(image[level], -1, 1), bins=BINS, alpha=0.65, color="#1f77b4",
                label=f"image level (n = {len(image[level])})")
        ax.hist(np.clip(box[level], -1, 1), bins=BINS, alpha=0.55, color="#ff7f0e",
                label=f"box level (n = {len(box[level])})")
        for edge in BAND_EDGES:
            ax.axvline(edge, color="grey", linewidth=0.8, linestyle=":")
        ax.set_title(f"{title}: Krippendorff's α (nominal, {level})")
        ax.set_xlabel("α  (bands: ≤ 0.1 disagreement, ≤ 0.667 low, ≤ 0.8 moderate, high)")
        ax.set_ylabel("count")
        ax.legend(loc="upper left", fontsize="small")
    return to_base64(fig)


def times_by_phase(times: Mapping[str, Sequence[float]], limits: Mapping[str, float]) -> str:
    """Annotation times (s) per phase as box plots with every time drawn; outlier limits
    dashed."""
    fig = _figure(7, 3.6)
    ax = fig.subplots()
    phases = list(times)
    ax.boxplot([times[p] for p in phases], showfliers=False)
    ax.set_xticks(range(1, len(phases) + 1), phases)
    rng = np.random.default_rng(0)
    for k, p in enumerate(phases, start=1):
        t = np.asarray(times[p], float)
        ax.scatter(k + rng.uniform(-0.15, 0.15, t.size), t, s=6, alpha=0.4, color="#444")
        if p in limits and np.isfinite(limits[p]):
            ax.hlines(limits[p], k - 0.35, k + 0.35, colors="red", linestyles="dashed")
    ax.set_ylabel("active annotation time (s), round 1")
    ax.set_title("Annotation time per phase (red dashes: outlier limit, times kept)")
    ax.grid(alpha=0.3, axis="y")
    return to_base64(fig)


def majority_curves(curves: Mapping[str, Mapping[int, float]]) -> str:
    """Accuracy of the majority vote against gold vs the number of annotators."""
    fig = _figure(6, 3.6)
    ax = fig.subplots()
    for name, points in curves.items():
        ks = sorted(points)
        ax.plot(ks, [points[k] for k in ks], marker="o", label=name)
    ax.set_xlabel("annotators in the vote (k)")
    ax.set_ylabel("accuracy against gold")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Majority vote (ties count as wrong)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return to_base64(fig)


def write_curves(evaluation: Any, path: str | Path) -> None:
    """Write the queue evaluation curves (precision, recall and NDCG at k of every queue
    method, [CrowdSegQA, Fig. 6]) to ``path``; the suffix picks the format (PNG, SVG, PDF)."""
    from slicereview.engines.review.evaluation import plot_curves

    plot_curves(evaluation, path)


def curves_png(evaluation: Any) -> str:
    """The queue evaluation curves, [CrowdSegQA, Fig. 6]
    (:func:`slicereview.engines.review.evaluation.plot_curves`), as base64 PNG."""
    from slicereview.engines.review.evaluation import plot_curves

    buf = io.BytesIO()
    # savefig takes a file object too (PNG, matplotlib's default format)
    plot_curves(evaluation, buf)  # type: ignore[arg-type]
    return base64.b64encode(buf.getvalue()).decode("ascii")

