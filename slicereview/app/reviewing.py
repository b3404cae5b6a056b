"""The reviewing job, in one import: the queue (:mod:`.review_queue`) and the decisions
(:mod:`.review_decisions`); undoable versions of the decisions are in :mod:`.review_commands`.

>>> from slicereview.app.reviewing import QueueSpec
>>> QueueSpec(group="A").annotators_key
'group:A'
"""

from slicereview.app.review_decisions import (
    REASON_NEEDED,
    REASON_TAGS,
    Returned,
    accept_all,
    decide,
    pin,
    returned_annotations,
    start_revision,
)
from slicereview.app.review_queue import (
    QueueResult,
    QueueRow,
    QueueSpec,
    compute_features,
    evaluate,
    queue,
    relevance,
    selection,
)

__all__ = [
    "REASON_NEEDED",
    "REASON_TAGS",
    "QueueResult",
    "QueueRow",
    "QueueSpec",
    "Returned",
    "accept_all",
    "compute_features",
    "decide",
    "evaluate",
    "pin",
    "queue",
    "relevance",
    "returned_annotations",
    "selection",
    "start_revision",
]
