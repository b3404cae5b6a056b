"""Random audit slots of a review queue, and the live estimate of how well the queue works.

A queue ranks images by a priority method; reviewers work from its top. What they find there
says how precise the top is (P@k) but nothing of what the queue left behind, and a method
graded only by the reviews it directed is graded by its own choice. *Audit slots* fix that:
a share ``s`` of the queue's slots shows images drawn at random from the whole queue, reviewed
like the others.

The design (pure functions of the ranked images and a seed):

* **members** — every image gets a uniform number ``u`` in [0, 1) from a SHA-256 digest of the
  seed and its id (:func:`audit_number`); it is an *audit member* when ``u < s``: a Bernoulli
  (Poisson) sample of the whole queue with inclusion probability ``s`` that does not depend on
  any method, keeps its members when images join the queue, and grows by nesting when ``s``
  is raised;
* **slots** — the queue is cut in blocks of ``L = round(1 / s)`` slots (at least 2); one slot
  of each block, at an offset drawn from the seed and the block number (:func:`is_audit_slot`),
  is an audit slot, so exactly one slot in ``L`` is, where a reviewer cannot foresee it;
* **the queue** (:func:`interleave`) — audit slots show the members in ``u`` order (random), the
  other slots the method's order without the members; members left over at the end follow.

The estimate (:func:`estimate`), with *relevant* = "the reviewer found a problem" (a grade of
``min_grade`` or more) counted on reviewed images only:

* **P@k** of the method — the relevant share of its top ``k`` (members included: the top is
  the method's), with the Wilson score interval [Wilson1927];
* **base rate** — the relevant share of the reviewed members: what a random queue's P@k would
  be, with its Wilson interval; **lift** = P@k / base rate;
* **R@k** — the stratified estimator: the top ``k`` (stratum T, ``k`` images) and the rest
  (stratum R, ``N − k``), ``R@k = k·p_T / (k·p_T + (N − k)·p_R)`` with ``p_R`` from the members
  in R (a random sample of R). Its interval carries each stratum's Wilson bounds at
  ``1 − α/2`` through the formula (increasing in ``p_T``, decreasing in ``p_R``), so by
  Bonferroni it covers with at least ``1 − α``.

Degenerate cases: no reviewed image in a stratum → its share is NaN and its interval
(0, 1); R@k is NaN when its point estimate divides 0 by 0.

Example
-------
>>> slots = interleave(list(range(1, 101)), share=0.05, seed=3)
>>> sum(a for _, a in slots[:40]), len(slots), len({i for i, _ in slots})
(2, 100, 100)
>>> lo, hi = wilson_interval(8, 20)
>>> round(lo, 4), round(hi, 4)
(0.2188, 0.6134)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

#: The share of audit slots a queue may have: at most one slot in two.
MAX_SHARE = 0.5


def _digest(*parts: object) -> int:
    text = ":".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def check_share(share: float) -> None:
    """``ValueError`` unless ``0 < share <= MAX_SHARE`` (0 means no audit, kept apart)."""
    if not (isinstance(share, int | float) and 0 < share <= MAX_SHARE):
        raise ValueError(f"the audit share must lie in (0, {MAX_SHARE:g}], e.g. 0.05 for 5 %; "
                         f"got {share!r}")


def block_length(share: float) -> int:
    """Slots per block, one of them an audit slot: ``max(2, round(1 / share))``.

    >>> block_length(0.05), block_length(0.3), block_length(0.5)
    (20, 3, 2)
    """
    check_share(share)
    return max(2, round(1 / share))


def audit_number(image_id: int, seed: int) -> float:
    """The image's uniform number ``u`` in [0, 1) (SHA-256 of seed and id, 64 bits).

    >>> audit_number(7, 0) == audit_number(7, 0) != audit_number(7, 1)
    True
    """
    return _digest("audit-member", seed, image_id) / 2.0 ** 64


def is_audit_slot(position: int, share: float, seed: int) -> bool:
    """Whether queue slot ``position`` (0-based) is an audit slot: one per block of
    :func:`block_length`, at the block's seeded offset."""
    size = block_length(share)
    block, offset = divmod(position, size)
    return _digest("audit-slot", seed, block) % size == offset


def members(image_ids: Sequence[int], share: float, seed: int) -> list[int]:
    """The audit members of ``image_ids`` (``u < share``), in ``u`` order."""
    check_share(share)
    found = [(audit_number(i, seed), i) for i in image_ids]
    return [i for u, i in sorted(found) if u < share]


