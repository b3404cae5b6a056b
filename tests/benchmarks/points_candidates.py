"""The methods tried for the points tool, for the table in docs/performance.md.

Each candidate maps (displayed crop ``v``, positive and negative click pixels) to a region, and
runs inside the same adaptive crop as the points tool (:func:`run`: 40 px round one click,
less for spread clicks, grown while the region reaches a side, up to 768 px). The winner,
the edge region with the threshold region as its fallback, is the points tool itself
(:mod:`slicereview.engines.assist.regions`). Not collected by pytest.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import ndimage

from slicereview.demo.clicker import Placed
from slicereview.engines.assist.common import border, keep_touched, seeds, stamp
from slicereview.engines.assist.pixels import (
    crop_for_clicks,
    displayed,
    grow,
    touches_inner_edge,
    window_for,
)
from slicereview.engines.assist.regions import _polarity, edge_region, threshold_region

Candidate = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def run(method: Candidate, image: np.ndarray, prompts, margin: int = 40, max_crop: int = 768
        ) -> Placed:
    crop = crop_for_clicks(np.vstack([p.points for p in prompts]), margin, image.shape)
    win = window_for(image, crop)
    while True:
        v = displayed(image, crop, window=win)
        region = method(v, seeds(prompts, crop, True), seeds(prompts, crop, False))
        side = max(v.shape)
        if side >= max_crop or not touches_inner_edge(region, crop, image.shape):
            return Placed(region, crop[0], crop[1])
        crop = grow(crop, side // 2, image.shape)


def random_walker(v, pos, neg, beta: float = 130.0):
    """[Grady2006]: clicks (3 x 3) and the crop's border as seeds, p >= 0.5."""
    from skimage.segmentation import random_walker as rw

    labels = np.zeros(v.shape, np.int32)
    labels[border(v.shape)] = 2
    stamp(labels, neg, 1, 2)
    stamp(labels, pos, 1, 1)
    p = rw(v.astype(np.float64), labels, beta=beta, mode="bf", return_full_prob=True)[0]
    return keep_touched(p >= 0.5, pos)


def _grid(v: np.ndarray, eps: float):
    from scipy import sparse

    h, w = v.shape
    idx = np.arange(h * w).reshape(h, w)
    rows, cols, weights = [], [], []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        rs, rd = slice(0, h - dr), slice(dr, h)
        cs, cd = (slice(0, w - dc), slice(dc, w)) if dc >= 0 else (slice(-dc, w), slice(0, w + dc))
        rows.append(idx[rs, cs].ravel())
        cols.append(idx[rd, cd].ravel())
        weights.append((np.abs(v[rs, cs] - v[rd, cd]) + eps * np.hypot(dr, dc)).ravel())
    return sparse.csr_matrix((np.concatenate(weights), (np.concatenate(rows),
                                                        np.concatenate(cols))), (h * w, h * w))


def geodesic(v, pos, neg, sigma: float = 1.5, eps: float = 0.002):
    """Competition of geodesic distances (shortest paths [Dijkstra1959]) on intensity
    differences, the GrowCut-like idea of 3D Slicer's Grow from seeds: clicks and the border
    as seeds."""
    from scipy.sparse.csgraph import dijkstra

    g = _grid(ndimage.gaussian_filter(v, sigma), eps)
    fg = np.ravel_multi_index(pos.T, v.shape)
    bg_mask = border(v.shape)
    bg_mask[neg[:, 0], neg[:, 1]] = True
    bg_mask.ravel()[fg] = False
    d_fg = dijkstra(g, directed=False, indices=fg, min_only=True)
    d_bg = dijkstra(g, directed=False, indices=np.flatnonzero(bg_mask), min_only=True)
    return keep_touched((d_fg < d_bg).reshape(v.shape), pos)


def confidence_connected(v, pos, neg, multiplier: float = 2.5):
    """SimpleITK's ConfidenceConnected region growing from the positive clicks; negative clicks
    cut it by geodesic competition."""
    import SimpleITK as sitk

    img = sitk.GetImageFromArray(ndimage.gaussian_filter(v, 1.0).astype(np.float32))
    out = sitk.ConfidenceConnected(img, seedList=[(int(c), int(r)) for r, c in pos],
                                   numberOfIterations=3, multiplier=multiplier,
                                   initialNeighborhoodRadius=2, replaceValue=1)
    region = sitk.GetArrayFromImage(out).astype(bool)
    if len(neg):
        region &= _geodesic_inside(v, pos, neg)
    return keep_touched(region, pos)


def _geodesic_inside(v, pos, neg):
    from scipy.sparse.csgraph import dijkstra

    g = _grid(ndimage.gaussian_filter(v, 1.0), 0.002)
    d_fg = dijkstra(g, directed=False, indices=np.ravel_multi_index(pos.T, v.shape),
                    min_only=True)
    d_bg = dijkstra(g, directed=False, indices=np.ravel_multi_index(neg.T, v.shape),
                    min_only=True)
    return (d_fg < d_bg).reshape(v.shape)


def grabcut(v, pos, neg):
    """OpenCV's GrabCut [Rother2004] seeded by the clicks: a disc of a sixth of the crop round
    each positive click probably object, the clicks certain, the border background."""
    import cv2

    mask = np.full(v.shape, cv2.GC_PR_BGD, np.uint8)
    rr, cc = np.mgrid[:v.shape[0], :v.shape[1]]
    radius = max(4.0, min(v.shape) / 6)
    for r, c in pos:
        mask[(rr - r) ** 2 + (cc - c) ** 2 <= radius ** 2] = cv2.GC_PR_FGD
    mask[border(v.shape)] = cv2.GC_BGD
    stamp(mask, neg, 1, cv2.GC_BGD)
    stamp(mask, pos, 1, cv2.GC_FGD)
    grey = np.dstack([np.rint(v * 255).astype(np.uint8)] * 3)
    bgd, fgd = np.zeros((1, 65)), np.zeros((1, 65))
    cv2.grabCut(grey, mask, (0, 0, 0, 0), bgd, fgd, 5, cv2.GC_INIT_WITH_MASK)
    return keep_touched((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), pos)


def edge_only(v, pos, neg):
    """The points tool's edge region alone (watershed of the gradient, σ 2)."""
    return edge_region(v, pos, neg, 2.0)


def threshold_only(v, pos, neg):
    """The points tool's threshold region alone (local intermeans threshold)."""
    vs = ndimage.gaussian_filter(v, 1.0)
    u, _ = _polarity(vs, pos, neg)
    return threshold_region(u, pos, neg, ndimage.gaussian_gradient_magnitude(v, 1.0))[0]


CANDIDATES: dict[str, Candidate] = {
    "random walker": random_walker,
    "geodesic (GrowCut-like)": geodesic,
    "SimpleITK confidence connected": confidence_connected,
    "GrabCut from clicks": grabcut,
    "edge region only": edge_only,
    "threshold region only": threshold_only,
}
