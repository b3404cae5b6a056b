"""A slow server in the main window (a login's ``statement_timeout``): *Next image to
annotate* while its claim waits for a lock another connection holds (the annotator's claim
lock) says, in the status bar, that the server is slow while it retries, then one sentence in
the panel when the user cancels -- never a traceback; once the lock is free the same button
claims the image. (A read the server cancels reaches the window's message box as the same
sentence: ``gui/window/uncaught.py`` shows a project's error as it is.)"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt

from slicereview.app.images.importing import import_paths
from slicereview.app.people import add_login
from slicereview.app.qa.workflow import define_batch
from slicereview.model import Role
from slicereview.store import Project, ServerTimeoutError
from slicereview.store.postgres import CLAIM_LOCK
from tests.app.server_soak import as_login

_TAGS = itertools.count()


def test_a_statement_timeout_is_said_in_the_window_and_the_claim_works_after(
        qtbot, open_window, tmp_path: Path, postgres_cluster) -> None:
    import psycopg
    from skimage import io

    url = postgres_cluster.new_database("slowgui")
    name = f"slowgui{os.getpid()}x{next(_TAGS)}"
    folder = tmp_path / "images"
    folder.mkdir()
    io.imsave(folder / "a.png", np.full((40, 30), 1000, np.uint16), check_contrast=False)
    with Project.create(url) as owner:
        import_paths(owner, [folder / "a.png"])
        rater = add_login(owner, name, Role.ANNOTATOR)[0]
        define_batch(owner, "claims", "formal", [1], raters=[rater], annotators_per_image=1)
    database = url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'ALTER ROLE "{name}" IN DATABASE "{database}" SET statement_timeout = '
                     "'150ms'")
    holder = psycopg.connect(url, autocommit=True)
    try:
        w = open_window(as_login(url, name))
        w.tabs.setCurrentWidget(w.annotate_page)
        page, claims = w.annotate_page, w.annotate_page.claims
        qtbot.waitUntil(lambda: page.acting_id == rater)
        said: list[str] = []
        asked: list[str] = []
        w.gateway.project_busy.connect(said.append)
        w.gateway.busy_patience_s = 0.5
        w.gateway.ask_retry = lambda message: asked.append(message) or False
        holder.execute("SELECT pg_advisory_lock(%s, %s)", (CLAIM_LOCK, rater))
        qtbot.mouseClick(claims.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: claims.notice.text() != "", timeout=60_000)
        notice = claims.notice.text()
        assert notice.startswith("No image was claimed: The server stopped the statement")
        assert "statement_timeout allows (150ms for this login)" in notice
        assert "Traceback" not in notice and "QueryCanceled" not in notice
        assert ServerTimeoutError.waiting in said and asked  # (retried, then asked)
        assert page.image_id != 1 or page.annotation is None
        holder.execute("SELECT pg_advisory_unlock(%s, %s)", (CLAIM_LOCK, rater))  # free
        qtbot.mouseClick(claims.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: page.image_id == 1 and claims.notice.text() == "",
                        timeout=30_000)
        assert claims.claimed == {1: False}
        w.close()
    finally:
        holder.close()
        postgres_cluster.drop_database(url)
