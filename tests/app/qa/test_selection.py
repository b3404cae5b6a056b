"""A batch's selection order on a real project, on a file and on a server: only the owner
sets it, claims follow it (uncertainty of a rater's stored work, disagreement among the
finished annotations, a seeded random permutation), and packages list their images in it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.models.predictions import store_prediction
from slicereview.app.models.raters import model_rater
from slicereview.app.qa.claiming import next_image
from slicereview.app.qa.packages import package
from slicereview.app.qa.selection import order_of, ordered_images, scores, set_order
from slicereview.app.qa.workflow import define_batch
from slicereview.model import Certainty, Polygon
from slicereview.store import Project


def _square(x0: float, size: float, certainty: str = "certain") -> Polygon:
    return Polygon(np.array([[x0, 1], [x0 + size, 1], [x0 + size, 1 + size], [x0, 1 + size]],
                            float), Certainty(certainty))


def _project(where, folder: Path, images: int = 4):
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(images):
        PILImage.fromarray(np.full((32, 32), k, np.uint8)).save(folder / f"{k:03d}.png")
    with Project.create(where) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        owner = project.raters.add("owner", "owner")
        model = model_rater(project, "net", "1").id
        people = [project.raters.add(n) for n in ("a", "b", "c")]
        ids = [im.id for im in project.images.all()]
        batch = define_batch(project, "b", "formal", ids, raters=people,
                             annotators_per_image=3)
    return owner, model, people, batch, ids


def in_uncertainty_order(project: Project, owner: int, model: int, batch: int,
                         ids: list[int]) -> None:
    """The model predicts ``ids[:3]`` with growing uncertain bands and ``batch`` goes in its
    uncertainty order (so ``ids[2], ids[1], ids[0], ids[3]``)."""
    for image_id, bands in ((ids[0], (1, 1)), (ids[1], (1, 2)), (ids[2], (2, 2))):
        labels = np.zeros((32, 32), np.uint8)
        labels[2:12, 2:12], labels[2:12, 16:26] = bands
        store_prediction(project, project.raters.get(model), image_id, labels)
    set_order(project, owner, batch, "uncertainty", rater_id=model)


def test_only_the_owner_sets_an_order_and_uncertainty_needs_a_rater(location, tmp_path):
    where = location()
    owner, model, (a, _, _), batch, _ = _project(where, tmp_path / "imgs")
    with Project.open(where) as project:
        assert order_of(project, batch).order == "batch"
        with pytest.raises(PermissionError, match="only the task owner"):
            set_order(project, a, batch, "random")
        with pytest.raises(ValueError, match="name the rater"):
            set_order(project, owner, batch, "uncertainty")
        with pytest.raises(ValueError, match="must be one of"):
            set_order(project, owner, batch, "smart")
        set_order(project, owner, batch, "random", seed=4)
        first = ordered_images(project, batch)
        assert sorted(first) == sorted(ordered_images(project, batch, order_of(project, batch)))
        set_order(project, owner, batch, "random", seed=5)
        assert ordered_images(project, batch) != first or len(first) < 3


def test_claims_follow_the_models_uncertainty(location, tmp_path):
    where = location()
    owner, model, (a, b, _), batch, ids = _project(where, tmp_path / "imgs")
    with Project.open(where) as project:
        # image 3 all uncertain, image 2 half, image 1 certain, image 4 not predicted
        rater = project.raters.get(model)
        for image_id, bands in ((ids[0], (1, 1)), (ids[1], (1, 2)), (ids[2], (2, 2))):
            labels = np.zeros((32, 32), np.uint8)
            labels[2:12, 2:12], labels[2:12, 16:26] = bands
            store_prediction(project, rater, image_id, labels)
        set_order(project, owner, batch, "uncertainty", rater_id=model)
        assert scores(project, batch) == pytest.approx({ids[0]: 0.0, ids[1]: 0.5,
                                                        ids[2]: 1.0})
        assert ordered_images(project, batch) == [ids[2], ids[1], ids[0], ids[3]]
        assert next_image(project, a, batch) == ids[2]
        project.annotations.set_status(project.annotations.for_image(a, ids[2]).id,
                                       "nothing_to_annotate")
        assert next_image(project, a, batch) == ids[1]
        assert next_image(project, b, batch) == ids[2]


def test_claims_follow_disagreement_after_every_image_has_two(location, tmp_path):
    where = location()
    owner, model, (a, b, c), batch, ids = _project(where, tmp_path / "imgs", images=3)
    with Project.open(where) as project:
        set_order(project, owner, batch, "disagreement")
        # a and b finish every image: they agree on 1, half on 2, not at all on 3
        for image_id, shift in zip(ids, (0, 5, 12), strict=True):
            for rater, x0 in ((a, 1), (b, 1 + shift)):
                assert next_image(project, rater, batch) == image_id
                ann = project.annotations.for_image(rater, image_id)
                project.polygons.replace(ann.id, [_square(x0, 10)])
                project.annotations.set_status(ann.id, "submitted")
        # a model's prediction far from both is not one of the annotators
        labels = np.zeros((32, 32), np.uint8)
        labels[20:30, 20:30] = 1
        store_prediction(project, project.raters.get(model), ids[0], labels)
        got = scores(project, batch)
        assert got[ids[0]] == pytest.approx(0.0)
        assert got[ids[2]] == pytest.approx(1.0)
        assert 0 < got[ids[1]] < 1
        assert next_image(project, c, batch) == ids[2]


def test_a_package_lists_its_images_in_the_selection_order(location, tmp_path):
    where = location()
    owner, model, (a, _, _), batch, ids = _project(where, tmp_path / "imgs")
    with Project.open(where) as project:
        set_order(project, owner, batch, "random", seed=2)
        want = ordered_images(project, batch)
        for _ in ids:
            got = next_image(project, a, batch)
            project.annotations.set_status(project.annotations.for_image(a, got).id,
                                           "nothing_to_annotate")
        out = package(project, "a", tmp_path / "a.srpkg", batch="b")
    with zipfile.ZipFile(out) as zf:
        zf.extract("project.srproj", tmp_path / "x")
    with Project.open(tmp_path / "x" / "project.srproj") as pkg:
        assert json.loads(pkg.meta("package_order") or "[]") == want


def test_an_annotators_server_login_claims_by_the_owners_snapshot(postgres_cluster, tmp_path):
    """An annotator's login reads only its own work, so it claims in the order the owner's
    login computed (the snapshot), refreshed by an owner or a reviewer."""
    from urllib.parse import quote

    from slicereview.app.people import add_login
    from slicereview.app.qa.selection import refresh_order, snapshot
    from slicereview.model import Role

    url = postgres_cluster.new_database("selection")
    try:
        folder = tmp_path / "imgs"
        folder.mkdir()
        for k in range(3):
            PILImage.fromarray(np.full((32, 32), k, np.uint8)).save(folder / f"{k}.png")
        with Project.create(url) as project:
            import_paths(project, sorted(folder.glob("*.png")))
            ids = [im.id for im in project.images.all()]
            owner = add_login(project, "olivia", Role.OWNER)[0]
            model = model_rater(project, "net", "1").id
            ann = add_login(project, "ann", Role.ANNOTATOR)[0]
            batch = define_batch(project, "b", "formal", ids, raters=[ann],
                                 annotators_per_image=1)
            for image_id, bands in ((ids[1], (2, 2)), (ids[2], (1, 2))):
                labels = np.zeros((32, 32), np.uint8)
                labels[2:12, 2:12], labels[2:12, 16:26] = bands
                store_prediction(project, project.raters.get(model), image_id, labels)
            set_order(project, owner, batch, "uncertainty", rater_id=model)
            assert snapshot(project, batch)[0] == [ids[1], ids[2], ids[0]]
            with pytest.raises(PermissionError, match="annotator"):
                refresh_order(project, ann, batch)
        scheme, rest = url.split("://", 1)
        as_ann = f"{scheme}://{quote('ann')}@{rest.split('@', 1)[1]}"
        with Project.open(as_ann) as mine:
            assert scores(mine, batch) == {}  # it reads no model's work
            assert next_image(mine, ann, batch) == ids[1]
    finally:
        postgres_cluster.drop_database(url)


def test_a_models_stored_entropy_orders_its_images(location, tmp_path):
    """A model that keeps its probabilities stores its mean entropy per image; the order then
    follows those values (checked against the engine's entropy of the maps)."""
    from slicereview.app.qa.selection import store_uncertainty, stored_uncertainty
    from slicereview.engines.review.selection import mean_entropy

    where = location()
    owner, model, _, batch, ids = _project(where, tmp_path / "imgs")
    rng = np.random.default_rng(0)
    maps = {ids[0]: np.full((32, 32), 0.02), ids[1]: rng.random((32, 32)),
            ids[2]: np.full((32, 32), 0.5)}
    with Project.open(where) as project:
        store_uncertainty(project, model, {i: mean_entropy(p) for i, p in maps.items()})
        with pytest.raises(ValueError, match="finite number"):
            store_uncertainty(project, model, {ids[3]: float("nan")})
        assert stored_uncertainty(project, model)[ids[2]] == pytest.approx(1.0)
        set_order(project, owner, batch, "uncertainty", rater_id=model)
        assert ordered_images(project, batch) == [ids[2], ids[1], ids[0], ids[3]]


def test_scores_are_cached_and_only_changed_work_is_scored_again(location, tmp_path):
    where = location()
    owner, model, (a, b, c), batch, ids = _project(where, tmp_path / "imgs", images=3)
    with Project.open(where) as project:
        for image_id, shift in zip(ids, (0, 5, 12), strict=True):
            for rater, x0 in ((a, 1), (b, 1 + shift)):
                ann = project.annotations.for_image(rater, image_id)
                project.polygons.replace(ann.id, [_square(x0, 10)])
                project.annotations.set_status(ann.id, "submitted")
        set_order(project, owner, batch, "disagreement")
        cached = json.loads(project.meta(f"selection.cache.{batch}"))["disagreement"]
        assert sorted(cached) == [str(i) for i in ids]
        # b redraws image 3 to agree with a: only image 3's key and score change
        ann = project.annotations.for_image(b, ids[2])
        project.polygons.replace(ann.id, [_square(1, 10)])
        assert scores(project, batch)[ids[2]] == pytest.approx(0.0)
        again = json.loads(project.meta(f"selection.cache.{batch}"))["disagreement"]
        assert again[str(ids[0])] == cached[str(ids[0])]
        assert again[str(ids[1])] == cached[str(ids[1])]
        assert again[str(ids[2])][0] != cached[str(ids[2])][0]


def test_a_package_project_hands_out_its_images_in_the_batchs_uncertainty_order(location,
                                                                               tmp_path):
    """The package holds neither the model's predictions nor the others' work, so it carries
    the batch's order: on the annotator's machine, Next image to annotate (claims) and the
    image list (the gateway's ids) both go down the model's uncertainty order."""
    from slicereview.app.qa.packages import unpack
    from slicereview.app.qa.selection import in_package_order

    where = location()
    owner, model, (a, _, _), batch, ids = _project(where, tmp_path / "imgs")
    with Project.open(where) as project:
        in_uncertainty_order(project, owner, model, batch, ids)
        want = [ids[2], ids[1], ids[0], ids[3]]
        assert ordered_images(project, batch) == want
        for image_id in ids:  # (a claims every image, in the batch's own order)
            assert project.slots.claim_image(batch, image_id, a)
        assert in_package_order(project, ids) == ids  # (not a package: unchanged)
        out = package(project, "a", tmp_path / "a.srpkg", batch="b")
    with Project.open(unpack(out)) as pkg:
        assert pkg.raters.by_name("net@1") is None  # (the model's work stayed home)
        assert ordered_images(pkg, batch) == want
        assert in_package_order(pkg, pkg.images.ids()) == want
        got = []
        for _ in ids:
            got.append(next_image(pkg, a, batch))
            pkg.annotations.set_status(pkg.annotations.for_image(a, got[-1]).id,
                                       "nothing_to_annotate")
        assert got == want
        assert next_image(pkg, a, batch) is None
