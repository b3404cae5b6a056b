"""The demo's QA workflow (docs/qa-process.md; [CrowdSegQA, §3.2–3.3]): a small study
run the way [CrowdSegQA] says makes annotations good, so the report and the Overview tab show every
table and plot with real numbers.

* **Images** — 20 crops of 256 × 256: the first review-set crops reduced by two
  (``images/workflow``), split into an onboarding batch (6), a pilot batch (6) and a formal
  batch (8).
* **Gold** — "Simulated expert" outlines the true spots of the onboarding images
  (:func:`~slicereview.demo.annotators.find_bright_regions`) and answers the
  *Breast density* question with each image's simulated true grade; the annotations are
  marked gold, so every onboarding submission is scored against them and the report's
  majority-vote table compares the annotators' density answers (right more often the less
  noisy the annotator, else a neighbouring grade) with the gold answers.
* **Two groups**, all named "Simulated …" and stored as simulated: group *A2 (feedback)* — three
  annotators who do the pilot and get their reviews back with comments, then work closer to the
  truth in the formal batch; group *A0 (no feedback)* — two annotators who skip the pilot and
  whose rejections carry reason tags only. The owner's pre-filter (mean Dice ≥ 0.6) is decided
  (A0 kept on with a reason, to compare the groups).
* **Reviews** — "Simulated reviewer" judges every round-1 annotation against the truth with the
  review set's rules (:func:`slicereview.demo.review._judge`).
* **Guidelines** — the demo's first version, then a second made by promoting a reviewer's
  comment into an example entry with its crop.
* **A work package** — A0's first annotator gets the formal batch as a package
  (``packages/…zip``), "works" in the package's project (as on another machine), sends it back
  zipped in the same layout (``…returned.zip``) and the owner merges it.

The formal batch has a low-agreement threshold (strict α 0.5, flag for review first). A fourth
batch, *Formal (pre-annotated)*, of 8 further crops reduced the same way
(``workflow_21.png`` …) and shown with the simulated review model's polygons on a seeded half,
is :mod:`slicereview.demo.preannotated_batch`'s (built after this one, from its own seeds).
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from slicereview.app.annotating import finish
from slicereview.app.qa.guidelines import promote_review
from slicereview.app.qa.packages import MergeReport, merge, package
from slicereview.app.qa.workflow import decide as qualify
from slicereview.app.qa.workflow import define_batch, mark_gold, prefilter
from slicereview.app.review.decisions import decide
from slicereview.demo.annotations import DEMO_QUESTIONS
from slicereview.demo.annotators import (
    Profile,
    find_bright_regions,
    simulate_annotators,
)
from slicereview.demo.review import _judge, _raster
from slicereview.model import Certainty, Polygon, Role
from slicereview.store import Project

WORKFLOW_SET = "QA workflow (mammogram crops)"
EXPERT = "Simulated expert"
OWNER = "Study owner"
SIZE = 256
BATCHES = (("Onboarding", "onboarding", 6), ("Pilot A2", "pilot", 6), ("Formal", "formal", 8))
FEEDBACK, NO_FEEDBACK = "A2 (feedback)", "A0 (no feedback)"
DENSITY = DEMO_QUESTIONS[0][4]  # the Breast density question's grades


def noise_profile(name: str, noise: float) -> Profile:
    """A workflow annotator's drawing profile at ``noise`` (0 careful .. 1 sloppy)."""
    return Profile(name, miss=0.05 + 0.3 * noise, extra=0.1 + 1.2 * noise,
                   uncertain=0.1 + 0.3 * noise, margin=0.1 + 0.3 * noise,
                   scale=1.0 + 0.25 * noise, scale_sd=0.05 + 0.1 * noise,
                   wobble=0.04 + 0.1 * noise, tremor=0.3 + 0.8 * noise)


#: Annotator → (group, noise before feedback, noise after it).
ANNOTATORS = {
    "Simulated annotator A2-1": (FEEDBACK, 0.35, 0.05),
    "Simulated annotator A2-2": (FEEDBACK, 0.45, 0.15),
    "Simulated annotator A2-3": (FEEDBACK, 0.40, 0.10),
    "Simulated annotator A0-1": (NO_FEEDBACK, 0.60, 0.60),
    "Simulated annotator A0-2": (NO_FEEDBACK, 0.80, 0.80),
}
PACKAGED = "Simulated annotator A0-1"


