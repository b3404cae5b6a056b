"""Soak test of a server project: 8 processes × 500 mixed operations on one database, then
0 lost writes, 0 double claims and 0 errors other than a handled retry.

Each process (:func:`tests.app.server_soak.desk`) is one annotator and one reviewer, each on
their own login (``people add``: row-level security applies), working through the
application layer as the main window and the command line do: claim the next image of a batch
handed out by claims (4 annotators per image, 100 images: the 8 annotators want more than the
400 slots, so claims run out during the run), save polygons (1-3 saves of 1-3 polygons, each
save tagged with its own label), answer the image's classification question, submit, answer
rating comparisons (a new session when one is done), accept or reject another annotator's
submitted annotation, and merge a work package back (offline work: the package, made from the
server project, is edited in its project file, zipped and merged). The seeded mix: 55 % work
on a claimed image, 22 % comparisons, 20 % reviews, 3 % merges.

Then, as the owner, the database is compared with what each process wrote down:

* **no lost write, nothing failed saved** — every claim, polygon save (the last one of each
  annotation, its label and count: an earlier or failed save would show), classification,
  submit, answer, review decision and merged annotation a process recorded as committed is
  there, and the database holds nothing else of theirs;
* **no double claim** — no image has more than 4 annotators, nobody two slots of one image,
  every slot a process was handed is held by that process's annotator, and no claimed slot is
  unaccounted for;
* **no error** but a handled retry (counted: waiting for the write lock past the busy timeout
  and running the same intent again).
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import Counter

import numpy as np
import pytest

from slicereview.store import Project
from tests.app import server_soak
from tests.app.server_soak import CLAIMED, PER_IMAGE, Log

PROCESSES, OPS = 8, 500
SEED = 20240919

pytestmark = pytest.mark.slow  # 40-90 s on two shared cores


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("soak")
    yield made
    postgres_cluster.drop_database(made)


@pytest.mark.usefixtures("spawned_children_import_tests")  # the children run server_soak.desk
def test_eight_processes_of_mixed_work_lose_nothing_and_never_share_a_slot(url, tmp_path):
    tag = f"s{os.getpid()}x"  # (logins are the cluster's: one name per run)
    setup = server_soak.build(url, tmp_path / "images", PROCESSES, tag)
    context = multiprocessing.get_context("spawn")
    started = time.perf_counter()
    # (each of the 8 workers takes one desk: a worker waits at the barrier until all have one)
    with context.Pool(PROCESSES, server_soak.share_start,
                      (context.Barrier(PROCESSES),)) as pool:
        logs: list[Log] = pool.starmap(server_soak.desk, [
            (url, k, setup, tag, str(tmp_path / "desks"), SEED + k, OPS)
            for k in range(PROCESSES)])
    wall = time.perf_counter() - started
    ops = Counter()
    for log in logs:
        ops.update(log.ops)
    latencies = {kind: np.percentile([t for log in logs for t in log.latency.get(kind, [])],
                                     95) * 1000 for kind in ops}
    retries = sum(log.retries for log in logs)
    print(f"\nsoak: {PROCESSES} processes x {OPS} operations in {wall:.1f} s with start-up "
          f"(work: slowest process {max(log.seconds for log in logs):.1f} s); "
          + ", ".join(f"{kind} {n} (p95 {latencies[kind]:.0f} ms)"
                      for kind, n in sorted(ops.items()))
          + f"; handled retries {retries}; errors {sum(len(log.errors) for log in logs)}")
    assert [e for log in logs for e in log.errors] == []
    assert sum(ops.values()) >= PROCESSES * OPS - sum(len(log.failed) for log in logs)
    check(url, setup, logs)


def check(url: str, setup: dict, logs: list[Log]) -> None:
    """The database as the processes' logs say it must be (see the module docstring)."""
    claims, offline = setup["claims"], set(setup["offline"])
    with Project.open(url, read_only=True) as project:
        slots = project.slots.all(claims)
        # no double claim
        held = [(image, rater) for image, _, rater in slots if rater is not None]
        assert max(Counter(image for image, _ in held).values()) <= PER_IMAGE
        assert max(Counter(held).values()) == 1
        handed = {(image, setup["annotators"][k]) for k, log in enumerate(logs)
                  for image in log.claimed}
        assert sum(len(log.claimed) for log in logs) == len(handed)
        assert set(held) == handed  # every claim where its process was told, no other
        assert len(held) == CLAIMED * PER_IMAGE  # the annotators wanted more than there was
        # no lost write: annotations, polygons, classifications, submits, merges
        for k, log in enumerate(logs):
            me = setup["annotators"][k]
            mine = {a.id: a for a in project.annotations.all(rater_id=me)}
            claimed = {i: a for i, a in mine.items() if a.image_id not in offline}
            assert {i: a.image_id for i, a in claimed.items()} == log.started
            assert {a.image_id for a in claimed.values()} == set(log.claimed)
            for ann_id, ann in claimed.items():
                polygons = project.polygons.of(ann_id)
                label, count = log.saved.get(ann_id, ("", 0))
                assert ([p.label for p in polygons] == [label] * count), (k, ann_id)
                assert ann.classifications == log.classified.get(ann_id, {}), (k, ann_id)
                assert (str(ann.status) == "submitted") == (ann_id in log.submitted)
            merged = {a.image_id: a for a in mine.values() if a.image_id in offline}
            assert set(merged) == set(log.merged)
            for image, ann in merged.items():
                label, count = log.merged[image]
                assert [p.label for p in project.polygons.of(ann.id)] == [label] * count
                assert str(ann.status) == "submitted"
            # answers: exactly the committed ones, in the sessions the process used
            sessions = {s.id for s in project.ratings.sessions(rater_id=me)}
            assert sessions == set(log.sessions)
            stored = {a.id for s in sessions for a in project.ratings.answers(s)}
            assert stored == set(log.answers)
        # reviews: exactly the committed decisions, each by its process's reviewer
        decided = {(r.id, r.annotation_id, str(r.decision), r.reviewer_id)
                   for r in project.reviews.all()}
        assert decided == {(rid, ann, decision, setup["reviewers"][k])
                           for k, log in enumerate(logs) for rid, ann, decision in log.reviews}
