"""Every shared library of Qt's X11 (xcb) platform plugin is installed, and named right.

Qt reports any missing one as "xcb-cursor0 is needed" and aborts, so a missing
``libxcb-icccm4`` looks like a missing ``libxcb-cursor0``. The README's Quick start and
``.ci/run`` install :data:`slicereview.app.platform_check.APT_PACKAGES`; these tests fail with
the names of the libraries that ``ldd`` cannot find, and check that the runtime check
(``tests/app/test_platform_check.py``) would name the package that really holds each library.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slicereview.app import platform_check

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("ldd") is None,
    reason="ldd and the xcb plugin exist on Linux only")


def _qt_dir() -> Path:
    import PySide6

    return Path(PySide6.__file__).parent / "Qt"


def _ldd(library: Path) -> str:
    return subprocess.run(["ldd", str(library)], capture_output=True, text=True, timeout=60,
                          check=True).stdout


@pytest.mark.parametrize("relative", ["plugins/platforms/libqxcb.so", "lib/libQt6XcbQpa.so.6"])
def test_xcb_plugin_libraries_resolve(relative: str) -> None:
    library = _qt_dir() / relative
    if not library.is_file():
        pytest.skip(f"this PySide6 build has no {relative}")
    missing = platform_check.parse_ldd(_ldd(library))
    assert not missing, (f"{library.name} needs {', '.join(missing)}: install the packages "
                         "listed in the README's Quick start")


def test_the_runtime_check_finds_the_plugin_and_nothing_missing() -> None:
    plugin = platform_check.xcb_plugin()
    assert plugin == _qt_dir() / "plugins" / "platforms" / "libqxcb.so"
    assert platform_check.missing_libraries(plugin) == []
    assert platform_check.missing_libraries_reason({"QT_QPA_PLATFORM": "xcb"}) is None


def _owner(path: str) -> str | None:
    """The Debian package that installed ``path`` (dpkg knows /lib and /usr/lib apart)."""
    real = Path(path).resolve()
    for candidate in dict.fromkeys([path, str(real), str(real).replace("/usr/lib/", "/lib/")]):
        out = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if out.returncode == 0:
            return out.stdout.split(":")[0]
    return None


@pytest.mark.slow  # 6 s
@pytest.mark.skipif(shutil.which("dpkg") is None, reason="needs dpkg (Debian/Ubuntu)")
def test_every_library_outside_qt_maps_to_the_package_that_holds_it() -> None:
    # Every system library the plugin loads, directly or through Qt and other libraries: the
    # package the check would name is the one dpkg says installed the file (Ubuntu 24.04's
    # 64-bit time packages add "t64" to a name and still answer to the old one).
    plugin = _qt_dir() / "plugins" / "platforms" / "libqxcb.so"
    resolved = re.findall(r"^\s*(\S+) => (/\S+)", _ldd(plugin), re.MULTILINE)
    system = [(name, path) for name, path in resolved if not Path(path).resolve().is_relative_to(
        _qt_dir().resolve())]
    assert len(system) > 20, system
    wrong = {}
    for name, path in system:
        owner = _owner(path)
        named = platform_check.packages([name])[0][0]
        if owner is not None and owner.split(":")[0].removesuffix("t64") != named:
            wrong[name] = (named, owner)
    assert not wrong, f"library: (named, dpkg owner) {wrong}"
    direct = [name for name, _ in system if name.startswith(("libxcb", "libX11", "libxkb"))]
    assert set(direct) <= set(platform_check.LIBRARY_PACKAGES), direct


def _command(text: str, start: str, end: str = "\n") -> set[str]:
    """The words after ``start`` up to ``end`` (lines joined at a trailing backslash)."""
    tail = text.split(start, 1)[1].replace("\\\n", " ").replace("#", " ")
    return set(tail.split(end, 1)[0].split()) - {"-y"}


def test_readme_and_ci_list_the_packages_of_the_check() -> None:
    root = Path(__file__).resolve().parents[2]
    readme, ci = root / "README.md", root / ".ci" / "run"
    if not readme.is_file() or not ci.is_file():
        pytest.skip("not a source checkout")
    # The Quick start's command 1 itself installs the libraries (a user copying the block gets
    # a window), then makes the environment and runs the demo.
    block = readme.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("```", 2)[1]
    command_1 = block.split("# 2.", 1)[0]
    assert _command(command_1, "sudo apt-get install") == {
        "python3-venv", *platform_check.APT_PACKAGES}
    lines = [line for line in command_1.splitlines() if line and not line.startswith(("#", " "))]
    assert lines[-2:] == ["python3 -m venv .venv && . .venv/bin/activate",
                          'python -m pip install ".[demo,codecs]" && slicereview demo']
    assert _command(command_1, "sudo dnf install", ";") == {
        "python3", *platform_check.DNF_PACKAGES}
    assert set(platform_check.APT_PACKAGES) <= _command(
        ci.read_text(encoding="utf-8"), "install -y -qq --no-install-recommends", ">")
    # Every library of the table has its package in the lists, so "install the README's
    # line" and "install what the check names" agree.
    deb = {d for d, _ in platform_check.LIBRARY_PACKAGES.values()}
    rpm = {r for _, r in platform_check.LIBRARY_PACKAGES.values()}
    assert deb - {"libc6", "libgcc-s1", "libstdc++6", "zlib1g", "libzstd1", "libfreetype6",
                  "libglvnd0", "libbrotli1"} \
        == set(platform_check.APT_PACKAGES)
    assert rpm - {"glibc", "libgcc", "libstdc++", "zlib", "libzstd", "freetype", "libxcb",
                  "libX11", "libxkbcommon", "libglvnd", None} == set(platform_check.DNF_PACKAGES)
