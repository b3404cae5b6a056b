"""The check of Qt's X11 libraries names what is missing, before Qt aborts misleadingly.

The missing libraries are real: each test runs slicereview in a private mount namespace
(``unshare``) where an overlay over the system's library folder deletes
``libxcb-icccm.so.4`` and ``libxcb-keysyms.so.1`` (the two a fresh Ubuntu lacked), so the
dynamic loader and ``ldd`` really cannot find them; nothing changes outside the namespace.
Without the check, Qt aborts there with "xcb-cursor0 or libxcb-cursor0 is needed".
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slicereview.app import platform_check
from slicereview.app.environment import no_display_reason

HIDDEN = ("libxcb-icccm.so.4", "libxcb-keysyms.so.1")


@pytest.mark.parametrize(("environ", "platform", "expected"), [
    ({}, "linux", True),
    ({"XDG_SESSION_TYPE": "x11"}, "linux", True),
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", True),
    ({"QT_QPA_PLATFORM": "xcb:no_grab"}, "linux", True),
    ({"QT_QPA_PLATFORM": "xcb;wayland", "XDG_SESSION_TYPE": "wayland"}, "linux", True),
    ({"XDG_SESSION_TYPE": "wayland"}, "linux", False),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, "linux", False),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", False),
    ({}, "darwin", False),
    ({}, "win32", False),
])
def test_xcb_expected(environ: dict[str, str], platform: str, expected: bool) -> None:
    assert platform_check.xcb_expected(environ, platform) is expected


def test_packages_of_missing_libraries() -> None:
    deb, rpm = platform_check.packages(["libxcb-cursor.so.0", "libxcb-randr.so.0",
                                        "libxcb-shm.so.0", "libEGL.so.1", "libfoo2.so.3"])
    assert deb == ["libxcb-cursor0", "libxcb-randr0", "libxcb-shm0", "libegl1", "libfoo2-3"]
    assert rpm == ["xcb-util-cursor", "libxcb", "libglvnd-egl", "'libfoo2.so.3()(64bit)'"]


def test_nothing_to_check_off_xcb() -> None:
    assert platform_check.missing_libraries_reason({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert no_display_reason(screenshot=Path("shot.png")) is None


# -- a library really missing ------------------------------------------------------------------
def _library_folder() -> Path:
    plugin = platform_check.xcb_plugin()
    if plugin is None or shutil.which("ldd") is None or shutil.which("unshare") is None:
        pytest.skip("needs Linux with PySide6's xcb plugin, ldd and unshare")
    out = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=60).stdout
    found = re.search(rf"{re.escape(HIDDEN[0])} => (/\S+)", out)
    assert found, f"{HIDDEN[0]} is not installed: {out}"
    return Path(found.group(1)).resolve().parent


def _hidden_run(tmp_path: Path, command: list[str], env: dict[str, str],
                hidden: tuple[str, ...] = HIDDEN) -> subprocess.CompletedProcess:
    """Run ``command`` where the ``hidden`` libraries do not exist (see the module doc)."""
    folder = _library_folder()
    upper, work = tmp_path / "upper", tmp_path / "work"
    upper.mkdir(exist_ok=True)
    work.mkdir(exist_ok=True)
    doomed = {folder / name for name in hidden} | {(folder / name).resolve() for name in hidden}
    q = shlex.quote
    script = (f"mount -t overlay overlay -o lowerdir={q(str(folder))},upperdir={q(str(upper))},"
              f"workdir={q(str(work))} {q(str(folder))} && "
              f"rm -f {' '.join(q(str(p)) for p in sorted(doomed))} && exec \"$@\"")
    # As root a mount namespace suffices (and works where user namespaces are restricted).
    unshare = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-r", "-m"]
    probe = subprocess.run([*unshare, "sh", "-c", script, "sh", "true"], capture_output=True,
                           text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace with overlayfs here: {probe.stderr.strip()}")
    return subprocess.run([*unshare, "sh", "-c", script, "sh", *command], capture_output=True,
                          text=True, timeout=300, env=env, cwd=tmp_path)


def _x11_env(tmp_path: Path, path: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    # A display nobody serves: should the check let Qt start, Qt fails on it (and the test).
    env.update(DISPLAY=":987", SLICEREVIEW_CONFIG_DIR=str(tmp_path / "config"))
    if path is not None:
        env["PATH"] = path
    return env


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
@pytest.mark.parametrize("command", ["demo", "open"])
def test_missing_libraries_are_named_before_qt_starts(tmp_path: Path, command: str) -> None:
    args = ["--dir", str(tmp_path / "demo")] if command == "demo" else []
    run = _hidden_run(tmp_path, [sys.executable, "-m", "slicereview", command, *args],
                      _x11_env(tmp_path))
    assert run.returncode == 2, run.stderr
    assert "xcb-cursor0" not in run.stderr.replace("that xcb-cursor0 is needed", "")
    assert "Aborted" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    lines = run.stderr.strip().splitlines()
    assert lines[0].startswith("slicereview: error: Qt cannot open a window"), run.stderr
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in lines[0]
    assert lines[1].strip() == "sudo apt-get install libxcb-icccm4 libxcb-keysyms1"
    assert lines[2].strip() == "on Fedora/RHEL: sudo dnf install xcb-util-wm xcb-util-keysyms"
    assert not (tmp_path / "demo").exists()  # said before the demo build, not after it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_without_ldd_the_loader_names_the_first(tmp_path: Path) -> None:
    # ldd lists every missing library; without it (not on PATH) the loader's own error names
    # the first one it could not open.
    code = ("from slicereview.app.platform_check import missing_libraries, xcb_plugin;"
            "print(missing_libraries(xcb_plugin()))")
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("unshare", "sh", "mount", "rm"):
        (bare / tool).symlink_to(shutil.which(tool) or f"/bin/{tool}")
    with_ldd = _hidden_run(tmp_path, [sys.executable, "-c", code], _x11_env(tmp_path))
    without = _hidden_run(tmp_path, [sys.executable, "-c", code],
                          _x11_env(tmp_path, path=str(bare)))
    assert with_ldd.stdout.strip() == str(list(HIDDEN)), with_ldd.stderr
    assert without.stdout.strip() in (str([HIDDEN[0]]), str([HIDDEN[1]])), without.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_many_missing_libraries_are_counted_and_every_package_named(tmp_path: Path) -> None:
    hidden = (*HIDDEN, "libxcb-cursor.so.0", "libxcb-image.so.0", "libxcb-util.so.1",
              "libxcb-render-util.so.0", "libxkbcommon-x11.so.0")
    run = _hidden_run(tmp_path, [sys.executable, "-m", "slicereview", "open"],
                      _x11_env(tmp_path), hidden)
    assert run.returncode == 2, run.stderr
    first, apt = run.stderr.strip().splitlines()[:2]
    assert "needs 7 libraries (" in first and "and 4 more)" in first
    assert set(apt.split()[3:]) == {"libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0",
                                    "libxcb-image0", "libxcb-util1", "libxcb-render-util0",
                                    "libxkbcommon-x11-0"}
