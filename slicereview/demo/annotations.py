"""Demo annotations: simulated annotators' polygons and classification answers on the demo
mammograms, plus the demo's classification questions.

Everything here is clearly simulated (raters named "Simulated annotator ...", stored with the
*simulated* flag; see :mod:`slicereview.demo.annotators`) and deterministic. It gives
the annotate, review and agreement views real material; it is not data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from slicereview.demo.annotators import (
    find_bright_regions,
    simulate_annotators,
    store_simulated,
    tissue_mask,
)
from slicereview.model import Certainty, Phase

#: The demo's classification questions: (name, title, kind, scope, options).
DEMO_QUESTIONS: list[tuple[str, str, str, str, list]] = [
    ("density", "Breast density (BI-RADS)", "radio", "image",
     ["A (fatty)", "B (scattered)", "C (heterogeneous)", "D (extremely dense)"]),
    ("findings", "Findings", "checklist", "image",
     ["Calcifications", "Mass", "Architectural distortion", "Asymmetry"]),
    ("kind", "Kind of region", "dropdown", "polygon",
     [{"value": "Calcification", "children": ["Vascular (BAC)", "Punctate", "Amorphous"]},
      {"value": "Mass", "children": ["Round", "Irregular"]}, "Artefact"]),
]

_MAMMOGRAMS = "Mammograms"

#: The demo's guideline: it asks for what the simulated annotators outline (the brightest
#: compact spots inside the breast, found by
#: :func:`~slicereview.demo.annotators.find_bright_regions`), so the demo's masks
#: and its instructions agree. A real project writes its own (e.g. breast arterial
#: calcifications only).
DEMO_GUIDELINE = (
    "# Demo guideline: bright spots\n\n"
    "This demo's annotators are simulated. Their task, and yours if you try it:\n\n"
    "* Outline every **small bright spot or blob inside the breast** — the brightest compact "
    "regions of the tissue (calcifications, dense nodules, bright vessel segments). One "
    "polygon per spot, drawn close around its edge.\n"
    "* Do not outline the pectoral muscle, the skin line, or labels and markers outside the "
    "breast.\n"
    "* Mark a polygon **uncertain** (dashed outline) when you are not sure the spot stands "
    "out from the tissue around it, **certain** (solid outline) otherwise: key U toggles the "
    "selected polygon between the two (with none selected, it sets what new polygons "
    "get).\n"
    "* Use window/level (right-drag) to make faint spots visible.\n"
    "* Answer the *Kind of region* question for each polygon, and mark an image "
    "'nothing to annotate' if it has no such spot.\n")


def add_demo_questions(project) -> None:
    """Add :data:`DEMO_QUESTIONS` that the project does not have yet (by name)."""
    have = {q.name for q in project.questions.all()}
    for name, title, kind, scope, options in DEMO_QUESTIONS:
        if name not in have:
            project.questions.add(name, title, kind, scope, options)


def add_demo_annotations(project, image_ids: Sequence[int] | None = None, seed: int = 7,
                         max_regions: int = 8) -> int:
    """Give each image (default: the demo's "Mammograms" image set) submitted annotations by
    the three simulated annotators, with image and polygon classification answers, and add the
    demo questions. Returns the number of annotations written.

    True regions are the brightest blob-like spots inside the breast
    (:func:`~slicereview.demo.annotators.find_bright_regions`); false positives are
    placed inside the tissue. Images that cannot be decoded are skipped.
    """
    from slicereview.engines.imaging.loader import load_display

    add_demo_questions(project)
    if image_ids is None:
        set_id = project.image_sets.id_by_name(_MAMMOGRAMS)
        image_ids = project.image_sets.members(set_id) if set_id is not None else []
    written = 0
    for image in project.images.all(image_ids):
        try:
            display = load_display(project.images.resolve(image.path), image)
        except Exception:  # a missing codec or file: the demo still builds without this image
            continue
        pixels = np.asarray(display.data, dtype=np.float32)
        if pixels.ndim != 2:
            continue
        if display.invert:  # MONOCHROME1: calcifications must be bright for the detector
            pixels = pixels.max() - pixels
        regions = find_bright_regions(pixels, max_regions=max_regions)
        factor = max(1, int(np.ceil(max(pixels.shape) / 300)))
        sims = simulate_annotators(pixels.shape, regions, seed=seed + image.id,
                                   where=tissue_mask(pixels, factor))
        rng = np.random.default_rng([seed, image.id])
        sims = {name: [replace(p, classifications=_polygon_answers(p.certainty, rng))
                       for p in polys] for name, polys in sims.items()}
        ids = store_simulated(project, image.id, sims, Phase.FORMAL, 1)
        density = int(rng.integers(4))
        for k, (name, annotation_id) in enumerate(ids.items()):
            # Neighbouring density grades: annotators disagree by one category now and then.
            shift = int(rng.choice([-1, 0, 0, 0, 1])) if k else 0
            answers = {"density": DEMO_QUESTIONS[0][4][int(np.clip(density + shift, 0, 3))],
                       "findings": ["Calcifications"] if sims[name] else []}
            project.annotations.set_image_classifications(annotation_id, answers)
            project.annotations.add_active_time(annotation_id, int(rng.integers(40_000, 240_000)))
            written += 1
    return written


def _polygon_answers(certainty: Certainty, rng: np.random.Generator) -> dict:
    if certainty is Certainty.UNCERTAIN and rng.random() < 0.4:
        return {"kind": ["Calcification", str(rng.choice(["Punctate", "Amorphous"]))]}
    if rng.random() < 0.05:
        return {"kind": ["Artefact"]}
    return {"kind": ["Calcification", "Vascular (BAC)"]}