def interleave(ranked: Sequence[int], share: float, seed: int) -> list[tuple[int, bool]]:
    """The queue with audit slots: ``(image id, shown in an audit slot)`` for every image of
    ``ranked`` (the method's order, most urgent first), each once (see the module docstring)."""
    audit = members(ranked, share, seed)
    taken = set(audit)
    method = [i for i in ranked if i not in taken]
    out: list[tuple[int, bool]] = []
    a = m = 0
    while a < len(audit) or m < len(method):
        if a < len(audit) and (m == len(method) or is_audit_slot(len(out), share, seed)):
            out.append((audit[a], True))
            a += 1
        else:
            out.append((method[m], False))
            m += 1
    return out


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval [Wilson1927] of a binomial proportion; (0, 1) when ``n`` is 0.

    ``centre = (p + z²/2n) / (1 + z²/n)``, ``half = z / (1 + z²/n) · sqrt(p(1−p)/n + z²/4n²)``
    with ``p = successes / n`` and ``z`` the normal quantile of ``(1 + confidence) / 2``.

    >>> [round(v, 4) for v in wilson_interval(0, 10)]
    [0.0, 0.2775]
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Share:
    """A relevant share of reviewed images with its interval.

    Attributes
    ----------
    relevant, reviewed : int
        Counts; ``value`` is their ratio (NaN when nothing is reviewed).
    low, high : float
        The Wilson interval.
    """

    relevant: int
    reviewed: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.relevant / self.reviewed if self.reviewed else math.nan


def share_of(relevant: int, reviewed: int, confidence: float = 0.95) -> Share:
    """:class:`Share` with the Wilson interval at ``confidence``."""
    return Share(relevant, reviewed, *wilson_interval(relevant, reviewed, confidence))


@dataclass(frozen=True)
class AuditEstimate:
    """How well a queue works, from its top ``k`` and its audit members (module docstring).

    Attributes
    ----------
    k, population : int
        The cut-off and the number of images the queue ranks (N).
    members : int
        Audit members of the queue (reviewed or not).
    precision : Share
        P@k of the method (its top ``k``, reviewed ones).
    base_rate : Share
        The relevant share of the reviewed audit members (a random queue's P@k).
    rest : Share
        The relevant share of the reviewed members outside the top ``k`` (``p_R``).
    recall, recall_low, recall_high : float
        R@k by the stratified estimator and its Bonferroni-combined Wilson interval.
    confidence : float
        The intervals' level.
    """

    k: int
    population: int
    members: int
    precision: Share
    base_rate: Share
    rest: Share
    recall: float
    recall_low: float
    recall_high: float
    confidence: float = 0.95

    @property
    def lift(self) -> float:
        """P@k over the base rate (NaN when either is unknown or the base rate is 0)."""
        p, b = self.precision.value, self.base_rate.value
        return p / b if b and not math.isnan(p) and not math.isnan(b) else math.nan


def _recall(p_top: float, p_rest: float, k: int, n_rest: int) -> float:
    found, missed = k * p_top, n_rest * p_rest
    return found / (found + missed) if found + missed > 0 else math.nan


def estimate(ranked: Sequence[int], relevant: Mapping[int, bool], share: float, seed: int,
             k: int, confidence: float = 0.95) -> AuditEstimate:
    """The live estimate of a queue (the module docstring).

    Parameters
    ----------
    ranked : sequence of int
        The method's order (most urgent first), every image the queue ranks.
    relevant : mapping of int to bool
        The reviewed images → whether the reviewer found a problem (unreviewed: absent).
    share, seed : float, int
        The audit's share and seed (which images are members).
    k : int
        The cut-off (clipped to the queue's length).

    Examples
    --------
    >>> ranked = list(range(1, 201))
    >>> found = {i: i <= 30 for i in ranked}          # every image reviewed: 30 problems
    >>> e = estimate(ranked, found, share=0.25, seed=1, k=20)
    >>> e.precision.value, e.rest.reviewed == e.members - sum(m <= 20 for m in
    ...     members(ranked, 0.25, 1))
    (1.0, True)
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    k = min(k, len(ranked))
    top = list(ranked[:k])
    top_set = set(top)
    audit = members(ranked, share, seed)
    seen_top = [relevant[i] for i in top if i in relevant]
    seen_audit = [(i, relevant[i]) for i in audit if i in relevant]
    seen_rest = [r for i, r in seen_audit if i not in top_set]
    precision = share_of(sum(seen_top), len(seen_top), confidence)
    base = share_of(sum(r for _, r in seen_audit), len(seen_audit), confidence)
    rest = share_of(sum(seen_rest), len(seen_rest), confidence)
    n_rest = len(ranked) - k
    half = 1 - (1 - confidence) / 2  # Bonferroni: each stratum at 1 - alpha/2
    t_lo, t_hi = wilson_interval(precision.relevant, precision.reviewed, half)
    r_lo, r_hi = wilson_interval(rest.relevant, rest.reviewed, half)
    p_rest = rest.value if n_rest else 0.0
    if n_rest == 0:
        r_lo = r_hi = 0.0
    recall = (_recall(precision.value, p_rest, k, n_rest)
              if not math.isnan(precision.value) and not math.isnan(p_rest) else math.nan)
    low = _recall(t_lo, r_hi, k, n_rest)
    high = _recall(t_hi, r_lo, k, n_rest)
    return AuditEstimate(k, len(ranked), len(audit), precision, base, rest, recall,
                         0.0 if math.isnan(low) else low, 1.0 if math.isnan(high) else high,
                         confidence)
