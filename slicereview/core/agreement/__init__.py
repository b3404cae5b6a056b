"""Agreement statistics between annotators and raters (Qt-free).

Krippendorff's α for reliability data and for segmentation masks (image and box level, strict
and relaxed), Dice and IoU, intraclass correlations and the generalizability coefficient,
Labelbox-style consensus and Label Studio-style task agreement.
"""

from slicereview.core.agreement.alpha import BANDS, band, krippendorff_alpha
from slicereview.core.agreement.overlap import dice, iou
from slicereview.core.agreement.segmentation import (
    BoxAlpha,
    LevelAgreement,
    SegmentationAgreement,
    box_alphas,
    mask_alpha,
    segmentation_agreement,
)

__all__ = [
    "BANDS",
    "BoxAlpha",
    "LevelAgreement",
    "SegmentationAgreement",
    "band",
    "box_alphas",
    "dice",
    "iou",
    "krippendorff_alpha",
    "mask_alpha",
    "segmentation_agreement",
]
