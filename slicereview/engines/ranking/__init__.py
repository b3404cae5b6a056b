"""Rating by pairwise comparison: the interruptible sort and its statistics.

The public entry point is :func:`replay` (see :mod:`slicereview.engines.ranking.replay`)::

    >>> from slicereview.engines.ranking import replay, NeedAnswer
    >>> isinstance(replay(["a", "b"], {}), NeedAnswer)
    True
"""

from slicereview.engines.ranking.replay import (
    ALGORITHMS,
    DEFAULT,
    DEFAULT_K,
    NeedAnswer,
    Ranking,
    Replayer,
    algorithm_version,
    estimate_comparisons,
    replay,
)

__all__ = [
    "ALGORITHMS", "DEFAULT", "DEFAULT_K", "NeedAnswer", "Ranking", "Replayer",
    "algorithm_version", "estimate_comparisons", "replay",
]
