"""What the window does when the connection of an open server project breaks.

The store makes the connection again by itself on the next call
(:meth:`~slicereview.store.postgres.PostgresDatabase.reconnect`); between its attempts it asks
the front end whether to go on. Here the window answers (:func:`watch`): it says what happens
(:attr:`ProjectGateway.reconnecting <slicereview.gui.gateway.ProjectGateway.reconnecting>`, the
status bar), keeps repainting without taking the user's input (no second edit starts), and
gives up after :data:`PATIENCE_S`: the write is then refused with a message, nothing of it
saved, and the banner of :class:`~.server_watch.ServerWatch` says when the server is back;
the views' re-reads after that write wait for it too (:func:`later`, :func:`back`).
Right after a call gave up, the next calls try once and give up without waiting again
(:data:`DOWN_S`), so a view's re-read after the refused write does not freeze the window twice.

A write whose ``COMMIT`` got no answer is neither repeated nor said lost: the window asks the
server again every second (:func:`settle_later`); when the connection is back the store reads
what became of it and the window says so (saved after all, or not saved) and re-reads what it
shows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

from slicereview.store import Project
from slicereview.store.postgres_link import Outage

if TYPE_CHECKING:
    from slicereview.gui.gateway import ProjectGateway

#: How long a call of the window waits for a lost server before it gives up (seconds).
PATIENCE_S = 5.0
#: After a call gave up, calls within this time give up after one attempt (no second wait
#: right after the first), unless the window's listener finds the server back sooner.
DOWN_S = 10.0


def watch(project: Project, gateway: ProjectGateway) -> None:
    """Answer the reconnection questions of ``project``'s server connection for ``gateway``."""
    db = project.db

    def wait(outage: Outage) -> bool:
        go_on = (outage.elapsed_s + outage.pause_s <= gateway.server_patience_s
                 and time.monotonic() >= gateway.server_down_until)
        gateway.reconnecting.emit(outage.message if go_on else "")
        if not go_on:
            return False
        deadline = time.monotonic() + outage.pause_s
        while time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
            time.sleep(0.02)
        return True

    def settled(committed: bool) -> None:
        gateway.reconnecting.emit("")
        gateway.write_failed.emit(
            "The connection to the server is back. The change made when it was lost was "
            + ("saved after all." if committed else "not saved; do it again if still wanted."))
        gateway.changed_elsewhere.emit()

    db.wait_for_server = wait  # type: ignore[attr-defined]
    db.on_settled = settled  # type: ignore[attr-defined]


def given_up(gateway: ProjectGateway) -> None:
    """A call gave up waiting for the server: the next ones try once, without waiting."""
    gateway.server_down_until = time.monotonic() + DOWN_S


def settle_later(gateway: ProjectGateway) -> None:
    """A write's fate is not known yet: every second, until the server answers, make the
    connection again (one attempt), which reads the fate and tells :func:`watch`'s
    ``settled``."""
    project = gateway.project

    def again() -> None:
        if gateway.project is not project or project is None:
            return  # closed meanwhile
        if getattr(project.db, "unsettled", None) is None:
            return
        try:
            project.data_version()
        except Exception:  # still away
            QTimer.singleShot(1000, gateway, again)

    QTimer.singleShot(1000, gateway, again)


def later(gateway: ProjectGateway, read: Callable[[], object]) -> None:
    """Run ``read`` (a view's re-read after a write) when the server answers again."""
    gateway.rereads.append(read)


def back(gateway: ProjectGateway, text: str) -> None:
    """The listener's connection state changed; ``""``: the server answers again, and the
    re-reads that waited for it run."""
    if text:
        return
    gateway.server_down_until = 0.0
    waiting, gateway.rereads = gateway.rereads, []
    for read in waiting:
        if gateway.is_open:
            gateway.settle(read)
