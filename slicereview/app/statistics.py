"""Agreement statistics on the user's own tables and mask images (no project).

The job behind ``slicereview stats``: the front end reads a CSV table or names mask files,
this module applies the rules (what counts as a pairable value, how text categories are coded,
which rows are dropped and when that is refused, what a mask image may be) and calls the
engines. Every function returns plain data — dictionaries of numbers, lists and strings, the
keys being the names ``--json`` prints — so a front end formats without importing an engine.

Conventions: a rating table is ``values[row][column]`` with NaN for a missing value; for
Krippendorff's α rows are raters and columns units (``units_in_rows`` for the transpose), for
the ICC rows are targets and columns raters. Masks are 2-D grey images, non-zero = ROI (or, as
label images, 0 background, 1 certain, 2 uncertain).

Examples
--------
>>> r = krippendorff_table([[1, 2, 3, 3], [1, 2, 3, 4]], "nominal")
>>> round(r["alpha"], 3), r["raters"], r["units"], r["pairable_values"]
(0.696, 2, 4, 8)
>>> overlap(np.array([[1, 1], [0, 0]]), np.array([[1, 0], [0, 0]]))["dice"]
0.6666666666666666
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

#: Krippendorff's levels of measurement.
AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]


def krippendorff_table(values: Sequence[Sequence[Any]], level: AlphaLevel,
                       units_in_rows: bool = False) -> dict[str, Any]:
    """Krippendorff's α of a rating table, with its agreement band and counts.

    Parameters
    ----------
    values : sequence of rows
        Numbers (NaN = missing) or, at the nominal level, text categories; every distinct value
        is one category (numbers by value, text by text).
    level : {"nominal", "ordinal", "interval", "ratio"}
    units_in_rows : bool
        Rows are units and columns raters (default: rows are raters).

    Returns
    -------
    dict
        ``alpha``, ``band``, ``raters``, ``units`` and ``pairable_values`` (values in units
        that at least two raters rated).
    """
    from slicereview.engines.agreement import band, krippendorff_alpha

    rows = [list(row) for row in values]
    if any(isinstance(v, str) for row in rows for v in row):
        codes: dict[Any, int] = {}
        rows = [[math.nan if isinstance(v, float) and math.isnan(v)
                 else codes.setdefault(v, len(codes)) for v in row] for row in rows]
    data = np.array(rows, dtype=float)
    if units_in_rows:
        data = data.T
    alpha = krippendorff_alpha(data, level)
    raters, units = data.shape
    seen = ~np.isnan(data)
    pairable = int(np.sum(seen & (np.sum(seen, axis=0) >= 2)))
    return {"statistic": "krippendorff_alpha", "level": level, "alpha": alpha,
            "band": band(alpha), "raters": raters, "units": units, "pairable_values": pairable}


def icc_table(values: Sequence[Sequence[Any]], omit_missing: bool,
              source: str = "the table") -> dict[str, Any]:
    """The six Shrout & Fleiss (1979) intraclass correlations of a targets × raters table.

    A target with a missing rating is refused unless ``omit_missing`` drops it (the number
    dropped is returned as ``dropped_incomplete``). ``forms`` lists each form's ``form`` name,
    ``description``, ``icc``, ``F``, ``df1``, ``df2``, ``p`` and ``ci95``.

    Raises
    ------
    ValueError
        When a target has a missing rating and ``omit_missing`` is false; the message names
        ``source`` and the two ways on.
    """
    from slicereview.engines.agreement import intraclass_correlation

    data = np.array(values, dtype=float)
    incomplete = int(np.isnan(data).any(axis=1).sum()) if data.ndim == 2 else 0
    if incomplete and not omit_missing:
        raise ValueError(f"{source}: {incomplete} target(s) have missing ratings; "
                         "add --omit-missing to drop them, or use `slicereview stats gcoef` "
                         "(long format) when targets have different raters")
    result = intraclass_correlation(data, nan_policy="omit" if omit_missing else "raise")
    forms = [{"form": f.name, "description": f.description, "icc": f.value, "F": f.f,
              "df1": f.df1, "df2": f.df2, "p": f.p, "ci95": list(f.ci95)} for f in result]
    return {"statistic": "ICC", "targets": result.n_targets, "raters": result.n_raters,
            "forms": forms, "BMS": result.bms, "WMS": result.wms, "JMS": result.jms,
            "EMS": result.ems, "dropped_incomplete": incomplete}


def generalizability_long(rows: Iterable[tuple[str, str, float]],
                          targets: Iterable[float]) -> dict[str, Any]:
    """Generalizability coefficient ICC(2,1) of long-format scores, and annotators needed.

    ``rows`` are ``(item, annotator, score)``; ``annotators_needed`` maps each target
    coefficient to the number of random annotators whose mean reaches it (Spearman–Brown), or
    None when no number does.
    """
    from slicereview.engines.agreement import generalizability, raters_needed

    g = generalizability(list(rows))
    needed: dict[float, int | None] = {}
    for target in targets:
        try:
            needed[target] = raters_needed(g.icc21, target)
        except ValueError:
            needed[target] = None
    return {"statistic": "generalizability", "icc21": g.icc21, "items": g.n_items,
            "annotators": g.n_annotators, "scores": g.n_scores,
            "items_ms": g.items_ms, "annotators_ms": g.annotators_ms,
            "error_ms": g.error_ms, "items_df": g.items_df,
            "annotators_df": g.annotators_df, "error_df": g.error_df,
            "annotators_needed": needed}


def read_mask(path: Path) -> np.ndarray:
    """A mask image file as a 2-D array, shape (rows, columns).

    A grey RGB(A) image is taken as grey; a colour image, a folder, a 3-D image or a file that
    is not an image is refused with a ValueError (IsADirectoryError for a folder) naming it.
    """
    import skimage.io

    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; give mask image files (PNG, TIFF)")
    try:
        arr = np.asarray(skimage.io.imread(path))
    except Exception as exc:  # imageio/PIL raise OSError, ValueError, struct.error, ...
        raise ValueError(f"{path} is not an image file that can be read as a mask "
                         "(PNG, TIFF)") from exc
    if arr.ndim == 3 and arr.shape[-1] in (3, 4):
        rgb = arr[..., :3]
        if not (np.array_equal(rgb[..., 0], rgb[..., 1])
                and np.array_equal(rgb[..., 0], rgb[..., 2])):
            raise ValueError(f"{path.name}: a mask must be a grey image, not colour")
        arr = rgb[..., 0]
    if arr.ndim != 2:
        raise ValueError(f"{path.name}: a mask must be a 2-D image, got shape {arr.shape}")
    return arr


def read_masks(paths: Sequence[Path]) -> np.ndarray:
    """Mask image files of one size stacked, shape (annotators, rows, columns)."""
    arrays = [read_mask(p) for p in paths]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"mask images differ in size: {sorted(shapes)}")
    return np.stack(arrays)


def _level(level: Any) -> dict[str, Any]:
    return {"alpha": level.alpha, "boxes": [
        {"box": list(b.box), "area": b.area, "pixels": b.pixels, "alpha": b.alpha,
         "band": b.band} for b in level.boxes],
        "band_counts": level.band_counts, "wbbox": level.wbbox,
        "roi_pixels": list(level.roi_pixels)}


def mask_agreement(stack: np.ndarray, connectivity: int = 2) -> dict[str, Any]:
    """Image- and box-level α (nominal) of binary masks, shape (annotators, rows, columns).

    Non-zero is ROI. Boxes are the bounding boxes of the union's connected parts
    (``connectivity`` 1: 4-connected, 2: 8-connected); each has its ``box`` (row0, col0, row1,
    col1, end exclusive), ``area``, ``alpha`` and ``band``; ``wbbox`` is their area-weighted α.
    """
    from slicereview.engines.agreement import level_agreement

    return {"statistic": "mask_alpha", "annotators": len(stack),
            **_level(level_agreement(stack != 0, connectivity=connectivity))}


def label_agreement(stack: np.ndarray, connectivity: int = 2) -> dict[str, Any]:
    """Strict and relaxed agreement of label images (0 background, 1 certain, 2 uncertain).

    ``strict`` counts only certain pixels as ROI, ``relaxed`` certain and uncertain (each as
    :func:`mask_agreement` gives it); ``uncertain_pixels``/``uncertain_share`` and the relaxed
    areas' mean and standard deviation describe the uncertainty.
    """
    from slicereview.engines.agreement import segmentation_agreement

    r = segmentation_agreement(stack, connectivity=connectivity)
    return {"statistic": "segmentation_agreement", "annotators": len(stack),
            "strict": _level(r.strict), "relaxed": _level(r.relaxed),
            "uncertain_pixels": r.uncertain_pixels, "uncertain_share": r.uncertain_share,
            "area_mean": r.area_mean, "area_std": r.area_std}


def overlap(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """Dice and IoU (Jaccard) of two masks of one shape, non-zero = ROI."""
    from slicereview.engines.agreement import dice, iou

    a, b = a != 0, b != 0
    return {"statistic": "overlap", "dice": dice(a, b), "iou": iou(a, b)}


def ranking_evaluation(ranked: Sequence[str], relevance: Mapping[str, float],
                       ks: Iterable[int], min_grade: float | None = None,
                       source: str = "the ranking") -> dict[str, Any]:
    """P@k, R@k and NDCG@k (linear gain, log2 discount) of a ranking against graded truth.

    ``ranked`` lists item ids best first; ``relevance`` gives each its grade (0 = not
    relevant); an item listed twice is refused. ``min_grade`` is the grade that counts as
    relevant for P@k and R@k (default: any grade above 0); ``source`` names the ranking in
    messages.
    """
    from slicereview.engines.review import ndcg_at_k, precision_at_k, recall_at_k

    if len(set(ranked)) != len(ranked):
        raise ValueError(f"{source}: an item is listed twice")
    rows = [{"k": k, "precision": precision_at_k(ranked, relevance, k, min_grade),
             "recall": recall_at_k(ranked, relevance, k, min_grade),
             "ndcg": ndcg_at_k(ranked, relevance, k)} for k in ks]
    return {"statistic": "ranking_evaluation", "items": len(ranked), "at_k": rows,
            "gain": "linear", "discount": "log2"}


def score_agreement(scores: np.ndarray, ns: Iterable[int]) -> dict[str, Any]:
    """Rank agreement of two raters' scores, shape (items, 2), higher = top.

    Rows with a missing score are dropped (``dropped_incomplete``; ``kept`` gives the kept
    rows' indices). Pearson, Spearman and Kendall τ-b with their p values, ICC(2,k) and the
    top-N intersection for each N in ``ns``.
    """
    from slicereview.engines.review import rank_agreement

    data = np.asarray(scores, dtype=float)
    if data.ndim != 2 or data.shape[1] != 2:
        raise ValueError(f"need two score columns, got {data.shape[-1] if data.ndim else 0}")
    keep = ~np.isnan(data).any(axis=1)
    result = rank_agreement(data[keep, 0], data[keep, 1], ns=list(ns))
    c = result.correlations
    return {"statistic": "rank_agreement", "items": int(keep.sum()),
            "dropped_incomplete": int((~keep).sum()), "pearson": c.pearson,
            "spearman": c.spearman, "kendall_tau_b": c.kendall_tau_b,
            "pearson_p": c.pearson_p, "spearman_p": c.spearman_p, "kendall_p": c.kendall_p,
            "icc2k": result.icc2k, "top_n": result.top_n,
            "kept": [int(i) for i in np.flatnonzero(keep)]}
