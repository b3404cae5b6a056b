"""Two people rating on one project file at once (two processes): no answer lost or doubled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.images.importing import import_paths
from slicereview.app.rating.run import RatingRun
from slicereview.app.rating.sessions import NewSessionSpec, start_session
from slicereview.engines.ranking import Ranking
from slicereview.model import SessionKind
from slicereview.store import Project

N = 12

#: A rater process: answers its session from the file's truth (noise = file number),
#: re-reading the session before every answer, as the GUI does after a change elsewhere.
RATER = """
import sys
from pathlib import Path
from slicereview.app.rating.run import Comparison, RatingRun
from slicereview.store import Project

path, session_id = sys.argv[1], int(sys.argv[2])
stored = stale = 0
with Project.open(path) as project:
    truth = {im.id: int(Path(im.path).stem.split("_")[1]) for im in project.images.all()}
    while True:
        run = RatingRun(project, session_id)          # the file as it is now
        now = run.current()
        if not isinstance(now, Comparison):
            break
        choice = "left" if truth[now.left] > truth[now.right] else "right"
        try:
            run.answer(choice, 10, pair=(now.left, now.right))
            stored += 1
        except ValueError:                           # the other process answered it first
            stale += 1
print(stored, stale, flush=True)
"""


@pytest.fixture
def shared(location, tmp_path: Path) -> tuple[Path, list[int]]:
    from skimage import io

    folder = tmp_path / "images"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for k in range(N):
        io.imsave(folder / f"img_{k}.png", rng.integers(0, 50 * (k + 1), (24, 24),
                                                        dtype=np.uint16), check_contrast=False)
    path = location("shared.srproj")
    with Project.create(path) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        set_id = project.image_sets.create("all", [im.id for im in project.images.all()])
        sessions = [start_session(project, NewSessionSpec(kind=kind, rater=rater,
                                                          image_set_id=set_id))
                    for kind, rater in ((SessionKind.SORT, "ann"), (SessionKind.SORT, "bob"),
                                        (SessionKind.EXHAUSTIVE, "cy"))]
    return path, sessions


def _rate_at_once(path: Path, session_ids: list[int]) -> list[tuple[int, int]]:
    children = [subprocess.Popen([sys.executable, "-c", RATER, str(path), str(s)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for s in session_ids]
    out = []
    for child in children:
        stdout, stderr = child.communicate(timeout=240)
        assert child.returncode == 0, stderr
        stored, stale = map(int, stdout.split())
        out.append((stored, stale))
    return out


def _check(project: Project, session_id: int) -> None:
    answers = project.ratings.answers(session_id)
    pairs = [frozenset((a.left, a.right)) for a in answers]
    assert len(pairs) == len(set(pairs))  # no pair answered twice
    now = RatingRun(project, session_id).current()
    assert isinstance(now, Ranking)
    truth = {im.id: int(Path(im.path).stem.split("_")[1]) for im in project.images.all()}
    ranked = [truth[i] for tier in now.tiers for i in tier]
    assert ranked == sorted(ranked, reverse=True)


@pytest.mark.slow  # 3 s
def test_two_processes_on_different_sessions_lose_nothing(shared) -> None:
    path, (ann, bob, cy) = shared
    (a, _), (b, _), (c, _) = _rate_at_once(path, [ann, bob, cy])
    with Project.open(path) as project:
        assert len(project.ratings.answers(ann)) == a
        assert len(project.ratings.answers(bob)) == b
        assert len(project.ratings.answers(cy)) == c == N * (N - 1) // 2
        for s in (ann, bob, cy):
            _check(project, s)


@pytest.mark.slow  # 3 s
def test_two_processes_on_one_session_never_double_an_answer(shared) -> None:
    path, (ann, _bob, cy) = shared
    results = _rate_at_once(path, [cy, cy])
    with Project.open(path) as project:
        stored = sum(s for s, _ in results)
        assert len(project.ratings.answers(cy)) == stored == N * (N - 1) // 2
        _check(project, cy)
    results = _rate_at_once(path, [ann, ann])
    with Project.open(path) as project:
        assert len(project.ratings.answers(ann)) == sum(s for s, _ in results)
        _check(project, ann)


def test_undo_never_deletes_an_answer_given_elsewhere_since(shared) -> None:
    """Undo of my answer after another instance answered in the same session is refused
    (their answer stays, mine stays); with nobody in between it deletes mine."""
    from slicereview.app.commands import RecordAnswer
    from slicereview.app.undo import CommandStack

    path, (ann, _bob, _cy) = shared
    with Project.open(path) as mine, Project.open(path) as theirs:
        run = RatingRun(mine, ann)
        now = run.current()
        stack = CommandStack()
        stack.push(RecordAnswer(run, "left", 10, (now.left, now.right)))
        other = RatingRun(theirs, ann)
        nxt = other.current()
        other.answer("right", 10, pair=(nxt.left, nxt.right))
        assert not stack.undo()  # refused, said why, and gone from the history
        assert isinstance(stack.error, ValueError) and "yours is kept" in str(stack.error)
        assert not stack.can_undo and not stack.can_redo
        assert len(theirs.ratings.answers(ann)) == 2
        fresh = RatingRun(mine, ann)
        now = fresh.current()
        stack = CommandStack()
        assert stack.push(RecordAnswer(fresh, "left", 10, (now.left, now.right)))
        assert stack.undo()
        assert len(mine.ratings.answers(ann)) == 2
