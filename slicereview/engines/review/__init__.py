"""Review: image features, priority queues and their evaluation (P@k, R@k, NDCG@k), rank
agreement between raters.

The queue functions are imported from their module, ``slicereview.engines.review.priority``
(``priority``, ``scores``, ``explain``, ``METHODS``): re-exporting the function ``priority`` here
would shadow the submodule of the same name as a package attribute."""

from slicereview.engines.review.batch import FeatureJob, features_for_batch
from slicereview.engines.review.evaluation import (
    MethodEvaluation,
    ReviewSignal,
    evaluate_methods,
    review_relevance,
)
from slicereview.engines.review.features import ImageFeatures, image_features
from slicereview.engines.review.metrics import dcg, ndcg_at_k, precision_at_k, recall_at_k
from slicereview.engines.review.rankstats import (
    RankAgreement,
    RankCorrelations,
    rank_agreement,
    rank_correlations,
    top_n_intersection,
)

__all__ = [
    "FeatureJob",
    "ImageFeatures",
    "MethodEvaluation",
    "RankAgreement",
    "RankCorrelations",
    "ReviewSignal",
    "dcg",
    "evaluate_methods",
    "features_for_batch",
    "image_features",
    "ndcg_at_k",
    "precision_at_k",
    "rank_agreement",
    "rank_correlations",
    "recall_at_k",
    "review_relevance",
    "top_n_intersection",
]
