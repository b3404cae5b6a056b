"""The project model: a pixel classifier that learns from the project's own accepted masks.

Multiscale intensity, edge and texture features (scikit-image's ``multiscale_basic_features``,
as in ilastik [Berg2019]) and a random forest [Breiman2001] (scikit-learn), trained in seconds
on the CPU from a few annotated images, with no file to obtain and no download
(docs/models.md, "The project model"). Importing this package imports neither scikit-learn
nor scikit-image; the functions that need them do.

* :mod:`.settings` — :class:`Settings` (features, forest, sampling, tiles, tissue, thresholds);
* :mod:`.tissue` — :func:`tissue_mask`, the breast-tissue mask of a mammogram;
* :mod:`.features` — the per-image normalisation and the features of a box of the image;
* :mod:`.sampling` — balanced, capped samples from a few patches per image;
* :mod:`.forest` — the forest as checked arrays and its prediction;
* :mod:`.classifier` — :class:`Example`, :func:`train`, :func:`predict`,
  :class:`ProjectModel`;
* :mod:`.persist` — the model as bytes that hold data only;
* :mod:`.scores` — :func:`cross_validate`: Dice, sensitivity and specificity of held-out images
  with 95 % t intervals.

>>> Settings().feature_count()
20
"""

from slicereview.engines.learning.classifier import (
    Example,
    ProjectModel,
    fit,
    predict,
    sample_examples,
    train,
)
from slicereview.engines.learning.sampling import Samples
from slicereview.engines.learning.scores import (
    HeldOutScore,
    ImageScore,
    Summary,
    cross_validate,
    score_image,
)
from slicereview.engines.learning.settings import Settings
from slicereview.engines.learning.tissue import tissue_mask

__all__ = [
    "Example",
    "HeldOutScore",
    "ImageScore",
    "ProjectModel",
    "Samples",
    "Settings",
    "Summary",
    "cross_validate",
    "fit",
    "predict",
    "sample_examples",
    "score_image",
    "tissue_mask",
    "train",
]
