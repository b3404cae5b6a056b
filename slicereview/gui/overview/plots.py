"""The Overview tab's interactive plots (pyqtgraph; the HTML report draws the same with
matplotlib): image-level vs box-level α histograms ([CrowdSegQA, Fig. 5]), the review-queue
evaluation curves ([CrowdSegQA, Fig. 6]) and annotation times per phase. Each function fills a white
``pg.PlotWidget`` (zoom and pan with the mouse, right-click for export) from the values of
:class:`slicereview.app.report.owner_report.ReportData`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

#: Histogram bins over α ∈ [-1, 1] (α below -1 is drawn at -1, as in the HTML report).
BINS = np.linspace(-1.0, 1.0, 41)
#: Krippendorff's bands: ≤ 0.1 disagreement, ≤ 0.667 low, ≤ 0.8 moderate, above high.
BAND_EDGES = (0.1, 0.667, 0.8)
IMAGE_COLOUR = (31, 119, 180)
BOX_COLOUR = (255, 127, 14)
#: One colour per queue method, in the order of ``MethodEvaluation.precision``.
METHOD_COLOURS = ((31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40),
                  (148, 103, 189), (140, 86, 75), (227, 119, 194), (127, 127, 127))


def new_plot(title: str, bottom: str, left: str) -> pg.PlotWidget:
    """A white plot with dark axis labels, a grid and a legend."""
    plot = pg.PlotWidget()
    plot.setBackground("w")
    plot.setTitle(title, color="#222", size="10pt")
    for side, text in (("bottom", bottom), ("left", left)):
        plot.setLabel(side, text, color="#222")
        axis = plot.getAxis(side)
        axis.setPen(pg.mkPen("#444"))
        axis.setTextPen(pg.mkPen("#222"))
    plot.showGrid(x=True, y=True, alpha=0.25)
    plot.addLegend(offset=(10, 10), labelTextColor="#222")
    plot.setMinimumHeight(240)
    return plot


def clear(plot: pg.PlotWidget) -> None:
    """Remove every curve, bar and legend entry of ``plot``."""
    plot.clear()
    legend = plot.getPlotItem().legend
    if legend is not None:
        legend.clear()


def alpha_histogram(plot: pg.PlotWidget, image: Sequence[float], box: Sequence[float]) -> None:
    """Image-level and box-level α of one level (strict or relaxed) as step histograms."""
    clear(plot)
    for values, colour, name in ((image, IMAGE_COLOUR, "image level"),
                                 (box, BOX_COLOUR, "box level")):
        counts, _ = np.histogram(np.clip(np.asarray(values, float), -1, 1), bins=BINS)
        plot.plot(BINS, counts, stepMode="center", fillLevel=0,
                  brush=pg.mkBrush(*colour, 90), pen=pg.mkPen(colour, width=2),
                  name=f"{name} (n = {len(values)})")
    for edge in BAND_EDGES:
        plot.addItem(pg.InfiniteLine(edge, angle=90, pen=pg.mkPen(
            (120, 120, 120), style=Qt.PenStyle.DotLine)))


def queue_curves(plots: Sequence[pg.PlotWidget], evaluation: Any) -> None:
    """P@k, R@k and NDCG@k of every queue method (``MethodEvaluation``) in three plots."""
    ks = np.asarray(evaluation.ks, float)
    for plot, series in zip(plots, (evaluation.precision, evaluation.recall, evaluation.ndcg),
                            strict=True):
        clear(plot)
        for k, (method, values) in enumerate(series.items()):
            y = np.asarray(values, float)
            if np.all(np.isnan(y)):
                continue
            plot.plot(ks, y, pen=pg.mkPen(METHOD_COLOURS[k % len(METHOD_COLOURS)], width=2),
                      name=method, connect="finite")
        plot.setYRange(0, 1.02)


def times_by_phase(plot: pg.PlotWidget, times: Mapping[str, Sequence[float]],
                   limits: Mapping[str, float]) -> None:
    """Each phase's round-1 active times (jittered points), its quartile box with the median,
    and the outlier limit as a red dashed line (times over it are kept)."""
    clear(plot)
    rng = np.random.default_rng(0)
    phases = list(times)
    for x, phase in enumerate(phases):
        t = np.asarray(times[phase], float)
        if t.size == 0:
            continue
        q1, median, q3 = np.percentile(t, [25, 50, 75])
        plot.addItem(pg.BarGraphItem(x=[x], y0=[q1], height=[max(q3 - q1, 1e-9)], width=0.5,
                                     brush=pg.mkBrush(31, 119, 180, 60),
                                     pen=pg.mkPen(31, 119, 180)))
        plot.plot([x - 0.25, x + 0.25], [median, median], pen=pg.mkPen((31, 119, 180), width=3))
        plot.plot(x + rng.uniform(-0.15, 0.15, t.size), t, pen=None, symbol="o",
                  symbolSize=5, symbolBrush=pg.mkBrush(60, 60, 60, 140), symbolPen=None)
        limit = limits.get(phase, math.nan)
        if np.isfinite(limit):
            plot.plot([x - 0.35, x + 0.35], [limit, limit],
                      pen=pg.mkPen((214, 39, 40), width=2, style=Qt.PenStyle.DashLine))
    plot.getAxis("bottom").setTicks([list(enumerate(phases))])
    plot.setXRange(-0.6, len(phases) - 0.4)
