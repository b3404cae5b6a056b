"""Names of :mod:`slicereview.engines.agreement` (loaded lazily, see ``__init__.py``)."""

from .alpha import BANDS, band, krippendorff_alpha
from .consensus import (
    Classification,
    Label,
    Shape,
    benchmark_score,
    class_consensus,
    classification_consensus,
    consensus_scores,
    label_consensus,
    pair_shapes,
    shape_consensus,
    shape_iou,
)
from .consensus_masks import (
    StapleResult,
    consensus_mask,
    majority_vote,
    staple,
)
from .g_study import (
    Generalizability,
    generalizability,
    icc21_from_mean_squares,
    raters_needed,
)
from .icc import ICCForm, ICCResult, intraclass_correlation
from .labelstudio import (
    PrecisionRecall,
    agreement_matrix,
    choices_agreement,
    iou_threshold_agreement,
    match_regions,
    pairwise_scores,
    precision_recall_f1,
    span_iou,
    task_agreement,
)
from .overlap import dice, iou
from .pixel_alpha import mask_alpha
from .segmentation import (
    BoxAlpha,
    LevelAgreement,
    SegmentationAgreement,
    box_alphas,
    level_agreement,
    segmentation_agreement,
)

__all__ = [
    "BANDS",
    "BoxAlpha",
    "Classification",
    "Generalizability",
    "ICCForm",
    "ICCResult",
    "Label",
    "LevelAgreement",
    "PrecisionRecall",
    "SegmentationAgreement",
    "Shape",
    "StapleResult",
    "agreement_matrix",
    "band",
    "benchmark_score",
    "box_alphas",
    "choices_agreement",
    "class_consensus",
    "classification_consensus",
    "consensus_mask",
    "consensus_scores",
    "dice",
    "generalizability",
    "icc21_from_mean_squares",
    "intraclass_correlation",
    "iou",
    "iou_threshold_agreement",
    "krippendorff_alpha",
    "label_consensus",
    "level_agreement",
    "majority_vote",
    "mask_alpha",
    "match_regions",
    "pair_shapes",
    "pairwise_scores",
    "precision_recall_f1",
    "raters_needed",
    "segmentation_agreement",
    "shape_consensus",
    "shape_iou",
    "span_iou",
    "staple",
    "task_agreement",
]
