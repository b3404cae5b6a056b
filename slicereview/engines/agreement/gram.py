"""Binary Krippendorff's α of any subset of annotators from one table of pixel overlaps.

For binary masks where every annotator saw every pixel, α of a subset ``S`` of ``R = |S|``
annotators depends only on ``G[i, j]``, the number of pixels both ``i`` and ``j`` marked
(``G[i, i]`` is ``i``'s area): with ``P`` pixels, ``n = R·P`` values, ``n₁ = Σ_{i∈S} G[i, i]``
ones, ``n₀ = n − n₁``, and per-pixel counts ``c`` of ones, ``Σ c = n₁`` and
``Σ c² = Σ_{i,j∈S} G[i, j]``, so

    α = 1 − (n − 1) · (R·Σc − Σc²) / ((R − 1) · n₀ · n₁),

which is the nominal α's coincidence-matrix formula with ``o₀₁ = Σ c(R − c)/(R − 1)``. So the
pairwise α of every pair and every leave-one-out α come from one overlap table (``R(R+1)/2``
counts) instead of one pass over the pixels each. Degenerate cases as
:func:`~slicereview.engines.agreement.mask_alpha`: no observed disagreement → 1.0; fewer than
two annotators → NaN.

Example
-------
>>> import numpy as np
>>> from slicereview.engines.agreement import mask_alpha
>>> rng = np.random.default_rng(1)
>>> masks = rng.random((3, 20, 20)) < 0.3
>>> g = overlaps(masks)
>>> bool(np.isclose(subset_alpha(g, (0, 2), 400), mask_alpha(masks[[0, 2]])))
True
>>> bool(np.isclose(subset_alpha(g, (0, 1, 2), 400), mask_alpha(masks)))
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike


def overlaps(masks: ArrayLike) -> np.ndarray:
    """``int64 (R, R)``: pixels marked by both annotators (the diagonal: each one's area).

    ``masks`` is ``bool (R, H, W)`` (any trailing shape).
    """
    m = np.asarray(masks, dtype=bool).reshape(len(masks), -1)  # type: ignore[arg-type]
    r = m.shape[0]
    g = np.zeros((r, r), dtype=np.int64)
    for i in range(r):
        g[i, i] = np.count_nonzero(m[i])
        for j in range(i + 1, r):
            g[i, j] = g[j, i] = np.count_nonzero(m[i] & m[j])
    return g


def subset_alpha(g: np.ndarray, subset: Sequence[int], pixels: int) -> float:
    """Binary nominal α of the annotators ``subset`` (indices into ``g``) over ``pixels``
    pixels, from the overlap table ``g`` of :func:`overlaps`."""
    idx = np.asarray(subset, dtype=np.intp)
    r = len(idx)
    if r < 2 or pixels < 1:
        return float("nan")
    sub = g[np.ix_(idx, idx)]
    ones = int(np.trace(sub))
    n = r * int(pixels)
    disagreement = r * ones - int(sub.sum())
    if disagreement == 0:
        return 1.0
    return float(1.0 - (n - 1) * disagreement / ((r - 1) * float(n - ones) * float(ones)))
