"""Rating by pairwise comparison: the interruptible sort and its statistics.

The public entry point is :func:`replay` (see :mod:`slicereview.core.ranking.replay`)::

    >>> from slicereview.core.ranking import replay, NeedAnswer
    >>> isinstance(replay(["a", "b"], {}), NeedAnswer)
    True
"""

from slicereview.core.ranking.replay import (
    ALGORITHMS,
    DEFAULT,
    DEFAULT_K,
    NeedAnswer,
    Ranking,
    Replayer,
    algorithm_version,
    estimate_questions,
    replay,
)

__all__ = [
    "ALGORITHMS", "DEFAULT", "DEFAULT_K", "NeedAnswer", "Ranking", "Replayer",
    "algorithm_version", "estimate_questions", "replay",
]
