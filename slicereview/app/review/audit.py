"""Random audit slots of the review queue and the queue's live precision, the rules held once.

* **the setting** — the task owner sets the share of the queue's slots that are audit slots
  (e.g. 0.05: one slot in 20) and its seed (:func:`set_audit`; a new seed is drawn at random
  and stored when none is given); share 0 turns the audit off. Stored in the project's
  ``meta`` (``qa.audit``): on a server every login reads it, reviewers and owners write it.
* **the queue** — :func:`slicereview.app.review.queue.queue` shows the audit members in the
  audit slots (:func:`slicereview.engines.review.audit.interleave`), in every method and
  filter; the reviewer's queue does not mark them (they are reviewed like the others).
* **relevant** — an image *needed review* when the reviewer found a problem: a rejection, a
  comment or pin, or expert review (grade ≥ 2 of :func:`~.queue.relevance`); it counts once
  every annotation of it the queue shows is decided (status ``reviewed``). The α-only grade
  (1) is left out: an estimate of how well an α-based queue works must not grade it by α.
* **the estimate** (:func:`audit_estimate`) — P@k of the queue's method (its top ``k``, the
  review-first images first), the base rate from the reviewed audit members (a random queue's
  P@k) and R@k by the stratified estimator, each with its interval
  (:func:`slicereview.engines.review.audit.estimate`: Wilson score intervals, Bonferroni for
  R@k).

Example
-------
>>> import tempfile, pathlib
>>> from slicereview.store import Project
>>> with Project.create(pathlib.Path(tempfile.mkdtemp()) / "p.srproj") as project:
...     owner = project.raters.add("owner", "owner")
...     _ = set_audit(project, owner, 0.05, seed=4)
...     audit_settings(project)
AuditSettings(share=0.05, seed=4)
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

from slicereview.app.review.queue import (
    QueueResult,
    QueueSpec,
    compute_features,
    method_order,
    relevance,
    review_status,
)
from slicereview.engines.review.audit import (
    AuditEstimate,
    block_length,
    check_share,
    estimate,
    members,
)
from slicereview.model import Role
from slicereview.store import Project

_KEY = "qa.audit"
#: The grade from which an image counts as having needed review (a reviewer's finding).
MIN_GRADE = 2


@dataclass(frozen=True)
class AuditSettings:
    """The audit of the review queue: ``share`` of its slots, drawn with ``seed``."""

    share: float
    seed: int

    @property
    def block(self) -> int:
        """Slots per block, one of them an audit slot (``round(1 / share)``, at least 2)."""
        return block_length(self.share)


def audit_settings(project: Project) -> AuditSettings | None:
    """The project's audit, ``None`` when off."""
    text = project.meta(_KEY)
    if not text:
        return None
    data = json.loads(text)
    share = float(data.get("share", 0.0))
    return AuditSettings(share, int(data.get("seed", 0))) if share > 0 else None


def set_audit(project: Project, owner_id: int, share: float, seed: int | None = None
              ) -> AuditSettings | None:
    """Set the audit share (0: off) and seed (``None``: keep the stored one, or draw one at
    random and store it); only the task owner sets it (``PermissionError``)."""
    rater = project.raters.get(owner_id)
    if rater.role is not Role.OWNER:
        raise PermissionError(f"{rater.name} is not an owner: only the task owner sets the "
                              "review queue's audit")
    text = project.meta(_KEY)
    stored = json.loads(text).get("seed") if text else None
    if seed is None:
        seed = int(stored) if stored is not None else secrets.randbelow(2 ** 31)
    if share == 0:  # (the seed is kept: turned on again, the audit draws the same images)
        project.set_meta(_KEY, json.dumps({"share": 0.0, "seed": int(seed)}))
        return None
    check_share(share)
    project.set_meta(_KEY, json.dumps({"share": float(share), "seed": int(seed)}))
    return AuditSettings(float(share), int(seed))


def reviewed_findings(project: Project, result: QueueResult) -> dict[int, bool]:
    """The queue's reviewed images → whether the reviewer found a problem (see the module
    docstring)."""
    decided = project.reviews.current_decisions()
    grades = relevance(project, result)
    return {i: grades.get(i, 0) >= MIN_GRADE for i, anns in result.annotations.items()
            if review_status(sum(a in decided for a in anns), len(anns)) == "reviewed"}


def audit_estimate(project: Project, spec: QueueSpec, k: int = 20,
                   result: QueueResult | None = None, confidence: float = 0.95
                   ) -> AuditEstimate:
    """The queue's live P@k, base rate and R@k from its audit (``ValueError`` when the audit
    is off or no image can be ranked)."""
    audit = audit_settings(project)
    if audit is None:
        raise ValueError("the review queue has no audit slots: the owner sets a share "
                         "(slicereview audit set PROJECT --share 0.05 --owner NAME)")
    if result is None:
        result = compute_features(project, spec)
    if not result.features:
        raise ValueError("no image has two finished annotations: the queue is empty")
    order = method_order(project, spec, result)
    return estimate(order, reviewed_findings(project, result), audit.share, audit.seed, k,
                    confidence)


def audit_members(project: Project, spec: QueueSpec, result: QueueResult | None = None
                  ) -> list[int]:
    """The queue's audit members (image ids, in the order the audit slots show them)."""
    audit = audit_settings(project)
    if audit is None:
        return []
    if result is None:
        result = compute_features(project, spec)
    return members(list(result.features), audit.share, audit.seed)
