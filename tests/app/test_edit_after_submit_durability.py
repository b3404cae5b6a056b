"""An edit after Submit survives ``kill -9``: no annotation is left *submitted* with content it
was not submitted with (issue 11: the edit and the reopening were two transactions, and a crash
between them left an edited annotation marked ``submitted``).

The check needs no extra schema. The child process only ever submits an annotation in a
*canonical* state — an even, non-zero number of polygons, every one ``certain`` — and every
edit of a submitted annotation leaves the canonical state at once (one polygon added or deleted,
a polygon made ``uncertain``, or the whole list replaced by one of odd length); a second edit,
made while the annotation is *in progress*, restores it before the next Submit. So a
``submitted`` annotation that is not canonical can only be a torn write: the edit reached the
file and the reopening did not. Each trial's child makes edits of one kind (add, delete, update,
replace: one :mod:`slicereview.app.annotating` function each, a quarter of the trials). The
parent kills the child with SIGKILL at seeded moments shortly after a Submit (where the first
edit happens), reopens the project and checks that.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app import annotating
from slicereview.model import AnnotationStatus, Certainty, NewImage, Polygon
from slicereview.store import Project, check_file
from slicereview.store.schema import SCHEMA_VERSION

#: Address-space limit of the child (as the store's killed-writer test): a runaway child fails
#: this test alone instead of exhausting the machine.
EDITOR_MEMORY = 1 << 30
TRIALS = 60
SEED = 20240611
EDITS = ("add", "delete", "update", "replace")  # the app.annotating function each trial tests

EDITOR = textwrap.dedent(
    f"""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, ({EDITOR_MEMORY}, {EDITOR_MEMORY}))
    import dataclasses, random, sys, time
    import numpy as np
    from slicereview.app import annotating
    from slicereview.model import AnnotationStatus, Certainty, Polygon
    from slicereview.store import Project

    path, seed, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    project = Project.open(path)
    ids = [a.id for a in project.annotations.all()]

    def square(k):
        x = 1.0 + (k % 5) * 6
        return Polygon(np.array([[x, 1.0], [x + 4, 1.0], [x + 4, 5.0], [x, 5.0]]))

    def submit(ann):
        annotating.finish(project, ann, "submitted")
        print("submitted", ann, flush=True)

    # A kill may have left an annotation in progress at any step: make it canonical again.
    for ann in ids:
        if project.annotations.get(ann).status is not AnnotationStatus.SUBMITTED:
            annotating.replace_polygons(project, ann, [square(0), square(1)])
            submit(ann)
    print("ready", flush=True)

    for n in range(10_000):                      # bounded; the parent kills it long before
        ann = rng.choice(ids)
        polys = project.polygons.of(ann)            # canonical: even, >= 2, all certain
        if kind == "add" or (kind == "delete" and len(polys) < 4):
            annotating.add_polygon(project, ann, square(len(polys)))          # odd
            annotating.add_polygon(project, ann, square(len(polys) + 1))
        elif kind == "delete":
            annotating.delete_polygon(project, ann, polys[-1].id)             # odd
            annotating.delete_polygon(project, ann, polys[-2].id)
        elif kind == "update":
            k = rng.randrange(len(polys))
            annotating.update_polygon(                                          # uncertain
                project, ann, dataclasses.replace(polys[k], certainty=Certainty.UNCERTAIN))
            annotating.update_polygon(project, ann, polys[k])
        else:
            fresh = [square(k) for k in range(len(polys) + 1)]
            annotating.replace_polygons(project, ann, fresh)                  # odd
            annotating.replace_polygons(project, ann, fresh[:-1])
        submit(ann)
    """
)


def canonical(polygons: list[Polygon]) -> bool:
    """The only content the child ever submits (see the module docstring)."""
    return (len(polygons) >= 2 and len(polygons) % 2 == 0
            and all(p.certainty is Certainty.CERTAIN for p in polygons))


def _run_and_kill(path: Path, script: Path, seed: int, kind: str, submits: int,
                  fraction: float) -> list[str]:
    """Run the editor (making edits of ``kind``), wait for ``submits`` Submits past its
    start, then kill -9 it ``fraction`` of its mean cycle time after the last one; return the
    lines it printed."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, str(script), str(path), str(seed), kind],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    try:
        while not lines or lines[-1] != "ready\n":
            lines.append(proc.stdout.readline())
            assert lines[-1], proc.stderr.read()
        stamps = [time.perf_counter()]
        while len(stamps) <= submits:
            lines.append(proc.stdout.readline())
            assert lines[-1].startswith("submitted"), lines[-1] + proc.stderr.read()
            stamps.append(time.perf_counter())
        # Killing at a fraction of the measured cycle makes the moment depend on the seed,
        # not on the machine's speed (a cycle is an edit, a restoring edit and a Submit).
        cycle = (stamps[-1] - stamps[0]) / submits
        time.sleep(fraction * cycle)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err
    return lines + out.splitlines(keepends=True)


