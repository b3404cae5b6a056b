"""A Gaussian posterior over Bradley–Terry log-strengths, updated one answer at a time, and the
pair-choice criteria and confidence figures computed from it.

The state is a mean ``theta`` (shape (n,)) and a full covariance ``sigma`` (shape (n, n)) of the
log-strengths of the model of :mod:`slicereview.engines.ranking.bt` (``P(a preferred to b) =
σ(θ_a - θ_b)``; "same" is half a win each way). Two ways to get one:

* :meth:`Posterior.laplace` — the Laplace approximation at the MAP of every answer so far (the
  exact penalised fit of :func:`slicereview.engines.ranking.bt.newton_map`, started from zero,
  so it depends on the answers only): ``sigma = H⁻¹``, O(n³);
* :meth:`Posterior.update` — one answer folded in by an extended Kalman (assumed-density) step
  in O(n²): the predicted preference ``p = σ(μ / √(1 + π v / 8))`` for the pair's difference
  ``μ ± √v`` [MacKay1992], then the rank-one update of the precision by ``p (1 - p)`` along
  ``e_a - e_b`` (Sherman–Morrison on ``sigma``) and the mean by the score ``y - p``: the step
  of [Glickman1999] with the full covariance kept.

The pair criteria score every unordered pair ``(i, j)`` from the difference ``d = θ_i - θ_j``
with mean ``μ`` and variance ``v = Σ_ii + Σ_jj - 2 Σ_ij``:

* ``"information"`` — ``p (1 - p) v``: the entropy the answer removes from the Gaussian
  posterior is ``½ log(1 + p (1 - p) v)``, so this is expected-information (D-optimal) choice,
  the criterion of [Mikhailiuk2021] on this posterior;
* ``"misorder"`` — how much the answer is expected to lower the posterior probability that the
  pair is in the wrong order, ``Φ(-|μ| / √v)`` now against its expectation over the two
  outcomes after the update (a one-step look-ahead, the knowledge gradient of
  [Frazier2008] with the pair's order as the value): information spent only where the order is
  in doubt;
* ``"proxy"`` — ``p (1 - p) (Σ_ii + Σ_jj)``, the information proxy with the marginal variances
  (covariances ignored).

Example
-------
>>> post = Posterior.prior(3)
>>> post.update(0, 1, 1.0); post.update(1, 2, 1.0)
>>> bool(post.theta[0] > post.theta[1] > post.theta[2])
True
>>> 0.0 < post.expected_tau() < 1.0
True
"""

from __future__ import annotations

import math

import numpy as np

from slicereview.engines.ranking.blas import one_thread
from slicereview.engines.ranking.bt import (
    BT_ALPHA,
    SPARSE_FROM,
    newton_map,
    newton_map_edges,
    precision,
)

#: The pair criteria :meth:`Posterior.scores` knows.
CRITERIA = ("information", "misorder", "proxy")
_PI_8 = math.pi / 8
#: Pairs :meth:`Posterior.best_pair` evaluates before it knows which it can leave out.
_FIRST = 512
_UPPER: dict[int, np.ndarray] = {}


def _upper(n: int) -> np.ndarray:
    """The strict upper triangle of an (n, n) matrix as a bool mask (cached; read-only)."""
    mask = _UPPER.get(n)
    if mask is None:
        mask = _UPPER[n] = np.triu(np.ones((n, n), dtype=bool), 1)
        mask.flags.writeable = False
    return mask


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def ndtr(x: np.ndarray) -> np.ndarray:
    """The standard normal CDF (scipy's, imported on first use: it costs seconds at start-up
    on a cold disk)."""
    from scipy.special import ndtr as _ndtr

    return _ndtr(x)


