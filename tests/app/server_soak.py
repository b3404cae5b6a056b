"""The people of the soak test of a server project (tests/app/test_server_soak.py).

:func:`build` makes the project (as its owner: images, logins, a batch handed out by claims,
a batch for offline work, a question, rating sessions); :func:`desk` is one process of the
soak: one annotator and one reviewer, each on their own login, doing a seeded mix of
operations through the application layer as the main window and the command line do, and
writing down what each operation committed or failed to commit (:class:`Log`), which the test
then compares with the database.

Every write goes through :func:`slicereview.app.undo.retry_while_busy`, the one retry policy of
the front ends, with the store's :func:`~slicereview.store.postgres.is_busy`: a write that
waited for the project's write lock longer than the busy timeout is run again (counted as a
*handled retry*); any other exception is an error (counted, and the operation recorded as not
committed).
"""

from __future__ import annotations

import random
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

#: Images handed out by claims (each needs :data:`PER_IMAGE` annotators) and for offline work.
CLAIMED, PER_IMAGE, OFFLINE, RATED = 100, 4, 16, 16
#: The seeded mix of one process's operations: (kind, cumulative share).
MIX = (("work", 0.55), ("answer", 0.77), ("review", 0.97), ("merge", 1.0))


def as_login(url: str, login: str) -> str:
    """The same database, connected as ``login`` (the test cluster trusts its socket)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{quote(login)}@{rest.split('@', 1)[1]}"


def names(tag: str, k: int) -> tuple[str, str]:
    """The logins of process ``k``: its annotator and its reviewer (cluster-wide names)."""
    return f"{tag}ann{k}", f"{tag}rev{k}"


def build(url: str, folder: Path, processes: int, tag: str) -> dict:
    """Make the soak's project on ``url`` as its owner; what the processes need to know."""
    from PIL import Image as PILImage

    from slicereview.app.images.importing import import_paths
    from slicereview.app.people import add_login
    from slicereview.app.qa.packages import project_uuid
    from slicereview.app.qa.questions import add_question
    from slicereview.app.qa.workflow import define_batch
    from slicereview.app.rating.sessions import create_session
    from slicereview.model import Role
    from slicereview.store import Project

    folder.mkdir(parents=True, exist_ok=True)
    total = CLAIMED + OFFLINE
    for k in range(total):
        pixels = np.zeros((16, 16), np.uint8)
        pixels.flat[k] = 255  # (each file its own content: its own hash)
        PILImage.fromarray(pixels).save(folder / f"{k:03d}.png")
    with Project.create(url) as project:
        import_paths(project, sorted(folder.glob("*.png")))
        ids = [im.id for im in project.images.all()]
        anns, revs = [], []
        for k in range(processes):
            ann_name, rev_name = names(tag, k)
            anns.append(add_login(project, ann_name, Role.ANNOTATOR)[0])
            revs.append(add_login(project, rev_name, Role.REVIEWER)[0])
        claims = define_batch(project, "claims", "formal", ids[:CLAIMED], raters=anns,
                              annotators_per_image=PER_IMAGE)
        define_batch(project, "offline", "formal", ids[CLAIMED:], raters=anns)
        add_question(project, "density", "Breast density", "radio", "image",
                     ["A", "B", "C", "D"])
        rated = project.image_sets.create("rated", ids[:RATED])
        sessions = [create_session(project, "exhaustive", a, rated, f"pairs {a}", seed=a)
                    for a in anns]
        project_uuid(project)  # (packages name it; an annotator's login may not write meta)
    return {"claims": claims, "annotators": anns, "reviewers": revs, "sessions": sessions,
            "offline": ids[CLAIMED:], "rated": rated}


