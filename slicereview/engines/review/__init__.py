"""Review: ranking evaluation (P@k, R@k, NDCG@k) and rank agreement between raters."""

from slicereview.engines.review.metrics import dcg, ndcg_at_k, precision_at_k, recall_at_k
from slicereview.engines.review.rankstats import (
    RankAgreement,
    RankCorrelations,
    rank_agreement,
    rank_correlations,
    top_n_intersection,
)

__all__ = [
    "RankAgreement",
    "RankCorrelations",
    "dcg",
    "ndcg_at_k",
    "precision_at_k",
    "rank_agreement",
    "rank_correlations",
    "recall_at_k",
    "top_n_intersection",
]
