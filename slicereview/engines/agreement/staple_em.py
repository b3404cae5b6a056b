"""Binary STAPLE's EM over vote patterns instead of pixels.

Binary STAPLE [Warfield2004] depends on the pixels only through the *vote
pattern* of each pixel — which of the R raters marked it. Every pixel with the same pattern
gets the same weight W (probability of being foreground) in every iteration, so the EM can run
over the ≤ 2^R patterns, each weighted by how many pixels have it, instead of over H·W pixels:
one pass packs the R masks into a pattern code per pixel (:func:`vote_patterns`, ``np.bincount``),
:func:`staple_counts` runs the EM on the counts, and ``table[codes]`` maps the per-pattern
probability back to the pixels.

The EM follows ITK's ``itk::STAPLEImageFilter::GenerateData`` (the filter SimpleITK wraps):

* W starts as the fraction of raters marking the pixel; the prior ``g = mean(W) ·
  confidence_weight`` is fixed from it (confidence weight 1, ITK's default);
* sensitivity and specificity start at 1.0; each iteration first re-estimates every rater's
  ``p_i = Σ_{D_i=1} W / Σ W`` and ``q_i = Σ_{D_i=0} (1−W) / Σ (1−W)`` from the same W (a
  vanishing denominator keeps the previous value — ITK's guard since July 2026; SimpleITK
  2.5 / ITK 5.4 divides anyway and returns NaN when nobody or everybody marked every pixel),
  then sets ``W = g·α / (g·α + (1−g)·β)`` with ``α = Π p_i^{D_i} (1−p_i)^{1−D_i}`` and
  ``β = Π (1−q_i)^{D_i} q_i^{1−D_i}``;
* it stops when, from the second iteration on, every ``(p_i − p_i')²`` and ``(q_i − q_i')²``
  is ≤ 1e-14, or after ``max_iterations`` (ITK's default: 2^32 − 1, i.e. no limit).

Why: SimpleITK's filter walks all pixels R + 1 times per iteration; measured on the 2-core
test machine, 3 × 256 × 256 took ~59 ms and a 3 × 2900 × 4500 mammogram 3.6 s, which made
per-image STAPLE in the 1,200-image owner's report impossible. Here the pixels are touched
once (packing + bincount + the final lookup) and each iteration costs O(2^R · R); the
benchmark ``tests/benchmarks/test_bench_staple.py`` measures the speed-up on the mammogram
size against SimpleITK in the same run. SimpleITK stays the test oracle
(``tests/engines/agreement/test_staple_em.py``: sensitivity, specificity and probability
equal to ~1e-6 on random and rasterised-polygon masks, R = 1..6, degenerate cases).

Example
-------
>>> import numpy as np
>>> masks = np.zeros((3, 4, 4), bool)
>>> masks[:, 1:3, 1:3] = True; masks[2, 0, 0] = True
>>> codes, counts = vote_patterns(masks)
>>> counts.tolist()                           # pattern 0: nobody; 4: rater 2 only; 7: all
[11, 0, 0, 0, 1, 0, 0, 4]
>>> em = staple_counts(counts, 3)
>>> [round(s, 3) for s in em.sensitivity], round(float(em.table(3)[7]), 3)
([1.0, 1.0, 1.0], 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

#: ITK's default iteration limit (``NumericTraits<unsigned int>::max()``).
ITK_MAX_ITERATIONS = 2**32 - 1
#: ITK's convergence test: every squared change of a sensitivity or specificity ≤ this.
MIN_SQUARED_CHANGE = 1.0e-14
#: Up to this many raters the patterns are counted with a dense ``bincount`` of 2^R bins.
_DENSE_RATERS = 16
#: Up to this many patterns present the EM runs as scalar Python, above with numpy arrays.
_SCALAR_PATTERNS = 16
#: :func:`staple_batch` leaves the last rows still running to :func:`staple_counts` (numpy's
#: overhead per iteration outweighs a handful of rows; some rows need thousands of iterations).
_BATCH_FINISH = 8


@dataclass(frozen=True)
class StapleEM:
    """STAPLE's estimate per vote pattern.

    Attributes
    ----------
    patterns : ndarray of int64, shape (K,)
        The pattern codes estimated (bit i set: rater i marked the pixel).
    probability : ndarray of float64, shape (K,)
        Each pattern's probability of being foreground (NaN where ITK's formula is 0/0).
    sensitivity, specificity : tuple of float
        One per rater, in input order.
    iterations : int
        EM iterations run (ITK's ``ElapsedIterations``).
    """

    patterns: np.ndarray
    probability: np.ndarray
    sensitivity: tuple[float, ...]
    specificity: tuple[float, ...]
    iterations: int

    def table(self, raters: int) -> np.ndarray:
        """``float64 (2^R,)``: probability by pattern code (0 for patterns not estimated).

        >>> em = staple_counts([2, 0, 0, 2], 2)
        >>> em.table(2).tolist()
        [0.0, 0.0, 0.0, 1.0]
        """
        out = np.zeros(1 << raters)
        out[self.patterns] = self.probability
        return out


def vote_patterns(masks: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Pack R masks into one pattern code per pixel and count each pattern.

    Parameters
    ----------
    masks : array_like of bool, shape (R, H, W)
        What each rater marked (1 ≤ R ≤ 62).

    Returns
    -------
    codes : ndarray of unsigned int, shape (H, W)
        Bit i set where rater i marked the pixel (uint8 for R ≤ 8, uint16 for R ≤ 16, else
        uint64).
    counts : ndarray of int64
        Pixels per code: shape (2^R,) for R ≤ 16; above, shape (max code + 1,).

    >>> codes, counts = vote_patterns(np.array([[[1, 1, 0]], [[0, 1, 0]]], bool))
    >>> codes.tolist(), counts.tolist()
    ([[1, 3, 0]], [1, 1, 0, 1])
    """
    arr = np.asarray(masks)
    if arr.ndim != 3 or not 1 <= arr.shape[0] <= 62:
        raise ValueError(f"masks must be (1 ≤ raters ≤ 62, height, width), got {arr.shape}")
    if arr.dtype != np.bool_:
        arr = arr != 0
    r = arr.shape[0]
    dtype = np.dtype(np.uint8 if r <= 8 else np.uint16 if r <= 16 else np.uint64)
    codes = np.zeros(arr.shape[1:], dtype)
    bit = np.empty(arr.shape[1:], dtype)
    for i in range(r):
        # a bool viewed as uint8 is 0/1: no conversion pass
        np.left_shift(arr[i].view(np.uint8), dtype.type(i), out=bit)
        np.bitwise_or(codes, bit, out=codes)
    minlength = 1 << r if r <= _DENSE_RATERS else 0
    return codes, np.bincount(codes.ravel(), minlength=minlength)


def staple_counts(counts: ArrayLike, raters: int, *, confidence_weight: float = 1.0,
                  max_iterations: int = ITK_MAX_ITERATIONS) -> StapleEM:
    """Binary STAPLE's EM on pattern counts (see the module docstring for the iteration).

    Parameters
    ----------
    counts : array_like of int, shape (K,)
        ``counts[c]``: pixels whose vote pattern is ``c`` (bit i: rater i marked it), as
        :func:`vote_patterns` returns; absent patterns may be 0 or left off the end.
    raters : int
        R ≥ 1.
    confidence_weight : float
        Scales the prior ``g`` (ITK's ``ConfidenceWeight``).
    max_iterations : int
        ITK's ``MaximumIterations``.

    Returns
    -------
    StapleEM
        Estimated for the patterns with a non-zero count.

    Examples
    --------
    >>> em = staple_counts([90, 0, 0, 10], 2)     # two raters marking the same 10 pixels
    >>> em.sensitivity, em.specificity, em.probability.tolist()
    ((1.0, 1.0), (1.0, 1.0), [0.0, 1.0])
    >>> staple_counts([100], 3).sensitivity      # nobody marked anything: ITK keeps 1.0
    (1.0, 1.0, 1.0)
    """
    w_all = np.asarray(counts, dtype=np.float64)
    if raters < 1 or w_all.ndim != 1 or w_all.size > 1 << raters or (w_all < 0).any():
        raise ValueError(f"counts must be ≥ 0, at most 2^{raters} of them, got {w_all.shape}")
    patterns = np.flatnonzero(w_all)
    if patterns.size == 0:
        raise ValueError("counts are all zero: no pixel to estimate")
    # few patterns (R ≤ 4, or any R on real masks): scalar Python beats numpy's call overhead
    # (≈ 10 µs vs ≈ 50 µs an iteration for R = 3, measured); both run the same iteration
    run = _em_scalar if patterns.size <= _SCALAR_PATTERNS else _em_numpy
    weights, p, q, iteration = run(w_all[patterns], patterns, raters, confidence_weight,
                                   max_iterations)
    return StapleEM(patterns, np.asarray(weights, np.float64), tuple(float(x) for x in p),
                    tuple(float(x) for x in q), iteration)


def _converged(p: Sequence[float], q: Sequence[float], last_p: Sequence[float],
               last_q: Sequence[float]) -> bool:
    # ITK's test is `change² > limit` → not converged; a NaN change never counts as one
    pairs = ((p, last_p), (q, last_q))
    return not any((a - b) ** 2 > MIN_SQUARED_CHANGE
                   for new, old in pairs for a, b in zip(new, old, strict=True))


def _em_scalar(w: np.ndarray, patterns: np.ndarray, raters: int, confidence_weight: float,
               max_iterations: int) -> tuple[list[float], list[float], list[float], int]:
    counts = w.tolist()
    bits = [[bool((int(c) >> i) & 1) for i in range(raters)] for c in patterns]
    weights = [sum(b) / raters for b in bits]
    g = sum(n * x for n, x in zip(counts, weights, strict=True)) / sum(counts) * confidence_weight
    p, q = [1.0] * raters, [1.0] * raters
    last_p, last_q = [-10.0] * raters, [-10.0] * raters
    rng = range(raters)
    iteration = 0
    while iteration < max_iterations:
        p_num, q_num = [0.0] * raters, [0.0] * raters
        p_denom = q_denom = 0.0
        for n, x, b in zip(counts, weights, bits, strict=True):
            fore, back = n * x, n * (1.0 - x)
            p_denom += fore
            q_denom += back
            for i in rng:
                if b[i]:
                    p_num[i] += fore
                else:
                    q_num[i] += back
        if p_denom != 0.0:
            p = [x / p_denom for x in p_num]
        if q_denom != 0.0:
            q = [x / q_denom for x in q_num]
        weights = []
        for b in bits:
            alpha = beta = 1.0
            for i in rng:
                if b[i]:
                    alpha *= p[i]
                    beta *= 1.0 - q[i]
                else:
                    alpha *= 1.0 - p[i]
                    beta *= q[i]
            num = g * alpha
            den = num + (1.0 - g) * beta
            weights.append(num / den if den != 0.0 else math.nan)   # 0/0: NaN, as in ITK
        done = iteration != 0 and _converged(p, q, last_p, last_q)
        last_p, last_q = p, q
        if done:
            break
        iteration += 1
    return weights, p, q, iteration


def _em_numpy(w: np.ndarray, patterns: np.ndarray, raters: int, confidence_weight: float,
              max_iterations: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    marked = ((patterns[:, None] >> np.arange(raters)) & 1).astype(bool)   # (K, R)
    weights, p, q, iterations, _ = _em_rows(w[None, :], marked, confidence_weight,
                                            max_iterations, 0)
    return weights[0], p[0], q[0], int(iterations[0])


def _em_rows(w: np.ndarray, marked: np.ndarray, confidence_weight: float, max_iterations: int,
             leave: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The EM on ``(N, K)`` pattern counts at once, the patterns' votes ``marked (K, R)``;
    each row stops by ITK's test on its own. Stops early when at most ``leave`` rows still
    run; returns ``(weights (N, K), p (N, R), q (N, R), iterations (N,), rows still running)``.
    A pattern with no pixel keeps weight 0 (it must not spread a 0/0 NaN into the sums)."""
    marked_f = marked.astype(np.float64)
    present = w > 0
    weights = np.where(present, marked_f.mean(axis=1), 0.0)        # W: the vote fraction
    g = (w * weights).sum(axis=1) / w.sum(axis=1) * confidence_weight
    n, raters = len(w), marked.shape[1]
    p, q = np.ones((n, raters)), np.ones((n, raters))
    last_p, last_q = np.full_like(p, -10.0), np.full_like(q, -10.0)
    iterations = np.zeros(n, np.int64)
    running = np.arange(n)
    iteration = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        while running.size > leave and iteration < max_iterations:
            wr, xr, gr = w[running], weights[running], g[running][:, None]
            fore, back = wr * xr, wr * (1.0 - xr)
            p_denom, q_denom = fore.sum(axis=1)[:, None], back.sum(axis=1)[:, None]
            pr = np.where(p_denom != 0.0, (fore @ marked_f) / p_denom, p[running])
            qr = np.where(q_denom != 0.0, (back @ (1.0 - marked_f)) / q_denom, q[running])
            num = gr * np.where(marked, pr[:, None, :], 1.0 - pr[:, None, :]).prod(axis=2)
            beta = np.where(marked, 1.0 - qr[:, None, :], qr[:, None, :]).prod(axis=2)
            weights[running] = np.where(present[running], num / (num + (1.0 - gr) * beta), 0.0)
            # ITK's test: every squared change ≤ the limit (a NaN change never counts as one)
            moved = (((pr - last_p[running]) ** 2 > MIN_SQUARED_CHANGE).any(axis=1)
                     | ((qr - last_q[running]) ** 2 > MIN_SQUARED_CHANGE).any(axis=1))
            p[running] = last_p[running] = pr
            q[running] = last_q[running] = qr
            if iteration != 0:
                running = running[moved]
            iterations[running] += 1
            iteration += 1
    return weights, p, q, iterations, running


def staple_batch(counts: ArrayLike, raters: int, *, confidence_weight: float = 1.0,
                 max_iterations: int = ITK_MAX_ITERATIONS) -> tuple[np.ndarray, np.ndarray]:
    """:func:`staple_counts` of many images with the same R at once, for their rates only.

    The same EM as :func:`staple_counts`, each row stopping by ITK's test on its own, with
    numpy working on all rows still running; the last few rows still running are finished one
    at a time by :func:`staple_counts` (the owner's report runs one EM per image: one at a
    time, Python's overhead per iteration dominated).

    Parameters
    ----------
    counts : array_like of int, shape (N, 2^R)
        One row of :func:`vote_patterns` counts per image (each with at least one pixel).
    raters : int
        R ≥ 1.

    Returns
    -------
    sensitivity, specificity : ndarray of float64, shape (N, R)

    Examples
    --------
    >>> rows = [[90, 0, 0, 10], [50, 5, 0, 45]]
    >>> sens, spec = staple_batch(rows, 2)
    >>> bool(np.allclose(sens[1], staple_counts(rows[1], 2).sensitivity, atol=1e-12))
    True
    """
    w = np.asarray(counts, dtype=np.float64)
    if raters < 1 or w.ndim != 2 or w.shape[1] != 1 << raters or (w < 0).any():
        raise ValueError(f"counts must be ≥ 0 and of shape (N, {1 << raters}), got {w.shape}")
    if (w.sum(axis=1) == 0).any():
        raise ValueError("a row of counts is all zero: no pixel to estimate")
    marked = ((np.arange(w.shape[1])[:, None] >> np.arange(raters)) & 1).astype(bool)  # (K, R)
    _, p, q, iterations, running = _em_rows(w, marked, confidence_weight, max_iterations,
                                            _BATCH_FINISH)
    if iterations.max(initial=0) < max_iterations:  # the slow rows: one at a time, anew
        for row in running:
            em = staple_counts(w[row], raters, confidence_weight=confidence_weight,
                               max_iterations=max_iterations)
            p[row], q[row] = em.sensitivity, em.specificity
    return p, q
