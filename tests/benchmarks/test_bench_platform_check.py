"""The check of Qt's X11 libraries costs start-up nothing measurable.

:func:`slicereview.app.platform_check.missing_libraries_reason` loads Qt's xcb plugin with
``dlopen`` before the application exists; Qt loads the same libraries a moment later, so the
time from the start to a created ``QApplication`` on X11 should not change. Measured in fresh
subprocesses on a private Xvfb server (``QT_QPA_PLATFORM=xcb``): 9 rounds, each running
"check, then QApplication" and "QApplication" alone in turns; asserts the median of the rounds'
ratios ≤ 1.10 (measured 1.00 on the shared 2-core test machine).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.benchmark,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 is Linux's here"),
]

RUNS = 9
STARTUP = """
import sys, time
import slicereview.launcher  # imported by the entry point before the check runs
from slicereview.app.environment import no_display_reason
t0 = time.perf_counter()
if sys.argv[1] == "check":
    assert no_display_reason() is None
from PySide6.QtWidgets import QApplication
app = QApplication([])
print(time.perf_counter() - t0)
"""


@pytest.fixture(scope="module")
def x_display() -> Iterator[str]:
    """A private Xvfb server (Unix socket only) for this module's runs."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install xvfb (.ci/run)")
        pytest.skip("needs Xvfb (apt-get install xvfb)")
    server = subprocess.Popen([xvfb, "-displayfd", "1", "-nolisten", "tcp", "-screen", "0",
                               "640x480x24"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert server.stdout is not None
        number = server.stdout.readline().strip().decode()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(30)


def test_check_adds_nothing_to_the_time_to_an_application(x_display: str,
                                                          tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env.update(QT_QPA_PLATFORM="xcb", DISPLAY=x_display)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    ratios, checked, bare = [], [], []
    for _ in range(RUNS):
        times = {}
        for mode in ("check", "bare"):
            out = subprocess.run([sys.executable, "-c", STARTUP, mode], capture_output=True,
                                 text=True, env=env, cwd=tmp_path, timeout=120, check=True)
            times[mode] = float(out.stdout.strip().splitlines()[-1])
        checked.append(times["check"])
        bare.append(times["bare"])
        ratios.append(times["check"] / times["bare"])
    print(f"\nto QApplication on X11: with the check {statistics.median(checked):.3f} s, "
          f"without {statistics.median(bare):.3f} s; median ratio "
          f"{statistics.median(ratios):.2f}")
    assert statistics.median(ratios) <= 1.10
