"""Review: image features, priority queues and their evaluation (P@k, R@k, NDCG@k), rank
agreement between raters.

The queue functions are imported from their module, ``slicereview.engines.review.priority``
(``priority``, ``scores``, ``explain``, ``METHODS``): re-exporting the function ``priority`` here
would shadow the submodule of the same name as a package attribute.

The names below are loaded on first use (PEP 562): importing one submodule (say ``metrics``)
does not load scipy through ``features``, so the GUI and CLI start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "FeatureTask": "parallel", "features_of_images": "parallel",
    "MethodEvaluation": "evaluation", "ReviewSignal": "evaluation",
    "evaluate_methods": "evaluation", "review_relevance": "evaluation",
    "ImageFeatures": "features", "image_features": "features",
    "dcg": "metrics", "ndcg_at_k": "metrics", "precision_at_k": "metrics",
    "recall_at_k": "metrics",
    "RankAgreement": "rankstats", "RankCorrelations": "rankstats",
    "rank_agreement": "rankstats", "rank_correlations": "rankstats",
    "top_n_intersection": "rankstats",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
