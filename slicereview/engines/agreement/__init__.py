"""Agreement statistics between annotators and raters (Qt-free).

* Krippendorff's α for reliability data (:func:`krippendorff_alpha`) and for segmentation masks
  at image and box level, strict and relaxed (:func:`mask_alpha`, :func:`box_alphas`,
  :func:`segmentation_agreement`), with the agreement :func:`band` names;
* :func:`dice` and :func:`iou` of two masks;
* intraclass correlations (:func:`intraclass_correlation`), the generalizability coefficient
  for random annotators (:func:`generalizability`) and :func:`raters_needed`;
* consensus masks: pixel-wise :func:`majority_vote` and :func:`staple` (ITK's EM over vote
  patterns, :mod:`~slicereview.engines.agreement.staple_em`);
* Labelbox-style consensus (:func:`label_consensus`, :func:`consensus_scores`,
  :func:`benchmark_score`);
* Label Studio-style task agreement (:func:`task_agreement`, :func:`agreement_matrix`,
  :func:`precision_recall_f1`, ...).
"""

from slicereview.engines.agreement.alpha import BANDS, band, krippendorff_alpha
from slicereview.engines.agreement.consensus import (
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
from slicereview.engines.agreement.consensus_masks import (
    StapleResult,
    consensus_mask,
    majority_vote,
    staple,
)
from slicereview.engines.agreement.g_study import (
    Generalizability,
    generalizability,
    icc21_from_mean_squares,
    raters_needed,
)
from slicereview.engines.agreement.icc import ICCForm, ICCResult, intraclass_correlation
from slicereview.engines.agreement.labelstudio import (
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
from slicereview.engines.agreement.overlap import dice, iou
from slicereview.engines.agreement.pixel_alpha import mask_alpha
from slicereview.engines.agreement.segmentation import (
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
