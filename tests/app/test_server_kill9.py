"""``kill -9`` of a client of a server project loses nothing it reported saved and leaves no
half-written transaction, as on a project file (tests/store/test_store_file.py,
tests/app/test_edit_after_submit_durability.py).

A child process, an annotator on their own login, works through the application layer:
claims an image of a batch handed out by claims, saves its polygons (now and then 150 at once,
one big transaction), answers its classification question, submits it, and answers rating
comparisons; it prints each write after it returned (committed). The parent kills it with
SIGKILL at seeded moments (every other trial just after a save of 150 polygons began), then
opens the project as its owner (the opening checks the schema) and checks:

* every write the child reported is there (answers, claims, saves, classifications,
  submits);
* no write is half there: each save tags its polygons ``w<n>x<count>``, and every
  annotation holds exactly ``count`` polygons of one save -- the last reported one, or the
  one after it (committed, the kill came before the print);
* the killed client holds nothing: its server session is gone (no transaction left open, so
  not the project's write lock) and the owner's next write goes through at once.

The next trial's child carries on where the last one was killed (its unfinished claim comes
back first), as a person reopening the window would.
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
from PIL import Image as PILImage

from slicereview.store import Project

pytestmark = pytest.mark.slow  # a child process per trial (a Python start-up each)

TRIALS = 8
SEED = 20240920
IMAGES = 40

CHILD = textwrap.dedent(
    """
    import random, sys
    import numpy as np
    from slicereview.app import annotating
    from slicereview.app.qa.claiming import next_image
    from slicereview.app.rating.run import Comparison, RatingRun
    from slicereview.model import Polygon
    from slicereview.store import Project

    url, me, batch, session, seed, trial = sys.argv[1], *map(int, sys.argv[2:7])
    rng = random.Random(seed)
    project = Project.open(url)
    run = RatingRun(project, session)
    n = trial * 100_000  # (each trial's saves have their own, larger numbers)
    print("ready", flush=True)
    for _ in range(10_000):  # bounded; the parent kills it long before
        image = next_image(project, me, batch)
        if image is None:
            break
        ann = annotating.start(project, me, image).id
        print("claim", image, ann, flush=True)
        for _ in range(rng.randint(1, 3)):
            n += 1
            count = 150 if rng.random() < 0.3 else rng.randint(1, 4)
            label = f"w{n}x{count}"
            print("saving", ann, n, count, flush=True)
            square = np.array([[1.0, 1.0], [4.0, 1.0], [4.0, 4.0], [1.0, 4.0]])
            annotating.replace_polygons(project, ann, [
                Polygon(square + (k % 3), label=label) for k in range(count)])
            print("save", ann, n, count, flush=True)
            now = run.current()
            if isinstance(now, Comparison):
                run.answer(rng.choice(("left", "right")), 900, pair=(now.left, now.right))
                print("answer", run.answers()[-1].id, flush=True)
        annotating.set_classifications(project, ann, {"density": "ABCD"[n % 4]})
        print("classify", ann, "ABCD"[n % 4], flush=True)
        annotating.finish(project, ann, "submitted")
        print("submit", ann, flush=True)
    print("done", flush=True)
    """
)


@pytest.fixture
def project(postgres_cluster, tmp_path):
    """A server project: images, an annotator with their own login, a batch handed out by
    claims, a rating session; ``(url, login url, annotator, batch, session)``."""
    from slicereview.app.images.importing import import_paths
    from slicereview.app.people import add_login
    from slicereview.app.qa.questions import add_question
    from slicereview.app.qa.workflow import define_batch
    from slicereview.app.rating.sessions import create_session
    from slicereview.model import Role
    from tests.app.server_soak import as_login

    url = postgres_cluster.new_database("kill")
    for k in range(IMAGES):
        pixels = np.zeros((8, 8), np.uint8)
        pixels.flat[k] = 255
        PILImage.fromarray(pixels).save(tmp_path / f"{k:03d}.png")
    login = f"k{os.getpid()}ann"
    with Project.create(url) as owner:
        import_paths(owner, sorted(tmp_path.glob("*.png")))
        ids = [im.id for im in owner.images.all()]
        me, _ = add_login(owner, login, Role.ANNOTATOR)
        batch = define_batch(owner, "b", "formal", ids, raters=[me], annotators_per_image=1)
        add_question(owner, "density", "Breast density", "radio", "image", list("ABCD"))
        rated = owner.image_sets.create("rated", ids[:12])
        session = create_session(owner, "exhaustive", me, rated, "pairs", seed=1)
    yield url, as_login(url, login), me, batch, session
    postgres_cluster.drop_database(url)


def _run_and_kill(script: Path, args: list[str], writes: int, delay: float,
                  big: bool) -> list[str]:
    """Run the child, kill -9 it ``delay`` s after its ``writes``-th reported write (with
    ``big``: after the start of the next save of 150 polygons that follows it); the complete
    lines it printed."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    try:
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()
        while writes and (not lines or lines[-1] != "done\n"):
            lines.append(proc.stdout.readline())
            writes -= not lines[-1].startswith("saving")
        while big and not lines[-1].endswith(" 150\n") and lines[-1] != "done\n":
            lines.append(proc.stdout.readline())
            assert lines[-1], proc.stderr.read()
            assert lines[-1], proc.stderr.read()
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err
    # (a line cut off by the kill: the write committed, its report did not finish)
    return [line for line in lines + out.splitlines(keepends=True) if line.endswith("\n")]


