"""Every shared library of Qt's X11 (xcb) platform plugin is installed.

Qt reports any missing one as "xcb-cursor0 is needed" and aborts, so a missing
``libxcb-icccm4`` looks like a missing ``libxcb-cursor0``. The README's Quick start and
``.ci/run`` list the Debian packages; this test fails with the names of the libraries that
``ldd`` cannot find.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("ldd") is None,
    reason="ldd and the xcb plugin exist on Linux only")


def _qt_dir() -> Path:
    import PySide6

    return Path(PySide6.__file__).parent / "Qt"


def _missing(library: Path) -> list[str]:
    out = subprocess.run(["ldd", str(library)], capture_output=True, text=True, timeout=60,
                         check=True).stdout
    return [line.split("=>")[0].strip() for line in out.splitlines() if "not found" in line]


@pytest.mark.parametrize("relative", ["plugins/platforms/libqxcb.so", "lib/libQt6XcbQpa.so.6"])
def test_xcb_plugin_libraries_resolve(relative: str) -> None:
    library = _qt_dir() / relative
    if not library.is_file():
        pytest.skip(f"this PySide6 build has no {relative}")
    missing = _missing(library)
    assert not missing, (f"{library.name} needs {', '.join(missing)}: install the packages "
                         "listed in the README's Quick start")


def test_readme_and_ci_list_the_same_packages() -> None:
    root = Path(__file__).resolve().parents[2]
    readme, ci = root / "README.md", root / ".ci" / "run"
    if not readme.is_file() or not ci.is_file():
        pytest.skip("not a source checkout")
    quick = readme.read_text(encoding="utf-8").split("sudo apt-get install", 1)[1]
    wanted = set(quick.split("```", 1)[0].replace("\\", " ").split())
    assert {"libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"} <= wanted
    assert wanted <= set(ci.read_text(encoding="utf-8").replace("\\", " ").split())