def write_images(sources: Sequence[Path], folder: Path, start: int = 1) -> list[Path]:
    """The crops reduced by two (mean of 2 × 2 pixels) as 16-bit PNGs in ``folder``, named
    ``workflow_NN.png`` from ``start``."""
    from PIL import Image as PILImage

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for k, src in enumerate(sources, start=start):
        pixels = np.asarray(PILImage.open(src), dtype=np.float64)
        h, w = (pixels.shape[0] // 2) * 2, (pixels.shape[1] // 2) * 2
        small = pixels[:h, :w].reshape(h // 2, 2, w // 2, 2).mean(axis=(1, 3))
        path = folder / f"workflow_{k:02d}.png"
        PILImage.fromarray(small.astype(np.uint16)).save(path, compress_level=1)
        out.append(path)
    return out


def return_package(sent: Path, back: Path, work: Callable[[Project], None]) -> Path:
    """What an annotator on another machine does: unzip ``sent`` (within the limits every
    reader of a package keeps, :mod:`slicereview.app.qa.package_zip`), ``work`` in its
    project, zip it back to ``back`` in the same layout."""
    from slicereview.app.qa.package_zip import PROJECT, PackageZip

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with PackageZip(sent, "unpacked") as package:
            members = package.members
            for name in members:
                package.extract(name, folder)
        with Project.open(folder / PROJECT) as remote:
            work(remote)
        with zipfile.ZipFile(back, "w") as zout:
            for name in members:
                zout.write(folder / name, name, compress_type=zipfile.ZIP_DEFLATED
                           if name == PROJECT else zipfile.ZIP_STORED)
    return back


class _Study:
    def __init__(self, project: Project, ids: list[int], seed: int) -> None:
        from skimage import io

        self.project, self.rng, self.seed = project, np.random.default_rng(seed), seed
        self.truth: dict[int, list[np.ndarray]] = {}
        for image in project.images.all(ids):
            pixels = np.asarray(io.imread(project.images.resolve(image.path)), dtype=np.float32)
            wanted = 1 + int(np.random.default_rng([seed, image.id]).integers(3))
            self.truth[image.id] = find_bright_regions(pixels, max_regions=wanted, sigma=2.0,
                                                       min_area=12.0)
        self.reviewer = project.raters.ensure("Simulated reviewer", Role.REVIEWER, simulated=True)

    def draw(self, name: str, image_id: int, after_feedback: bool) -> list[Polygon]:
        noise = float(ANNOTATORS[name][2 if after_feedback else 1])
        return simulate_annotators((SIZE, SIZE), self.truth[image_id],
                                   seed=self.seed + 97 * image_id
                                   + 7919 * list(ANNOTATORS).index(name),
                                   profiles=[noise_profile(name, noise)])[name]

    def density(self, image_id: int, rater: int | None = None, noise: float = 0.0) -> str:
        """The image's true density grade (``rater`` None: the gold answer), or a rater's
        answer: right with probability 1 − noise, else a neighbouring grade (own seed, so the
        rest of the study draws what it drew before the answers existed)."""
        truth = int(np.random.default_rng([self.seed, image_id]).integers(len(DENSITY)))
        if rater is None:
            return DENSITY[truth]
        rng = np.random.default_rng([self.seed, image_id, rater])
        if rng.random() >= noise:
            return DENSITY[truth]
        step = 1 if truth == 0 else -1 if truth == len(DENSITY) - 1 else int(rng.choice([-1, 1]))
        return DENSITY[truth + step]

    def submit(self, project: Project, rater: int, image_id: int, phase: str,
               polygons: list[Polygon], noise: float) -> int:
        ann = project.annotations.for_image(rater, image_id, phase)
        assert ann is not None
        project.polygons.replace(ann.id, polygons)
        density = self.density(image_id, rater, noise)
        project.annotations.set_image_classifications(ann.id, {"density": density})
        project.annotations.add_active_time(ann.id, int(self.rng.gamma(3, 12 + 40 * noise) * 1000))
        finish(project, ann.id, "submitted" if polygons else "nothing_to_annotate")
        return ann.id

    def review(self, annotation_id: int, comments: bool) -> int:
        ann = self.project.annotations.get(annotation_id)
        regions = self.truth[ann.image_id]
        truth = _raster([Polygon(r, Certainty.CERTAIN) for r in regions], (SIZE, SIZE)) > 0
        tags, _ = _judge(self.project.polygons.of(annotation_id), truth, regions, (SIZE, SIZE))
        text = self.last_text = ""
        if tags and comments:
            text = {"missed finding": "A faint spot was missed: widen the window.",
                    "extra region": "Only vessel-shaped bright segments count, not every "
                                    "bright dot."}.get(tags[0], "Follow the outer edge of the "
                                                                "calcification.")
            self.last_text = text
        return decide(self.project, self.reviewer, annotation_id,
                      "reject" if tags else "accept", tags, text,
                      active_ms=int(self.rng.integers(5_000, 40_000)))


def add_demo_workflow(project: Project, crops: Sequence[Path], folder: Path, import_paths,
                      seed: int = 41) -> MergeReport:
    """Build the workflow into ``project`` (images and packages below ``folder``); returns the
    report of merging the work package back."""
    files = write_images(list(crops)[:sum(n for _, _, n in BATCHES)], folder / "workflow")
    before = {im.id for im in project.images.all()}
    result = import_paths(project, files)
    if result.failed:
        raise RuntimeError("the workflow images could not be imported")
    ids = [im.id for im in project.images.all() if im.id not in before]
    project.image_sets.create(WORKFLOW_SET, ids)
    owner = project.raters.ensure(OWNER, Role.OWNER)
    expert = project.raters.ensure(EXPERT, Role.REVIEWER, simulated=True)
    raters = {n: project.raters.ensure(n, Role.ANNOTATOR, g, simulated=True)
              for n, (g, _, _) in ANNOTATORS.items()}
    split = np.cumsum([0] + [n for _, _, n in BATCHES])
    images = {phase: ids[split[k]:split[k + 1]] for k, (_, phase, _) in enumerate(BATCHES)}
    batch = {
        "onboarding": define_batch(project, "Onboarding", "onboarding", images["onboarding"],
                                   groups=[FEEDBACK, NO_FEEDBACK], min_dice=0.6),
        "pilot": define_batch(project, "Pilot A2", "pilot", images["pilot"], groups=[FEEDBACK]),
        "formal": define_batch(project, "Formal", "formal", images["formal"],
                               groups=[FEEDBACK, NO_FEEDBACK], alpha_threshold=0.5,
                               low_action="review")}
    study = _Study(project, ids, seed)
    with project.transaction():
        for i in images["onboarding"]:
            gold = project.annotations.for_image(expert, i, "onboarding")
            assert gold is not None
            polys = [Polygon(r, Certainty.CERTAIN) for r in study.truth[i]]
            project.polygons.replace(gold.id, polys)
            project.annotations.set_image_classifications(gold.id, {"density": study.density(i)})
            finish(project, gold.id, "submitted" if polys else "nothing_to_annotate")
            mark_gold(project, gold.id)
        for name, rater in raters.items():
            for i in images["onboarding"]:
                ann = study.submit(project, rater, i, "onboarding", study.draw(name, i, False),
                                   ANNOTATORS[name][1])
                study.review(ann, comments=False)
        passes = {r.rater_id: r.passes for r in prefilter(project, batch["onboarding"])}
        for row_name, rater in raters.items():
            reason = "" if passes[rater] else (
                "kept on to compare a group without feedback"
                if ANNOTATORS[row_name][0] == NO_FEEDBACK else
                "kept on: the pilot's feedback is expected to help")
            qualify(project, batch["onboarding"], rater, owner, go_on=True, reason=reason)
        promoted = None
        for name in (n for n, (g, _, _) in ANNOTATORS.items() if g == FEEDBACK):
            for i in images["pilot"]:
                ann = study.submit(project, raters[name], i, "pilot",
                                   study.draw(name, i, False), ANNOTATORS[name][1])
                review = study.review(ann, comments=True)
                if promoted is None and study.last_text:
                    promoted = review
        for name in ANNOTATORS:
            if name == PACKAGED:
                continue
            for i in images["formal"]:
                ann = study.submit(project, raters[name], i, "formal",
                                   study.draw(name, i, True), ANNOTATORS[name][2])
                study.review(ann, comments=ANNOTATORS[name][0] == FEEDBACK)
    if promoted is not None:
        promote_review(project, owner, promoted)
    report = _package_round_trip(project, study, images["formal"], folder / "packages")
    with project.transaction():
        for packaged in project.annotations.all(rater_id=raters[PACKAGED], phase="formal"):
            study.review(packaged.id, comments=False)
    return report


def _package_round_trip(project: Project, study: _Study, formal: list[int], folder: Path
                        ) -> MergeReport:
    folder.mkdir(parents=True, exist_ok=True)
    sent = folder / "Simulated annotator A0-1 - Formal.zip"
    back = folder / "Simulated annotator A0-1 - Formal, returned.zip"
    for f in (sent, back):
        f.unlink(missing_ok=True)
    package(project, PACKAGED, sent, "Formal")

    def work(remote: Project) -> None:
        rater = remote.raters.by_name(PACKAGED)
        assert rater is not None
        for i in formal:
            ann = remote.annotations.for_image(rater.id, i, "formal")
            assert ann is not None
            polys = study.draw(PACKAGED, i, True)
            remote.polygons.replace(ann.id, polys)
            remote.annotations.add_active_time(ann.id, int(study.rng.gamma(3, 36) * 1000))
            remote.annotations.set_status(ann.id, "submitted" if polys else
                                          "nothing_to_annotate")

    return_package(sent, back, work)
    return merge(project, back)