@dataclass
class Log:
    """What one process committed (and what it tried and failed to commit)."""

    claimed: list[int] = field(default_factory=list)  # images handed to the annotator
    started: dict[int, int] = field(default_factory=dict)  # annotation id -> image id
    saved: dict[int, tuple[str, int]] = field(default_factory=dict)  # ann -> (label, count)
    classified: dict[int, dict] = field(default_factory=dict)
    submitted: list[int] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)
    sessions: list[int] = field(default_factory=list)
    reviews: list[tuple[int, int, str]] = field(default_factory=list)  # (review, ann, decision)
    merged: dict[int, tuple[str, int]] = field(default_factory=dict)  # image -> (label, count)
    failed: list[tuple[str, object]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    retries: int = 0
    ops: dict[str, int] = field(default_factory=dict)
    latency: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0


def _squares(label: str, count: int, at: int) -> list:
    from slicereview.model import Polygon

    return [Polygon(np.array([[x, 2.0], [x + 3, 2.0], [x + 3, 5.0], [x, 5.0]]), label=label)
            for x in (1.0 + (at + j) % 3 * 4 for j in range(count))]


class Desk:
    """One process of the soak (see the module docstring)."""

    def __init__(self, url: str, k: int, setup: dict, tag: str, folder: Path,
                 seed: int) -> None:
        from slicereview.app.rating.run import RatingRun
        from slicereview.store import Project

        ann_name, rev_name = names(tag, k)
        self.ann = Project.open(as_login(url, ann_name))
        self.rev = Project.open(as_login(url, rev_name))
        self.me, self.reviewer = setup["annotators"][k], setup["reviewers"][k]
        self.ann_name, self.setup, self.folder = ann_name, setup, folder
        self.rng = random.Random(seed)
        self.log = Log(sessions=[setup["sessions"][k]])
        self.run = RatingRun(self.ann, setup["sessions"][k])
        self.current: tuple[int, int] | None = None  # (annotation id, saves still to do)
        self.classify_next = False
        self.claims_left = True
        self.offline_left = list(setup["offline"])
        self.reviewed: set[int] = set()
        self.seq = 0
        self.package: Path | None = None

    # -- one operation, retried while busy ----------------------------------------------------
    def _do(self, kind: str, write, what: object = None) -> object:
        from slicereview.app.undo import retry_while_busy
        from slicereview.store.postgres import is_busy

        def waited(message: str) -> None:
            self.log.retries += bool(message)

        start = time.perf_counter()
        try:
            result = retry_while_busy(write, is_busy=is_busy, on_wait=waited,
                                      ask=lambda message: False, patience_s=30.0)
        except Exception as exc:  # written down; the test fails on any
            self.log.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
            self.log.failed.append((kind, what))
            return None
        self.log.latency.setdefault(kind, []).append(time.perf_counter() - start)
        self.log.ops[kind] = self.log.ops.get(kind, 0) + 1
        return result

    def step(self) -> None:
        """One operation of the seeded mix (one that cannot run now falls to the next)."""
        r = self.rng.random()
        kind = next(name for name, share in MIX if r < share)
        if kind == "merge" and not self.offline_left:
            kind = "work"
        if kind == "work" and self.current is None and not self.claims_left:
            kind = "answer"
        if kind == "review" and not self.review():
            kind = "answer"
        if kind == "work":
            self.work()
        elif kind == "answer":
            self.answer()
        elif kind == "merge":
            self.merge()

    # -- the annotator: claim, annotate, classify, submit ---------------------------------------
    def work(self) -> None:
        from slicereview.app import annotating
        from slicereview.app.qa.claiming import next_image

        if self.current is None:
            def claim() -> tuple[int, int] | None:
                image = next_image(self.ann, self.me, self.setup["claims"])
                if image is None:
                    return 0, 0  # every image they may still get is taken
                return image, annotating.start(self.ann, self.me, image).id

            got = self._do("claim", claim)
            if got is None:
                return
            if got == (0, 0):
                self.claims_left = False
                return
            image, ann_id = got  # type: ignore[misc]
            if image not in self.log.claimed:
                self.log.claimed.append(image)
            self.log.started[ann_id] = image
            self.current = (ann_id, self.rng.randint(1, 3))
            self.classify_next = True
            return
        ann_id, saves = self.current
        if saves > 0:
            self.seq += 1
            label, count = f"s{self.seq}", self.rng.randint(1, 3)
            polygons = _squares(label, count, self.seq)
            if self._do("annotate", lambda: annotating.replace_polygons(
                    self.ann, ann_id, polygons), (ann_id, label)) is not None:
                self.log.saved[ann_id] = (label, count)
                self.current = (ann_id, saves - 1)
        elif self.classify_next:
            answer = {"density": self.rng.choice("ABCD")}
            self._do("classify", lambda: annotating.set_classifications(
                self.ann, ann_id, answer), (ann_id, answer))
            if ("classify", (ann_id, answer)) not in self.log.failed:
                self.log.classified[ann_id] = answer
            self.classify_next = False
        else:
            self._do("submit", lambda: annotating.finish(self.ann, ann_id, "submitted"),
                     ann_id)
            if ("submit", ann_id) not in self.log.failed:
                self.log.submitted.append(ann_id)
            self.current = None

    # -- a rating comparison ------------------------------------------------------------------
    def answer(self) -> None:
        from slicereview.app.rating.run import Comparison, RatingRun
        from slicereview.app.rating.sessions import create_session

        now = self.run.current()
        if not isinstance(now, Comparison):  # every pair answered: a new session
            session = self._do("session", lambda: create_session(
                self.ann, "exhaustive", self.me, self.setup["rated"],
                f"{self.ann_name} pass {len(self.log.sessions) + 1}", seed=self.seq))
            if session is None:
                return
            self.log.sessions.append(int(session))  # type: ignore[call-overload]
            self.run = RatingRun(self.ann, int(session))  # type: ignore[call-overload]
            now = self.run.current()
            assert isinstance(now, Comparison)
        choice = self.rng.choice(("left", "right", "left", "right", "same"))
        before = self.run.answer_count
        self._do("answer", lambda: self.run.answer(choice, 1000, pair=(now.left, now.right)),
                 (now.left, now.right))
        if self.run.answer_count > before:
            self.log.answers.append(self.run.answers()[-1].id)

    # -- the reviewer: accept or reject a submitted annotation of someone else --------------
    def review(self) -> bool:
        from slicereview.app.review.decisions import decide

        waiting = [a for a in self.rev.annotations.all(phase="formal")
                   if str(a.status) == "submitted" and a.id not in self.reviewed
                   and a.image_id not in self.setup["offline"]]
        if not waiting:
            return False
        ann = self.rng.choice(waiting)
        decision = "accept" if self.rng.random() < 0.7 else "reject"
        tags = ["outline too loose"] if decision == "reject" else []
        self.reviewed.add(ann.id)
        review_id = self._do("review", lambda: decide(
            self.rev, self.reviewer, ann.id, decision, tags, shown=ann.updated_at),
            (ann.id, decision))
        if review_id is not None:
            self.log.reviews.append((int(review_id), ann.id, decision))  # type: ignore
        return True

    # -- offline work merged back: a work package, edited, zipped and merged ----------------
    def merge(self) -> None:
        from slicereview.app import annotating
        from slicereview.app.qa.packages import merge, package, unpack
        from slicereview.store import Project

        if self.package is None:
            out = self.folder / f"{self.ann_name}.zip"
            made = self._do("package", lambda: package(self.ann, self.ann_name, out,
                                                       batch="offline"))
            if made is None:
                return
            self.package = unpack(out).parent
        image = self.offline_left.pop(0)
        self.seq += 1
        label, count = f"m{self.seq}", self.rng.randint(1, 3)
        with Project.open(self.package / "project.srproj") as offline:
            ann = annotating.start(offline, self.me, image)
            annotating.replace_polygons(offline, ann.id, _squares(label, count, self.seq))
            annotating.finish(offline, ann.id, "submitted")
        back = self.folder / f"{self.ann_name}-back{self.seq}.zip"
        with zipfile.ZipFile(back, "w") as zf:
            for file in sorted(self.package.rglob("*")):
                if file.is_file():
                    zf.write(file, file.relative_to(self.package).as_posix())
        report = self._do("merge", lambda: merge(self.ann, back), (image, label))
        if report is not None:
            self.log.merged[image] = (label, count)

    def close(self) -> None:
        self.ann.close()
        self.rev.close()


_START: Any = None


def share_start(barrier: Any) -> None:
    """The initializer of the soak's pool: the barrier every process starts its work at."""
    global _START
    _START = barrier


def desk(url: str, k: int, setup: dict, tag: str, folder: str, seed: int, ops: int) -> Log:
    """Process ``k`` of the soak: ``ops`` operations, begun when every process is connected
    (the pool's barrier, :func:`share_start`); its :class:`Log`."""
    work = Path(folder) / f"desk{k}"
    work.mkdir(parents=True, exist_ok=True)
    desk_ = Desk(url, k, setup, tag, work, seed)
    _START.wait(timeout=300)
    begun = time.perf_counter()
    try:
        for _ in range(ops):
            desk_.step()
    finally:
        desk_.log.seconds = time.perf_counter() - begun
        desk_.close()
    return desk_.log
