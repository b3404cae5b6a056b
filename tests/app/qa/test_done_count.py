""""Done: n of N": N is the images an annotator is given in the phase
(:func:`slicereview.app.annotating.batch_images`), on a file and on a server. Creating a rating
session on an image set changes nobody's N (issue 31: it went from 8 to 98)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image as PILImage

from slicereview.app.annotating import add_annotator, batch_images, start
from slicereview.app.images.importing import import_paths
from slicereview.app.qa.claiming import next_image
from slicereview.app.qa.workflow import define_batch
from slicereview.app.rating.sessions import create_session
from slicereview.store import Project


def _images(project: Project, folder: Path, count: int) -> list[int]:
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(count):
        PILImage.fromarray(np.full((8, 8), k, np.uint8)).save(folder / f"{k:03d}.png")
    import_paths(project, sorted(folder.glob("*.png")))
    return [im.id for im in project.images.all()]


def test_a_rating_session_does_not_change_an_annotators_n(location, tmp_path):
    with Project.create(location()) as project:
        ids = _images(project, tmp_path / "imgs", 10)
        ann, eve, rita = (add_annotator(project, n) for n in ("ann", "eve", "rita"))
        mammo = project.image_sets.create("mammograms", ids[:8])
        start(project, ann, ids[9])  # ann's own work outside any set
        before = batch_images(project, ann, "formal")
        assert before == ids  # no batch hands out work: every image is ann's to annotate
        create_session(project, "sort", rita, mammo, "pass 1")
        assert batch_images(project, ann, "formal") == before
        # a batch of the mammograms for ann: N is the batch plus ann's own work
        define_batch(project, "formal A", "formal", ids[:8], raters=[ann])
        given = batch_images(project, ann, "formal")
        assert given == [*ids[:8], ids[9]]
        create_session(project, "exhaustive", rita, mammo, "pass 2")
        create_session(project, "sort", rita, project.image_sets.create("rest", ids[8:]), "p3")
        assert batch_images(project, ann, "formal") == given
        assert batch_images(project, eve, "formal") == []  # no batch of the phase gives eve any
        start(project, eve, ids[3])
        assert batch_images(project, eve, "formal") == [ids[3]]  # only her own work
        assert batch_images(project, ann, "pilot") == ids   # the batch is formal only


def test_in_a_batch_handed_out_by_claims_n_is_the_claimed_images(location, tmp_path):
    with Project.create(location()) as project:
        ids = _images(project, tmp_path / "imgs", 6)
        ann, bob = add_annotator(project, "ann"), add_annotator(project, "bob")
        batch = define_batch(project, "b", "formal", ids, raters=[ann, bob],
                             annotators_per_image=1)
        assert batch_images(project, ann, "formal") == []  # nothing claimed yet
        first, second = next_image(project, ann, batch), next_image(project, bob, batch)
        assert batch_images(project, ann, "formal") == [first]
        assert batch_images(project, bob, "formal") == [second]
        create_session(project, "sort", ann, project.image_sets.create("s", ids), "s")
        assert batch_images(project, ann, "formal") == [first]