def test_kill_9_of_a_client_never_loses_a_reported_write_nor_leaves_half_of_one(
        project, postgres_cluster, tmp_path):
    import psycopg

    url, login_url, me, batch, session = project
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    rng = random.Random(SEED)
    answers: set[int] = set()
    saves: dict[int, tuple[int, int]] = {}  # annotation -> last reported (n, count)
    claimed: set[int] = set()
    classified: dict[int, str] = {}
    submitted: set[int] = set()
    found_newer = inside = 0
    started = time.perf_counter()
    for trial in range(TRIALS):
        lines = _run_and_kill(script, [login_url, str(me), str(batch), str(session),
                                       str(rng.randrange(1, 2**20)), str(trial + 1)],
                              rng.randint(3, 25), rng.uniform(0.0, 0.05), trial % 2 == 0)
        inside += lines[-1].startswith("saving")  # killed during a save
        for line in lines:
            kind, *rest = line.split()
            if kind == "saving":
                continue
            if kind == "answer":
                answers.add(int(rest[0]))
            elif kind == "claim":
                claimed.add(int(rest[0]))
            elif kind == "save":
                saves[int(rest[0])] = (int(rest[1]), int(rest[2]))
            elif kind == "classify":
                classified[int(rest[0])] = rest[1]
            elif kind == "submit":
                submitted.add(int(rest[0]))
        # the killed client's server session ends with its socket: nothing left open
        deadline = time.monotonic() + 10
        while True:
            with psycopg.connect(url, autocommit=True) as conn:
                left = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND usename <> current_user").fetchone()[0]
            if left == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert left == 0, f"trial {trial}: the killed client's session is still there"
        with Project.open(url) as owner:  # (opening checks the schema)
            owner.db.set_busy_timeout(0.5)  # the write lock is free: no wait
            owner.set_meta("kill_trial", str(trial))
            assert {a.id for a in owner.ratings.answers(session)} >= answers
            assert set(owner.slots.claimed(batch, me)) >= claimed
            for ann in owner.annotations.all(rater_id=me):
                labels = {p.label for p in owner.polygons.of(ann.id)}
                count = len(owner.polygons.of(ann.id))
                reported = saves.get(ann.id)
                if not labels:  # started, killed before the first save committed
                    assert reported is None, (trial, ann.id)
                    continue
                assert len(labels) == 1, f"trial {trial}: polygons of two saves: {labels}"
                n, x = map(int, labels.pop()[1:].split("x"))
                assert count == x, f"trial {trial}: a save of {x} polygons holds {count}"
                if reported is None or n != reported[0]:
                    # the save after the last reported one: committed, not reported
                    assert reported is None or n > reported[0], (trial, ann.id, n, reported)
                    found_newer += 1
                    saves[ann.id] = (n, x)
                if ann.id in classified:
                    assert ann.classifications == {"density": classified[ann.id]}
                if ann.id in submitted:
                    assert str(ann.status) == "submitted"
    elapsed = time.perf_counter() - started
    print(f"\n{TRIALS} kills ({inside} during a save): {len(answers)} answers, "
          f"{len(saves)} annotations saved, "
          f"{len(submitted)} submitted, {found_newer} saves committed but not yet reported "
          f"when killed; {elapsed:.1f} s")
    assert answers and submitted and len(saves) >= TRIALS
    assert inside >= TRIALS // 4, inside  # the kills did land inside writes
