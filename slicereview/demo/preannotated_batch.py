"""The demo's pre-annotated batch: material for the report's *What pre-annotation did* (and
more of it for *The model in QA*, the queue's ``model-disagreement`` method and the Review
tab's model layer). Docs: docs/models.md, "Pre-annotation".

* **Images** — 8 further review-set crops (crops 21–28), reduced by two to 256 × 256 as the
  workflow's (``images/workflow/workflow_21.png`` …), in a fourth batch of the QA workflow,
  :data:`BATCH` (phase *formal*, both groups assigned), and the image set :data:`IMAGE_SET`.
  Their true spots are found as the workflow's are (1–3 per crop).
* **The model** — the demo's simulated review model
  (:mod:`slicereview.demo.review_model`, ``simulated-review-model@1``, marked simulated: it is
  not a trained network) "predicts" these crops too, from their true spots with its documented
  bias (outlines 10 % too large, one spot in six missed, false spots now and then), stored
  with :func:`slicereview.app.models.predictions.store_prediction` like every prediction.
* **The design** — the owner shows the model on a seeded balanced random half
  (:func:`slicereview.app.qa.preannotation.set_preannotation`, ``"half"``, seed
  :data:`DESIGN_SEED`): each annotator sees it on half their images, each image is shown to
  two or three of its five annotators.
* **The work** — the workflow's five simulated annotators (their noise after feedback,
  :data:`slicereview.demo.workflow.ANNOTATORS`) annotate every image of the batch through
  the app layer (:func:`slicereview.demo.preannotation.simulate_preannotated_work`): where
  shown, each keeps the model's polygons as they are with a known probability,
  :data:`FOLLOW` — the group without feedback follows the model more than the group with it
  — taking about :data:`FOLLOW_S` s (lognormal), else draws their own, about :data:`OWN_S` s;
  not shown, they draw their own. So the report should find following faster, the shown arm
  closer to the model, and the share of the gap closed near the mean of :data:`FOLLOW` over
  the shown rows.

The batch's work is not reviewed (it waits in the review queue) and uses draws of its own
seeds, so the other batches hold what they held before it existed.

Example
-------
>>> round(sum(FOLLOW.values()) / len(FOLLOW), 2), FOLLOW_S < OWN_S
(0.54, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from slicereview.demo.annotators import find_bright_regions, simulate_annotators, tissue_mask
from slicereview.demo.preannotation import simulate_preannotated_work
from slicereview.demo.workflow import (
    ANNOTATORS,
    FEEDBACK,
    NO_FEEDBACK,
    OWNER,
    noise_profile,
    write_images,
)
from slicereview.model import Role
from slicereview.store import Project

BATCH = "Formal (pre-annotated)"
IMAGE_SET = "QA workflow, pre-annotated batch (mammogram crops)"
#: The review-set crops the batch reduces (1-based, inclusive): crops 21–28.
CROPS = (21, 28)
#: Seed of the balanced random half (the design) and of the bootstrap's intervals.
DESIGN_SEED = 30
#: Annotator → the probability of keeping the model's polygons where shown (the tendency).
FOLLOW = {
    "Simulated annotator A2-1": 0.3,
    "Simulated annotator A2-2": 0.5,
    "Simulated annotator A2-3": 0.4,
    "Simulated annotator A0-1": 0.8,
    "Simulated annotator A0-2": 0.7,
}
#: Seed of the annotators' draws (who keeps the model's polygons, their own drawings, times):
#: seeds 43–51 recover a share of the gap closed of 0.25–0.62 (expected about 0.47); 48, the
#: demo's, one whose intervals are clear of zero.
WORK_SEED = 48
#: Typical active seconds per image drawing one's own outline, and keeping the model's.
OWN_S, FOLLOW_S = 50.0, 12.0


def add_preannotated_batch(project: Project, crops: Sequence[Path], folder: Path,
                           import_paths, seed: int = 43, work_seed: int = WORK_SEED) -> int:
    """Build the batch into ``project`` (its images below ``folder / "workflow"``), after
    :func:`slicereview.demo.workflow.add_demo_workflow` (its raters) and the review model;
    returns the batch's id."""
    from skimage import io

    from slicereview.app.models.predictions import store_prediction
    from slicereview.app.models.raters import find_model
    from slicereview.app.qa.preannotation import set_preannotation
    from slicereview.app.qa.workflow import define_batch
    from slicereview.demo.review_model import MODEL_NAME, MODEL_PROFILE, MODEL_VERSION
    from slicereview.engines.masks import rasterize

    first, last = CROPS
    files = write_images(list(crops)[first - 1:last], folder / "workflow", start=first)
    before = {im.id for im in project.images.all()}
    if import_paths(project, files).failed:
        raise RuntimeError("the pre-annotated batch's images could not be imported")
    ids = [im.id for im in project.images.all() if im.id not in before]
    project.image_sets.create(IMAGE_SET, ids)
    model = find_model(project, f"{MODEL_NAME}@{MODEL_VERSION}")
    truth: dict[int, list[np.ndarray]] = {}
    with project.transaction():
        for image in project.images.all(ids):
            pixels = np.asarray(io.imread(project.images.resolve(image.path)),
                                dtype=np.float32)
            wanted = 1 + int(np.random.default_rng([seed, image.id]).integers(3))
            truth[image.id] = find_bright_regions(pixels, max_regions=wanted, sigma=2.0,
                                                  min_area=12.0)
            drawn = simulate_annotators(pixels.shape, truth[image.id], seed=seed * 7 + image.id,
                                        profiles=[MODEL_PROFILE],
                                        where=tissue_mask(pixels, 2))["model"]
            store_prediction(project, model, image.id, rasterize(drawn, pixels.shape))
    batch = define_batch(project, BATCH, "formal", ids, groups=[FEEDBACK, NO_FEEDBACK])
    owner = project.raters.ensure(OWNER, Role.OWNER)
    set_preannotation(project, batch, model.id, "half", seed=DESIGN_SEED,
                      set_by=project.raters.get(owner).name)
    raters = {name: project.raters.ensure(name, Role.ANNOTATOR, group, simulated=True)
              for name, (group, _, _) in ANNOTATORS.items()}
    with project.transaction():
        simulate_preannotated_work(
            project, batch, truth, follow={raters[n]: FOLLOW[n] for n in ANNOTATORS},
            seed=work_seed, own_s=OWN_S, follow_s=FOLLOW_S,
            profiles={raters[n]: noise_profile(n, ANNOTATORS[n][2]) for n in ANNOTATORS})
    return batch
