"""The owner's report's per-image pass, cached by edit times: each image selection's row of
:func:`slicereview.app.report.agreement.image_row` (image and box α, the overlap table, the
STAPLE vote patterns, the label measures) is kept in the review-features cache
(``project.reviews.features``, the table the review queue caches its features in) and used
while the selection is unchanged, so a report after new work computes the changed images only.

* **what** — the row of the pass: image and box α, the overlap table, the vote patterns, the
  label measures and each polygon's matched Dice (:data:`REPORT_VERSION` 2);
* **where** — one cache entry per image and phase, under the annotators key ``report:all``
  (or ``report:ids:1,2`` for a subset of annotators), round 0, level ``relaxed`` (the entry
  holds both levels); :meth:`~slicereview.store.reviews.Reviews.latest_features` never
  returns these entries (they are not review features);
* **when it is used** — while its key matches: the queue's
  :func:`~slicereview.app.review.queue.source_key` of the selection (annotation ids, rounds,
  statuses and edit times ``updated_at``, stamped by every polygon, answer or status change;
  the image size) with :data:`REPORT_VERSION` and the kinds of the project's questions
  (the label measures score answers by kind).

Example
-------
>>> import numpy as np
>>> row = (0.5, float("nan"), [0.5], [], np.eye(2, dtype=np.int64), np.arange(4), 0.9, 0.8,
...        [[0.5, float("nan")], []])
>>> back = from_json(to_json(row))
>>> back[0], back[4].tolist(), back[5].dtype.kind, back[7], back[8][0][0]
(0.5, [[1, 0], [0, 1]], 'i', 0.8, 0.5)
>>> namespace(None), namespace([3, 1])
('report:all', 'report:ids:1,3')
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from slicereview.app.review.queue import source_key
from slicereview.model import Annotation, Phase
from slicereview.store import Project

#: Bump when the per-image pass changes, so every cached row is computed again.
REPORT_VERSION = 2
#: The level column of the entries (the table allows ``relaxed`` or ``strict``).
_LEVEL = "relaxed"
#: Rows stored in one transaction while the pass runs (a cancelled pass keeps what it did).
BATCH = 256

Entry = tuple[str, int, str, tuple]


def namespace(raters: Iterable[int] | None) -> str:
    """The annotators key of the report's entries for ``raters`` (``None``: everyone)."""
    if raters is None:
        return "report:all"
    return "report:ids:" + ",".join(str(r) for r in sorted(set(raters)))


def entry_key(annotations: Sequence[Annotation], shape: tuple[int, int],
              kinds: dict[str, str]) -> str:
    """What a row depends on: the selection's source key, the pass's version, question kinds."""
    text = f"report-v{REPORT_VERSION}|{source_key(annotations, shape)}|" + ",".join(
        f"{name}={kind}" for name, kind in sorted(kinds.items()))
    return hashlib.sha1(text.encode()).hexdigest()


def to_json(row: tuple) -> dict[str, Any]:
    """A row of :func:`~slicereview.app.report.agreement.image_row` as JSON values."""
    strict, relaxed, strict_boxes, relaxed_boxes, g, patterns, consensus, iou, matched = row
    return {"strict": strict, "relaxed": relaxed, "strict_boxes": list(strict_boxes),
            "relaxed_boxes": list(relaxed_boxes), "overlaps": np.asarray(g).tolist(),
            "patterns": np.asarray(patterns).tolist(), "consensus": consensus,
            "mask_iou": iou, "matched": [list(v) for v in matched]}


def from_json(d: dict[str, Any]) -> tuple:
    """The row back (arrays as ``int64``)."""
    return (float(d["strict"]), float(d["relaxed"]), [float(v) for v in d["strict_boxes"]],
            [float(v) for v in d["relaxed_boxes"]],
            np.asarray(d["overlaps"], dtype=np.int64).reshape(-1, max(1, len(d["overlaps"]))),
            np.asarray(d["patterns"], dtype=np.int64), float(d["consensus"]),
            float(d["mask_iou"]), [[float(v) for v in row] for row in d["matched"]])


def load(project: Project, key: str) -> dict[tuple[str, int], tuple[str, dict]]:
    """``(phase, image id)`` → ``(entry key, row as JSON)`` of the cached rows (one SELECT per
    phase)."""
    found = {}
    for phase in Phase:
        for image_id, entry in project.reviews.features(str(phase), 0, key, _LEVEL).items():
            found[(str(phase), image_id)] = entry
    return found


def store(project: Project, key: str, entries: list[Entry]) -> None:
    """Store ``(phase, image id, entry key, row)`` entries (one transaction per phase)."""
    by_phase: dict[str, list[tuple[int, str, dict]]] = {}
    for phase, image_id, k, row in entries:
        by_phase.setdefault(phase, []).append((image_id, k, to_json(row)))
    for phase, rows in by_phase.items():
        project.reviews.store_features(phase, 0, key, _LEVEL, rows)