class Posterior:
    """Mean ``theta`` (n,) and covariance ``sigma`` (n, n) of the log-strengths."""

    def __init__(self, theta: np.ndarray, sigma: np.ndarray) -> None:
        self.theta = theta
        self.sigma = sigma

    @classmethod
    def prior(cls, n: int, alpha: float = BT_ALPHA) -> Posterior:
        """The prior of the penalised fit: mean 0, variance ``1 / (2 alpha)`` each."""
        return cls(np.zeros(n), np.eye(n) / (2 * alpha))

    @classmethod
    @one_thread
    def laplace(cls, wins: np.ndarray, alpha: float = BT_ALPHA) -> Posterior:
        """The Laplace approximation at the MAP of the win matrix ``wins`` (shape (n, n);
        ``wins[i, j]`` = how often ``i`` was preferred to ``j``, halves for "same")."""
        n = len(wins)
        if n < SPARSE_FROM:
            theta = newton_map(wins, alpha)
        else:  # the same optimum by sparse steps (1,000 images: 0.1 s instead of 0.7 s)
            win, lose = np.nonzero(wins)
            theta = newton_map_edges(n, win, lose, wins[win, lose], alpha)
        return cls(theta, np.linalg.inv(precision(wins, theta, alpha)))

    def copy(self) -> Posterior:
        return Posterior(self.theta.copy(), self.sigma.copy())

    @property
    def n(self) -> int:
        return len(self.theta)

    # -- one answer ------------------------------------------------------------------------
    def update(self, a: int, b: int, s: float) -> None:
        """Fold in one answer about items ``a`` and ``b``: ``s`` = 1 (``a`` preferred), 0
        (``b``) or 0.5 ("same"); in place, O(n²)."""
        sigma = self.sigma
        c = sigma[:, a] - sigma[:, b]  # Σ u with u = e_a - e_b
        v = max(float(c[a] - c[b]), 0.0)
        mu = float(self.theta[a] - self.theta[b])
        p = 1.0 / (1.0 + math.exp(-mu / math.sqrt(1.0 + _PI_8 * v)))
        h = p * (1.0 - p)
        k = 1.0 / (1.0 + h * v)
        self.theta += c * ((s - p) * k)
        sigma -= np.outer(c, c * (h * k))

    # -- pairs -----------------------------------------------------------------------------
    def difference(self) -> tuple[np.ndarray, np.ndarray]:
        """``(μ, v)``: mean and variance of ``θ_i - θ_j`` for every pair, each (n, n)."""
        d = np.diag(self.sigma)
        v = d[:, None] + d[None, :] - 2.0 * self.sigma
        np.maximum(v, 1e-12, out=v)
        return self.theta[:, None] - self.theta[None, :], v

    def scores(self, criterion: str = "misorder") -> np.ndarray:
        """The value of asking each pair (n, n; symmetric, diagonal ``-inf``)."""
        n = self.n
        i, j = (k.ravel() for k in np.indices((n, n)))
        out = self._values(criterion, i, j).reshape(n, n)
        np.fill_diagonal(out, -np.inf)
        return out

    def _values(self, criterion: str, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """The criterion for the pairs ``(i[k], j[k])``, shape (len(i),)."""
        d = np.diag(self.sigma)
        mu = self.theta[i] - self.theta[j]
        v = np.maximum(d[i] + d[j] - 2.0 * self.sigma[i, j], 1e-12)
        p = _sigmoid(mu / np.sqrt(1.0 + _PI_8 * v))
        h = p * (1.0 - p)
        if criterion == "information":
            return h * v
        if criterion == "proxy":
            return h * (d[i] + d[j])
        if criterion == "misorder":
            shrink = 1.0 + h * v
            sd, sd_after = np.sqrt(v), np.sqrt(v / shrink)
            won = np.abs(mu + v * (1.0 - p) / shrink)
            lost = np.abs(mu - v * p / shrink)
            return ndtr(-np.abs(mu) / sd) - (p * ndtr(-won / sd_after)
                                             + (1.0 - p) * ndtr(-lost / sd_after))
        raise ValueError(f"unknown criterion {criterion!r} (known: {', '.join(CRITERIA)})")

    def best_pair(self, criterion: str = "misorder",
                  banned: np.ndarray | None = None) -> tuple[int, int]:
        """The pair ``(i, j)``, ``i < j``, of highest value (the first in row-major order among
        equal values); ``banned`` (n, n) bool marks pairs not to propose (all banned: the
        first pair).

        For ``"misorder"`` only the pairs that can win are evaluated. A pair's value is below
        its misorder probability ``Φ(-z)``, ``z = |μ| / √v``. The :data:`_FIRST` pairs of
        smallest ``z`` are evaluated first; their best value ``g`` rules out every pair with
        ``Φ(-z) ≤ g``, and the rest (``z < -Φ⁻¹(g)``) are evaluated too. The answer is the one
        the full matrix gives, at O(n²) arithmetic instead of O(n²) normal CDFs.
        """
        n = self.n
        upper = _upper(n)
        allowed = upper if banned is None else upper & ~banned
        if not allowed.any():
            return 0, 1
        if criterion != "misorder":
            i, j = np.nonzero(allowed)
            k = int(np.argmax(self._values(criterion, i, j)))
            return int(i[k]), int(j[k])
        d = np.diag(self.sigma)
        v = d[:, None] + d[None, :]
        v -= self.sigma
        v -= self.sigma
        np.maximum(v, 1e-12, out=v)
        z2 = self.theta[:, None] - self.theta[None, :]
        np.square(z2, out=z2)
        z2 /= v
        z2[~allowed] = np.inf
        flat = z2.ravel()
        first = min(_FIRST, int(allowed.sum()))
        head = np.argpartition(flat, first - 1)[:first]
        g = float(np.max(self._values(criterion, head // n, head % n)))
        from scipy.special import ndtri

        cut = float(ndtri(g)) ** 2 if 0.0 < g < 0.5 else np.inf
        i, j = np.nonzero(z2 < cut if g > 0.0 else np.isfinite(z2))
        k = int(np.argmax(self._values(criterion, i, j)))
        return int(i[k]), int(j[k])

    # -- confidence ------------------------------------------------------------------------
    def order_probabilities(self) -> np.ndarray:
        """``P[i, j]``: posterior probability that ``θ_i > θ_j`` (n, n; ½ on the diagonal)."""
        mu, v = self.difference()
        out = ndtr(mu / np.sqrt(v))
        np.fill_diagonal(out, 0.5)
        return out

    def expected_tau(self, q: np.ndarray | None = None) -> float:
        """The expected Kendall τ between the posterior-mean ranking and the truth: the mean
        over pairs of ``2 P(the pair is in the right order) - 1`` (NaN below two items).
        ``q``: :meth:`order_probabilities`, when already computed."""
        n = self.n
        if n < 2:
            return math.nan
        q = self.order_probabilities() if q is None else q
        right = np.maximum(q, 1.0 - q)
        return float((2.0 * right - 1.0)[np.triu_indices(n, 1)].mean())

    def rank_spread(self, q: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Expected rank (1 = highest) and its standard deviation per item, each (n,): the
        rank is 1 + the number of items above, each above with its posterior probability
        (taken as independent for the spread). ``q``: :meth:`order_probabilities`, when
        already computed."""
        q = (self.order_probabilities() if q is None else q).T  # q[i, j] = P(θ_j > θ_i)
        np.fill_diagonal(q, 0.0)
        return 1.0 + q.sum(axis=1), np.sqrt((q * (1.0 - q)).sum(axis=1))
