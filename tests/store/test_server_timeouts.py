"""A statement the server cancels (a login's ``statement_timeout``) reaches the user as one
sentence, never a traceback; a read and a claim, which changed nothing, are sent again first;
a write that was cancelled saves nothing and says so.

The server is made slow without a clock: another connection holds an ``ACCESS EXCLUSIVE``
lock of the table a statement needs, so the statement waits for it until the login's
``statement_timeout`` (set with ``ALTER ROLE ... SET``) cancels it; releasing the lock once
the first attempt was cancelled lets the next one through. No test asserts a duration.
"""

from __future__ import annotations

import itertools
import os
import threading
from contextlib import contextmanager

import numpy as np
import pytest

from slicereview.app.people import add_login
from slicereview.app.qa.workflow import define_batch
from slicereview.launcher import main
from slicereview.model import NewImage, Polygon, Role
from slicereview.store import Project, ServerTimeoutError
from tests.app.server_soak import as_login

_TAGS = itertools.count()


@pytest.fixture
def url(postgres_cluster):
    made = postgres_cluster.new_database("timeout")
    yield made
    postgres_cluster.drop_database(made)


def _project(url: str, folder, timeout: str) -> tuple[str, int]:
    """A project with an annotator's login whose statements the server cancels after
    ``timeout``, a batch ``b`` handed out by claims; the login and its rater."""
    import psycopg

    name = f"slow{os.getpid()}x{next(_TAGS)}"
    (folder / "x.png").write_bytes(b"x")
    with Project.create(url) as owner:
        owner.images.add_source(folder / "x.png", "0" * 64, "png", [NewImage(8, 8)])
        rater = add_login(owner, name, Role.ANNOTATOR)[0]
        define_batch(owner, "b", "formal", [1], raters=[rater], annotators_per_image=1)
    database = url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'ALTER ROLE "{name}" IN DATABASE "{database}" SET statement_timeout = '
                     f"'{timeout}'")
    return name, rater


@contextmanager
def _locked(url: str, table: str):
    """Hold an ACCESS EXCLUSIVE lock of ``table`` until the block ends (or ``release``)."""
    import psycopg

    conn = psycopg.connect(url)
    conn.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
    try:
        yield conn
    finally:
        conn.rollback()
        conn.close()


def test_a_statement_timeout_is_one_sentence_in_info_and_claim(url, tmp_path, capsys):
    name, _ = _project(url, tmp_path, "150ms")
    mine = as_login(url, name)
    for table, argv in (("images", ["info", mine]),
                        ("slots", ["claim", mine, "--batch", "b", "--annotator", name])):
        with _locked(url, table):
            assert main(argv) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "QueryCanceled" not in err
        [line] = err.strip().splitlines()
        assert "statement_timeout" in line and "150ms for this login" in line
        assert "3 times" in line  # (a read, and a claim, were sent again first)
    assert main(["claim", mine, "--batch", "b", "--annotator", name]) == 0  # (nothing held)
    assert "C000001" in capsys.readouterr().out


def _after_first_cancel(url: str, pid: int, release: threading.Event) -> threading.Thread:
    """Watch server process ``pid``: once it waited for a lock, was cancelled and sent its
    statement again, set ``release``."""
    import psycopg

    def watch() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            first = None
            for _ in range(60_000):  # (polls; the test's patience, not a measured time)
                row = conn.execute("SELECT query_start, wait_event_type FROM pg_stat_activity "
                                   "WHERE pid = %s", (pid,)).fetchone()
                if row is not None and row[1] == "Lock":
                    if first is None:
                        first = row[0]
                    elif row[0] != first:
                        break
                threading.Event().wait(0.005)
        release.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("what", ["read", "claim"])
def test_a_cancelled_read_or_claim_is_sent_again(url, tmp_path, what):
    name, rater = _project(url, tmp_path, "1s")
    with Project.open(as_login(url, name)) as mine:
        pid = mine.db.conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        release = threading.Event()
        with _locked(url, "images" if what == "read" else "slots") as holder:
            watcher = _after_first_cancel(url, pid, release)
            got: list = []
            worker = threading.Thread(target=lambda: got.append(
                [i.id for i in mine.images.all()] if what == "read"
                else mine.slots.claim(1, rater)))
            worker.start()
            assert release.wait(120)
            holder.rollback()  # the second attempt gets through
            worker.join(120)
            watcher.join(120)
        assert got == [[1]] if what == "read" else got == [1]


def test_a_cancelled_write_saves_nothing_and_says_so(url, tmp_path):
    from slicereview.app import annotating

    name, rater = _project(url, tmp_path, "150ms")
    square = Polygon(np.array([[1, 1], [4, 1], [4, 4], [1, 4]], float), "certain")
    with Project.open(as_login(url, name)) as mine:
        work = annotating.start(mine, rater, 1)
        with _locked(url, "polygons"), pytest.raises(ServerTimeoutError,
                                                     match="nothing was changed"):
            annotating.replace_polygons(mine, work.id, [square])
        assert mine.polygons.of(work.id) == []
        annotating.replace_polygons(mine, work.id, [square])  # (again, once it is free)
        assert len(mine.polygons.of(work.id)) == 1
