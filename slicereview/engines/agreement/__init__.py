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

The submodules load on first use (``lazy_loader.attach_stub``; the names and their types are
in ``__init__.pyi``): ``segmentation`` pulls in scipy.ndimage and ``icc`` scipy.stats, which
the main window must not pay for at start-up.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
