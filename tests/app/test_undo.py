"""The Qt-free undo history (slicereview.app.undo): failures leave nothing on the stack and
say why, every attempt is noticed, and a busy file is retried — on a real project file held by
a second connection."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.commands import AddPolygon, DeletePolygon
from slicereview.app.undo import BUSY_MESSAGE, CommandStack, Notice, retry_while_busy
from slicereview.model import NewImage, Polygon
from slicereview.store import Project
from slicereview.store.connection import is_busy

SQUARE = np.array([[1.0, 1.0], [4.0, 1.0], [4.0, 4.0], [1.0, 4.0]])


@pytest.fixture
def project(tmp_path: Path):
    (tmp_path / "x.png").write_bytes(b"")  # (a source's file is looked at, never decoded)
    Project.create(tmp_path / "p.srproj").close()
    project = Project.open(tmp_path / "p.srproj", busy_timeout_s=0.2)
    image = project.images.add_source(tmp_path / "x.png", "0" * 64, "png", [NewImage(8, 8)])[0]
    annotation = project.annotations.for_image(project.raters.add("ann"), image)
    yield project, annotation.id
    project.close()


def test_push_undo_redo_notice_every_attempt(project) -> None:
    project, ann = project
    seen: list[Notice] = []
    states: list[tuple[bool, bool]] = []
    stack = CommandStack(notice=seen.append)
    stack.listeners.append(lambda: states.append((stack.can_undo, stack.can_redo)))
    assert stack.push(AddPolygon(project, ann, Polygon(SQUARE)))
    assert stack.undo_text == "Add polygon" and len(project.polygons.of(ann)) == 1
    assert stack.undo() and project.polygons.of(ann) == []
    assert stack.redo_text == "Add polygon"
    assert stack.redo() and len(project.polygons.of(ann)) == 1
    assert [(n.step, n.error, n.command.changed) for n in seen] == [
        ("apply", None, ("annotation", ann)), ("revert", None, ("annotation", ann)),
        ("apply", None, ("annotation", ann))]
    assert states == [(True, False), (False, True), (True, False)]
    assert not stack.redo()  # nothing to redo: no attempt, no notice
    assert len(seen) == 3


def test_a_failed_write_leaves_nothing_on_the_stack_and_says_why(project) -> None:
    project, ann = project
    seen: list[Notice] = []
    stack = CommandStack(notice=seen.append)
    assert stack.push(AddPolygon(project, ann, Polygon(SQUARE)))
    polygon = project.polygons.of(ann)[0]
    project.polygons.delete(polygon.id)  # gone behind the stack's back
    assert not stack.push(DeletePolygon(project, ann, polygon))
    assert seen[-1].error is stack.error is not None
    assert seen[-1].message.startswith("Delete polygon was not saved: ")
    assert stack.undo_text == "Add polygon"  # the refused delete is not on the stack
    assert not stack.undo()  # reverting the add fails too: it is dropped, not kept for redo
    assert not stack.can_undo and not stack.can_redo


def test_busy_file_is_retried_then_written(project, tmp_path: Path) -> None:
    project, ann = project
    holder = sqlite3.connect(project.path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    waits: list[str] = []

    def write(fn):
        return retry_while_busy(fn, is_busy=is_busy, on_wait=waits.append,
                                ask=lambda _m: True, pause_s=0.05)

    release = threading.Timer(1.0, lambda: holder.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    stack = CommandStack(write)
    assert stack.push(AddPolygon(project, ann, Polygon(SQUARE)))
    release.join()
    holder.close()
    assert time.monotonic() - started >= 0.9
    assert BUSY_MESSAGE in waits and waits[-1] == ""
    assert len(project.polygons.of(ann)) == 1 and stack.can_undo


def test_busy_file_cancelled_is_a_failure(project) -> None:
    project, ann = project
    holder = sqlite3.connect(project.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    asked: list[str] = []

    def write(fn):
        return retry_while_busy(fn, is_busy=is_busy, on_wait=lambda _m: None,
                                ask=lambda m: asked.append(m) is not None, patience_s=0.3,
                                pause_s=0.05)

    stack = CommandStack(write)
    try:
        assert not stack.push(AddPolygon(project, ann, Polygon(SQUARE)))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert asked and is_busy(stack.error) and not stack.can_undo
    assert project.polygons.of(ann) == []