@pytest.fixture
def project_path(location, tmp_path: Path) -> Path:
    """Three annotators' annotations of one image, each submitted with two polygons."""
    path = location("study.srproj")
    image = tmp_path / "image.png"
    image.write_bytes(b"not decoded here")
    with Project.create(path) as project:
        [image_id] = project.images.add_source(image, "0" * 64, "png", [NewImage(32, 32)])
        for name in ("ann-a", "ann-b", "ann-c"):
            ann = project.annotations.for_image(annotating.add_annotator(project, name), image_id)
            square = np.array([[1.0, 1.0], [5.0, 1.0], [5.0, 5.0], [1.0, 5.0]])
            annotating.replace_polygons(project, ann.id, [Polygon(square), Polygon(square + 6)])
            annotating.finish(project, ann.id, "submitted")
    return path


# Checked against a regression: with add_polygon's change and reopening committed as two
# transactions, 8 of the 60 trials (of the 15 "add" ones) left a submitted annotation with 3
# polygons, and this test fails at the first of them.
@pytest.mark.slow  # about 45 s: 60 child processes (a Python start-up each)
def test_kill_9_never_leaves_an_edited_annotation_submitted(project_path: Path,
                                                            tmp_path: Path):
    script = tmp_path / "editor.py"
    script.write_text(EDITOR)
    rng = random.Random(SEED)
    start = time.perf_counter()
    mid_edit = submits = 0
    for trial in range(TRIALS):
        # Each kind of edit in a quarter of the trials; the first edit after a Submit (the
        # one that reopens) runs in the first part of a cycle, where the kills are aimed.
        lines = _run_and_kill(project_path, script, rng.randrange(2**32), EDITS[trial % 4],
                              rng.randint(1, 3), rng.uniform(0.0, 0.4))
        submits += sum(line.startswith("submitted") for line in lines)
        # Opening recovers from the kill (rolls back a hot journal) and checks the file; a
        # server rolled the killed client's transaction back itself.
        with Project.open(project_path) as project:
            if project.db.kind == "sqlite":
                assert project.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            for ann in project.annotations.all():
                polygons = project.polygons.of(ann.id)
                if ann.status is AnnotationStatus.SUBMITTED:
                    assert canonical(polygons), (
                        f"trial {trial}: annotation {ann.id} is submitted with content it was "
                        f"not submitted with: {len(polygons)} polygons, certainty "
                        f"{[str(p.certainty) for p in polygons]} (a torn edit)")
                else:
                    assert ann.status is AnnotationStatus.IN_PROGRESS
                    mid_edit += 1
        if not isinstance(project_path, str):
            assert check_file(project_path) == SCHEMA_VERSION  # no hot journal left behind
    elapsed = time.perf_counter() - start
    print(f"{TRIALS} trials, {TRIALS} kills, {mid_edit} annotations found mid-edit, "
          f"{submits} submits, {elapsed:.1f} s")
    # The kills did land inside edits (the state the bug tore), not only between cycles.
    assert mid_edit >= TRIALS // 4, mid_edit
