"""Work functions for tests/gui/common/test_background.py (module level: a spawned child
imports them by name)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path


def count(control, n: int, marker: Path | None = None):
    """Yield ``n`` steps, return ``n``; ``marker`` is written when the generator closes."""
    try:
        for i in range(n):
            yield i, n, f"step {i}"
        return n
    finally:
        if marker is not None:
            marker.write_text(threading.current_thread().name)


def forever(control, marker: Path | None = None):
    """Yield steps until cancelled (closed: ``marker`` says so)."""
    try:
        i = 0
        while True:
            time.sleep(0.01)
            i += 1
            yield i, 0, "running"
    finally:
        if marker is not None:
            marker.write_text("closed")


def checked(control, pid_file: Path) -> str:
    """Report progress and check for Cancel until asked to stop (a plain function)."""
    pid_file.write_text(str(os.getpid()))
    while True:
        control.progress(0, 0, "waiting")
        control.check()
        time.sleep(0.02)


def stubborn(control, pid_file: Path) -> str:
    """Never looks at Cancel: only terminating the process stops it."""
    pid_file.write_text(str(os.getpid()))
    while True:
        time.sleep(0.05)


def fail(control, text: str) -> None:
    raise ValueError(text)


def pid(control) -> int:
    return os.getpid()


def wait_for(control, gate) -> bool:
    """Wait (in a thread worker) until ``gate`` (a threading.Event) is set."""
    return gate.wait(30)
