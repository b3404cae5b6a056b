"""Bradley–Terry scores with standard errors, from any pairwise answers.

The model [BradleyTerry1952]: image ``a`` is preferred to ``b`` with probability
``p = 1 / (1 + exp(-(θ_a - θ_b)))``. :func:`fit` returns the *maximum a posteriori* scores θ
under an isotropic Gaussian prior, i.e. it minimises

    ``alpha * Σ θ_i²  -  Σ_answers log-likelihood``

— exactly the objective of ``choix.opt_pairwise(n, data, alpha)`` [Choix], solved here
by Newton's method on the aggregated win matrix (vectorised with numpy; ``choix.opt_pairwise``
loops over the answers in Python and needs seconds where this needs milliseconds; the tests
check both give the same scores). The light penalty (default :data:`BT_ALPHA` = 0.01, a prior
standard deviation of 1 / √(2α) ≈ 7 log-odds units) keeps every score finite when an image won
or lost all its comparisons, which perfectly consistent answers (a sort) always produce.

**Ties.** An answer "same" counts as *half a win each way* (likelihood ``p^½ (1 - p)^½``): it
pulls the two scores together and carries the information of one comparison. (The older rule,
one whole win each way, counted a tie as two comparisons and overstated its information.)
A tie parameter [Davidson1970] would add a third outcome probability; half a win keeps one
parameter per image and the same Fisher information as a decided answer.

**Standard errors.** The observed Fisher information of the penalised likelihood at θ̂,
``H = 2 α I + Σ_answers p (1 - p) (e_a - e_b)(e_a - e_b)ᵀ``, is the precision of the Laplace
(normal) approximation of the posterior; ``Σ = H⁻¹``. Scores are reported *centred* (mean 0 over
the compared images), so the standard error of a score is ``√ diag(C Σ C)`` with
``C = I - 11ᵀ/m``: the uncertainty of an image relative to the average image. With α → 0 this
is the usual maximum-likelihood standard error of a logistic regression on the same answers
(the tests check it against ``statsmodels``). A 95 % confidence interval is ``score ± 1.96 SE``
(Wald).

**At scale.** From :data:`SPARSE_FROM` compared items the Newton steps are sparse solves over
the answers (:func:`newton_map_edges`; the same optimum). Above :data:`DENSE_LIMIT` compared
items the standard errors are not computed (NaN): they need the dense inverse of ``H``.

**Degenerate cases** (each tested):

* no usable answers, or fewer than two images: every score 0, every SE NaN;
* an image never compared: score 0 (the prior mean, which is the average), SE NaN and
  ``comparisons`` 0 — shown as "not compared";
* an image that won (or lost) every comparison: a finite score held by the prior, and an SE
  larger than that of images with mixed results: its interval is wide on the open side;
* one single answer between two images: scores ``±d`` with a large SE;
* ties only: every score 0 (by symmetry) with a finite SE;
* images in two groups never compared with each other: each group is centred by the prior
  and the SE includes that uncertainty (it is large).

Example
-------
>>> f = fit(["a", "b", "c"], [("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 0.5)])
>>> [item for item, _, _ in f.ranked()]
['a', 'b', 'c']
>>> abs(f.scores["a"] + f.scores["b"] + f.scores["c"]) < 1e-12
True
>>> f.se["a"] > 0
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from slicereview.engines.ranking.blas import one_thread

#: Default L2 penalty (choix's ``alpha``): prior standard deviation 1 / √(2 α) ≈ 7.1.
BT_ALPHA = 0.01
#: z of a two-sided 95 % normal interval.
Z95 = 1.959963984540054
#: From this many compared items on, Newton's steps are sparse solves
#: (:func:`newton_map_edges`): faster from a few hundred items, and O(answers) memory.
SPARSE_FROM = 300
#: Above this many compared items no covariance is computed (standard errors NaN): the
#: inverse of the m × m information matrix needs O(m²) memory and O(m³) time (20,000 items:
#: 3.2 GB a matrix, hours), and a sparse factorisation does not help (the inverse is dense).
DENSE_LIMIT = 2000
#: How the scores are made, for column headers and reports.
METHOD = ("Bradley–Terry MAP (choix.opt_pairwise objective, L2 α = {alpha:g}, Newton); "
          "SE from the observed Fisher information; ties = half a win each way")

#: An answer as ``(a, b, s)``: ``s`` = 1.0 when ``a`` was preferred, 0.0 when ``b`` was,
#: 0.5 for "same".
Outcome = tuple[Hashable, Hashable, float]

_VALUE = {"left": 1.0, "right": 0.0, "same": 0.5}


def outcomes(answer_maps: Iterable[Mapping[Any, str]]) -> list[Outcome]:
    """Outcomes from one or more ``(left, right) -> "left" | "right" | "same"`` mappings (keys
    are pairs of items; ``Any`` because ``Mapping`` is invariant in its key type).

    >>> outcomes([{("x", "y"): "right"}, {("x", "y"): "same"}])
    [('x', 'y', 0.0), ('x', 'y', 0.5)]
    """
    out: list[Outcome] = []
    for answers in answer_maps:
        for (a, b), choice in answers.items():
            try:
                out.append((a, b, _VALUE[str(choice)]))
            except KeyError:
                raise ValueError(f"answer for {(a, b)!r} must be left, right or same, "
                                 f"not {choice!r}") from None
    return out


@dataclass(frozen=True)
class BTFit:
    """Scores, standard errors and counts per item (see the module docstring).

    ``scores`` and ``se`` map every item given to :func:`fit`; ``comparisons`` counts the
    answers an item took part in, ``wins`` its wins (a "same" is half a win). ``alpha`` is the
    penalty used.
    """

    items: tuple
    scores: dict
    se: dict
    comparisons: dict
    wins: dict
    alpha: float = BT_ALPHA
    covariance: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def method(self) -> str:
        return METHOD.format(alpha=self.alpha)

    def interval(self, item: Hashable, z: float = Z95) -> tuple[float, float]:
        """``score ± z SE`` (95 % by default); NaN bounds when the item was not compared."""
        s, e = self.scores[item], self.se[item]
        return (s - z * e, s + z * e)

    def ranked(self) -> list[tuple[Hashable, float, float]]:
        """``[(item, score, se), …]`` from the highest score; equal scores keep item order."""
        position = {item: i for i, item in enumerate(self.items)}
        order = sorted(self.items, key=lambda i: (-self.scores[i], position[i]))
        return [(i, self.scores[i], self.se[i]) for i in order]


def win_matrix(n: int, index: Sequence[int] | np.ndarray, other: Sequence[int] | np.ndarray,
               s: Sequence[float] | np.ndarray) -> np.ndarray:
    """``W[i, j]``: how often ``i`` was preferred to ``j`` (halves for ties), shape (n, n)."""
    w = np.zeros((n, n))
    a, b, v = np.asarray(index, int), np.asarray(other, int), np.asarray(s, float)
    np.add.at(w, (a, b), v)
    np.add.at(w, (b, a), 1.0 - v)
    return w


@one_thread
def newton_map(w: np.ndarray, alpha: float, start: np.ndarray | None = None,
               tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """The MAP log-strengths for a win matrix ``w`` (shape (m, m)): minimises
    ``alpha Σθ² + Σ_ij w_ij log(1 + exp(θ_j - θ_i))`` by Newton's method with a backtracking
    line search (the objective is strictly convex for ``alpha > 0``). Returns θ, shape (m,).
    """
    m = w.shape[0]
    n_ij = w + w.T
    theta = np.zeros(m) if start is None else np.array(start, dtype=float)

    def objective(t: np.ndarray) -> float:
        return float(alpha * t @ t + (w * np.logaddexp(0.0, t[None, :] - t[:, None])).sum())

    def newton_step(theta: np.ndarray) -> np.ndarray:
        p = _sigmoid(theta[:, None] - theta[None, :])
        grad = 2 * alpha * theta - (w - n_ij * p).sum(axis=1)
        v = n_ij * p * (1 - p)
        hess = np.diag(v.sum(axis=1) + 2 * alpha) - v
        return np.linalg.solve(hess, grad)

    return _damped_newton(theta, objective, newton_step, tol, max_iter)


def newton_map_edges(m: int, win: np.ndarray, lose: np.ndarray, weight: np.ndarray,
                     alpha: float, start: np.ndarray | None = None, tol: float = 1e-10,
                     max_iter: int = 100) -> np.ndarray:
    """:func:`newton_map` from the answers as weighted edges instead of a win matrix: ``win``
    was preferred to ``lose`` with weight ``weight`` (each shape (e,); a "same" is two edges of
    ½). The same objective, gradient and Hessian, summed over the edges; the Newton step is a
    sparse solve (the Hessian is ``2 α I`` plus the weighted Laplacian of the comparison graph,
    O(e) non-zeros). Memory O(m + e) instead of O(m²), time per step about O(e) instead of
    O(m³): what a ranking of thousands of images needs. Returns θ, shape (m,).

    >>> win, lose, w = np.array([0, 1, 0]), np.array([1, 2, 2]), np.ones(3)
    >>> dense = newton_map(win_matrix(3, win, lose, w), 0.01)
    >>> bool(np.allclose(newton_map_edges(3, win, lose, w, 0.01), dense))
    True
    """
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    win, lose = np.asarray(win, int), np.asarray(lose, int)
    weight = np.asarray(weight, float)
    # One row per compared pair i < j: w_ij (i preferred), w_ji, and their sum.
    i_of, j_of = np.minimum(win, lose), np.maximum(win, lose)
    pairs, which = np.unique(i_of * m + j_of, return_inverse=True)
    i, j = pairs // m, pairs % m
    forward = win < lose
    w_ij = np.bincount(which, weight * forward, len(pairs))
    w_ji = np.bincount(which, weight * ~forward, len(pairs))
    n_ij = w_ij + w_ji
    # The Hessian's pattern is fixed: build it once, refill its values each step.
    diagonal_at = np.arange(m)
    hess = sparse.csc_matrix((np.arange(1.0, 2 * len(pairs) + m + 1),
                              (np.concatenate([i, j, diagonal_at]),
                               np.concatenate([j, i, diagonal_at]))), shape=(m, m))
    slot = hess.data.astype(int) - 1
    theta = np.zeros(m) if start is None else np.array(start, dtype=float)

    def objective(t: np.ndarray) -> float:
        d = t[i] - t[j]
        return float(alpha * t @ t + (w_ij * np.logaddexp(0.0, -d)
                                      + w_ji * np.logaddexp(0.0, d)).sum())

    def newton_step(theta: np.ndarray) -> np.ndarray:
        p = _sigmoid(theta[i] - theta[j])
        r = w_ij - n_ij * p
        grad = 2 * alpha * theta - np.bincount(i, r, m) + np.bincount(j, r, m)
        h = n_ij * p * (1.0 - p)
        diagonal = np.bincount(i, h, m) + np.bincount(j, h, m) + 2 * alpha
        hess.data = np.concatenate([-h, -h, diagonal])[slot]
        return np.asarray(spsolve(hess, grad))

    return _damped_newton(theta, objective, newton_step, tol, max_iter)


def _damped_newton(theta: np.ndarray, objective: Callable[[np.ndarray], float],
                   newton_step: Callable[[np.ndarray], np.ndarray], tol: float,
                   max_iter: int) -> np.ndarray:
    """Newton's method with step halving: from ``theta`` (shape (m,)), take ``newton_step``
    (the Hessian solved against the gradient) halved until ``objective`` does not rise, until a
    step moves no coordinate by ``tol`` or ``max_iter`` steps."""
    f = objective(theta)
    for _ in range(max_iter):
        step = newton_step(theta)
        t = 1.0
        while True:
            candidate = theta - t * step
            fc = objective(candidate)
            if fc <= f or t < 1e-8:
                break
            t /= 2
        theta, f = candidate, fc
        if np.max(np.abs(t * step)) < tol:
            break
    return theta


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def precision(w: np.ndarray, theta: np.ndarray, alpha: float) -> np.ndarray:
    """The observed Fisher information ``H`` of the penalised likelihood at ``theta``
    (shape (m, m)): ``2 α I + Σ p (1 - p) (e_a - e_b)(e_a - e_b)ᵀ``."""
    p = _sigmoid(theta[:, None] - theta[None, :])
    v = (w + w.T) * p * (1 - p)
    return np.diag(v.sum(axis=1) + 2 * alpha) - v


@one_thread
def fit(items: Sequence[Hashable], answers: Iterable[Outcome], alpha: float = BT_ALPHA,
        covariance: bool = False) -> BTFit:
    """Bradley–Terry scores and standard errors of ``items`` from ``answers``.

    Parameters
    ----------
    items : the items to score (distinct, hashable); answers about other items are ignored,
        as are answers of an item against itself.
    answers : ``(a, b, s)`` outcomes (:data:`Outcome`); repeated pairs all count.
    alpha : the L2 penalty (> 0).
    covariance : keep the centred covariance matrix of the compared items (shape (m, m), in
        the order they appear in ``items``) in :attr:`BTFit.covariance`.

    Returns
    -------
    BTFit; see the module docstring for the method and the degenerate cases.
    """
    if alpha <= 0:
        raise ValueError("alpha must be > 0 (the penalty keeps the scores finite)")
    items = tuple(items)
    index = {item: i for i, item in enumerate(items)}
    if len(index) != len(items):
        raise ValueError("items must be distinct")
    rows = [(index[a], index[b], float(s)) for a, b, s in answers
            if a in index and b in index and a != b]
    n = len(items)
    count = np.zeros(n, dtype=int)
    wins = np.zeros(n)
    for a, b, s in rows:
        count[a] += 1
        count[b] += 1
        wins[a] += s
        wins[b] += 1.0 - s
    scores = dict.fromkeys(items, 0.0)
    se = dict.fromkeys(items, math.nan)
    comparisons = {i: int(count[k]) for i, k in index.items()}
    won = {i: float(wins[k]) for i, k in index.items()}
    compared = np.flatnonzero(count)
    if n < 2 or len(compared) < 2:
        return BTFit(items, scores, se, comparisons, won, alpha)
    local = np.full(n, -1)
    local[compared] = np.arange(len(compared))
    first = np.array([r[0] for r in rows], dtype=int)
    second = np.array([r[1] for r in rows], dtype=int)
    m = len(compared)
    value = np.array([r[2] for r in rows])
    theta = map_scores(m, local[first], local[second], value, alpha)
    theta -= theta.mean()
    centred = None
    errors = np.full(m, math.nan)
    if m <= DENSE_LIMIT:
        w = win_matrix(m, local[first], local[second], value)
        sigma = np.linalg.inv(precision(w, theta, alpha))
        centred = sigma - sigma.mean(axis=0) - sigma.mean(axis=1)[:, None] + sigma.mean()
        errors = np.sqrt(np.clip(np.diag(centred), 0.0, None))
    for k, i in enumerate(compared):
        scores[items[i]] = float(theta[k])
        se[items[i]] = float(errors[k])
    return BTFit(items, scores, se, comparisons, won, alpha,
                 centred if covariance else None)


def map_scores(m: int, first: np.ndarray, second: np.ndarray, s: np.ndarray, alpha: float,
               start: np.ndarray | None = None) -> np.ndarray:
    """The MAP log-strengths of ``m`` items from answers ``(first, second, s)`` (each shape
    (e,), ``s`` as in :data:`Outcome`): :func:`newton_map` on the win matrix below
    :data:`SPARSE_FROM` items, :func:`newton_map_edges` from there on (the same optimum).

    >>> theta = map_scores(2, np.array([0]), np.array([1]), np.array([1.0]), 0.01)
    >>> bool(theta[0] > 0 > theta[1])
    True
    """
    first, second = np.asarray(first, int), np.asarray(second, int)
    s = np.asarray(s, float)
    if m < SPARSE_FROM:
        return newton_map(win_matrix(m, first, second, s), alpha, start)
    win, lose = np.concatenate([first, second]), np.concatenate([second, first])
    weight = np.concatenate([s, 1.0 - s])
    keep = weight > 0
    return newton_map_edges(m, win[keep], lose[keep], weight[keep], alpha, start)
