"""A batch handed out by claims: each image gets exactly the annotators it needs, nobody gets
one image twice, an unfinished claim comes back first, work packages hold the claimed
images; and 8 processes claiming at once (two of them for the same annotator) never get the
same slot, on a file and on a server (``FOR UPDATE SKIP LOCKED``)."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.app.images.importing import import_paths
from slicereview.app.qa.claiming import next_image
from slicereview.app.qa.workflow import define_batch, work_images
from slicereview.store import Project


def _project(where, folder: Path, images: int, annotators: int, per_image: int
             ) -> tuple[int, list[int]]:
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(images):
        PILImage.fromarray(np.full((8, 8), k, np.uint8)).save(folder / f"{k:03d}.png")
    with Project.create(where) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        raters = [project.raters.add(f"ann{k}") for k in range(annotators)]
        batch = define_batch(project, "b", "formal", [im.id for im in project.images.all()],
                             raters=raters, annotators_per_image=per_image)
    return batch, raters


def test_claims_give_each_image_its_annotators_and_nobody_one_twice(location, tmp_path):
    where = location()
    batch, (a, b, c) = _project(where, tmp_path / "imgs", images=3, annotators=3, per_image=2)
    with Project.open(where) as project:
        assert next_image(project, a, batch) == 1
        assert next_image(project, a, batch) == 1  # not finished: the same image again
        ann = project.annotations.for_image(a, 1)
        project.annotations.set_status(ann.id, "submitted")
        assert next_image(project, a, batch) == 2
        assert next_image(project, b, batch) == 1
        project.annotations.set_status(project.annotations.for_image(b, 1).id, "submitted")
        assert next_image(project, b, batch) == 2
        project.annotations.set_status(project.annotations.for_image(b, 2).id, "submitted")
        assert next_image(project, c, batch) == 3  # images 1 and 2 have their two annotators
        assert work_images(project, b, batch) == [1, 2]
        assert project.slots.counts(batch) == (5, 6)
        assert next_image(project, b, batch) == 3
        project.annotations.set_status(project.annotations.for_image(b, 3).id, "submitted")
        assert next_image(project, b, batch) is None  # one claim per image, every image full
        assert project.slots.claim(batch, c) is None
        per_image = Counter(image for image, _, rater in project.slots.all(batch) if rater)
        assert per_image == {1: 2, 2: 2, 3: 2}
        other = project.raters.add("stranger")
        with pytest.raises(ValueError, match="not assigned"):
            next_image(project, other, batch)
        plain = define_batch(project, "plain", "formal", [1, 2], raters=[a])
        with pytest.raises(ValueError, match="not handed out by claims"):
            next_image(project, a, plain)
        assert work_images(project, a, plain) == [1, 2]


def _claim_all(where, rater_id: int, batch_id: int) -> tuple[list[int], list[float], str]:
    """Claim until nothing is left (a process of its own): images, latencies, error."""
    images, latencies = [], []
    try:
        with Project.open(where) as project:
            while True:
                start = time.perf_counter()
                image = project.slots.claim(batch_id, rater_id)
                latencies.append(time.perf_counter() - start)
                if image is None:
                    return images, latencies, ""
                images.append(image)
    except Exception as exc:  # reported to the test, which fails on any
        return images, latencies, f"{type(exc).__name__}: {exc}"


@pytest.mark.usefixtures("spawned_children_import_tests")  # the children run _claim_all
def test_eight_processes_claiming_at_once_never_share_a_slot(location, tmp_path):
    where = location()
    batch, raters = _project(where, tmp_path / "imgs", images=40, annotators=6, per_image=3)
    who = raters + raters[:2]  # 8 processes; two annotators claim from two at once
    context = multiprocessing.get_context("spawn")
    with context.Pool(len(who)) as pool:
        results = pool.starmap(_claim_all, [(where, r, batch) for r in who])
    assert [error for _, _, error in results] == [""] * len(who)
    with Project.open(where, read_only=True) as project:
        slots = project.slots.all(batch)
        assert project.slots.counts(batch) == (120, 120)  # 6 x 40 wanted more than 120
    got = Counter((image, rater) for image, _, rater in slots)
    assert max(got.values()) == 1  # nobody holds two slots of one image
    assert Counter(image for image, _, _ in slots) == {i: 3 for i in range(1, 41)}
    handed = Counter(image for images, _, _ in results for image in images)
    assert sum(handed.values()) == 120 and max(handed.values()) == 3  # each claim once
    p95 = np.percentile([t for _, lat, _ in results for t in lat], 95)
    print(f"claim latency p95 with {len(who)} processes: {p95 * 1000:.1f} ms")


def test_a_package_of_a_claimed_batch_holds_the_claimed_images(location, tmp_path):
    import zipfile

    from slicereview.app.qa.packages import package

    where = location()
    batch, (a, b) = _project(where, tmp_path / "imgs", images=4, annotators=2, per_image=1)
    with Project.open(where) as project:
        for rater in (a, b, a):
            image = next_image(project, rater, batch)
            project.annotations.set_status(project.annotations.for_image(rater, image).id,
                                           "submitted")
        out = package(project, "ann0", tmp_path / "ann0.zip", batch="b")
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp_path / "unzipped")
    with Project.open(tmp_path / "unzipped" / "project.srproj") as pkg:
        assert [i.case_id for i in pkg.images.all()] == ["C000001", "C000003"]
        mine = pkg.raters.by_name("ann0").id
        assert work_images(pkg, mine, pkg.workflow.batch_by_name("b").id) == [
            i.id for i in pkg.images.all()]


def test_a_claim_refused_or_cut_off_on_a_server_claims_nothing(postgres_cluster, tmp_path):
    """A claim on a server is one message (``BEGIN``, the annotator's lock, the ``UPDATE``,
    ``COMMIT``): one that waits longer than the busy timeout for the same annotator's other
    claim is refused as busy, one whose connection is cut off says its outcome is unknown;
    neither claims anything, and the next claim works on the same project."""
    import psycopg

    from slicereview.store.errors import ConnectionLostError, ProjectBusyError
    from slicereview.store.postgres import CLAIM_LOCK

    where = postgres_cluster.new_database()
    batch, (a, b) = _project(where, tmp_path / "imgs", images=2, annotators=2, per_image=1)
    with Project.open(where) as project:
        project.set_busy_timeout(0.2)
        with psycopg.connect(where) as other:  # a transaction holding a's claim lock
            other.execute(f"SELECT pg_advisory_xact_lock({CLAIM_LOCK}, {a})")
            with pytest.raises(ProjectBusyError):
                project.slots.claim(batch, a)
            assert project.slots.claim(batch, b) == 1  # another annotator's claim goes on
        assert not project.db.in_transaction
        assert project.slots.claim(batch, a) == 2
        postgres_cluster.admin(
            f"SELECT pg_terminate_backend({project.db.conn.info.backend_pid}, 5000)")
        with pytest.raises(ConnectionLostError) as lost:
            project.slots.claim(batch, b)
        assert lost.value.saved is None
        assert project.slots.claim(batch, b) is None  # connected again; nothing left for b
        assert project.slots.all(batch) == [(1, 0, b), (2, 0, a)]


def test_an_image_opened_by_hand_takes_a_place_or_is_refused(location, tmp_path):
    """Claims are a lock: starting an image of a batch handed out by claims by hand (the
    Annotate tab's list) takes one of its places for the annotator, or is refused with one
    sentence when all K are taken; an image the low-agreement rule assigned needs no place,
    nor does someone not assigned to the batch (an expert)."""
    from slicereview.app import annotating
    from slicereview.app.qa.claiming import PlacesTaken

    where = location()
    batch, (a, b, c) = _project(where, tmp_path / "imgs", images=3, annotators=3, per_image=1)
    with Project.open(where) as project:
        assert next_image(project, a, batch) == 1
        assert annotating.start(project, b, 2).image_id == 2  # by hand: takes image 2's place
        assert project.slots.claimed(batch, b) == [2]
        with pytest.raises(PlacesTaken, match=r"C000001 already has all the annotators "
                                              r"batch b needs \(1 of 1 places taken\), .* "
                                              r"take the next image"):
            annotating.start(project, c, 1)
        assert project.annotations.all(rater_id=c) == []  # (nothing started)
        assert Counter(i for i, _, r in project.slots.all(batch) if r) == {1: 1, 2: 1}
        assert annotating.start(project, b, 2).image_id == 2  # (held: started again, as is)
        assert next_image(project, c, batch) == 3  # what is left still goes out by claims
        project.workflow.add_image_flag(1, "assign", "low α", batch_id=batch, rater_id=c)
        assert annotating.start(project, c, 1).image_id == 1  # assigned by the rule
        expert = project.raters.add("expert", "reviewer")
        assert annotating.start(project, expert, 1).image_id == 1  # not in the batch's pool
        assert Counter(i for i, _, r in project.slots.all(batch) if r) == {1: 1, 2: 1, 3: 1}
