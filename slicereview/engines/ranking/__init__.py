"""Rating by pairwise comparison: the interruptible sort, active ranking and their statistics.

The public entry points are :func:`replay` (the sort mode, see
:mod:`slicereview.engines.ranking.replay`) and :class:`ActiveRanking` (rating to a stated
accuracy, see :mod:`slicereview.engines.ranking.active`)::

    >>> from slicereview.engines.ranking import replay, NeedAnswer
    >>> isinstance(replay(["a", "b"], {}), NeedAnswer)
    True
"""

from slicereview.engines.ranking.active import ActiveRanking
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
    "ALGORITHMS", "ActiveRanking", "DEFAULT", "DEFAULT_K", "NeedAnswer", "Ranking", "Replayer",
    "algorithm_version", "estimate_comparisons", "replay",
]
