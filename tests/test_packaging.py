"""Packaging: pyproject's package list, the wheel's contents, the entry points, the Linux files.

These tests read the source tree (pyproject.toml, packaging/); they are skipped where it is
not present next to the tests.
"""

from __future__ import annotations

import configparser
import importlib.metadata
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

import slicereview

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = REPO / "pyproject.toml"
PACKAGING = REPO / "packaging"

pytestmark = pytest.mark.skipif(
    not (PYPROJECT.is_file() and (REPO / "slicereview").is_dir()),
    reason="needs the source tree",
)


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def _source_packages() -> set[str]:
    found = set()
    for init in (REPO / "slicereview").rglob("__init__.py"):
        if "__pycache__" in init.parts:
            continue
        found.add(".".join(init.parent.relative_to(REPO).parts))
    return found


def _source_modules() -> set[str]:
    """Wheel paths of every module in the source tree (resources mapped as installed)."""
    paths = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "slicereview").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    paths |= {f"slicereview/resources/{p.name}" for p in (REPO / "resources").glob("*.py")}
    return paths


# -- pyproject ---------------------------------------------------------------------------------
def test_packages_list_matches_source_tree(pyproject: dict):
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    assert listed == _source_packages() | {"slicereview.resources"}, (
        "pyproject.toml [tool.setuptools] packages is out of date: "
        f"missing {sorted(_source_packages() - listed)}, "
        f"stale {sorted(listed - _source_packages() - {'slicereview.resources'})}"
    )
    assert pyproject["tool"]["setuptools"]["package-dir"] == {"slicereview.resources": "resources"}
    assert (REPO / "resources" / "__init__.py").is_file()


def test_every_folder_with_modules_is_a_package():
    # A folder of .py files without __init__.py would be silently left out of the wheel.
    for py in (REPO / "slicereview").rglob("*.py"):
        if "__pycache__" not in py.parts:
            assert (py.parent / "__init__.py").is_file(), f"{py.parent} lacks __init__.py"


def test_resource_files_are_declared_package_data(pyproject: dict):
    patterns = pyproject["tool"]["setuptools"]["package-data"]["slicereview.resources"]
    for path in (REPO / "resources").iterdir():
        if path.is_file() and path.suffix != ".py":
            assert any(path.match(p) for p in patterns), f"{path.name} would not be shipped"


def test_runtime_dependencies(pyproject: dict):
    from packaging.requirements import Requirement

    deps = [Requirement(d) for d in pyproject["project"]["dependencies"]]
    by_name = {d.name.lower(): d for d in deps}
    assert str(by_name["pyside6-essentials"].specifier) in {"<6.12,>=6.9", ">=6.9,<6.12"}
    for name in ("pyqtgraph", "numpy", "scipy", "scikit-image", "pydicom", "simpleitk",
                 "platformdirs", "shapely", "onnxruntime", "scikit-learn"):
        assert name in by_name, name
    # onnx builds the tests' small models only: a test extra, never a runtime dependency.
    assert "onnx" not in by_name
    assert "onnx" in {Requirement(d).name for d in pyproject["project"]["optional-dependencies"]
                      ["test"]}
    # GPL packages are never runtime dependencies (krippendorff is a test oracle only;
    # pylibjpeg-libjpeg is not listed anywhere).
    everything = deps + [
        Requirement(d) for extra in pyproject["project"]["optional-dependencies"].values()
        for d in extra
    ]
    assert "krippendorff" not in by_name
    assert "pylibjpeg-libjpeg" not in {d.name.lower() for d in everything}
    assert pyproject["project"]["license"] == "BSD-3-Clause"


def test_installed_metadata_matches_pyproject(pyproject: dict):
    assert importlib.metadata.version("slicereview") == pyproject["project"]["version"]
    assert slicereview.__version__ == pyproject["project"]["version"]
    scripts = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="gui_scripts")}
    assert scripts.get("slicereview") == "slicereview.launcher:main"


def test_python_m_slicereview_version(tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-m", "slicereview", "--version"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"slicereview {slicereview.__version__}"


def test_version_does_not_import_qt(tmp_path: Path):
    code = (
        "import sys; from slicereview.launcher import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


# -- the wheel ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("setuptools", minversion="77")
    # Build from a copy so that setuptools' build/ and *.egg-info never land in the work tree.
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "slicereview", src / "slicereview", ignore=ignore)
    shutil.copytree(REPO / "resources", src / "resources", ignore=ignore)
    out = tmp_path_factory.mktemp("wheel")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=900,
    )
    print(f"wheel built in {time.perf_counter() - start:.1f} s")
    assert proc.returncode == 0, proc.stderr[-3000:]
    (found,) = out.glob("slicereview-*.whl")
    return found


@pytest.mark.slow
def test_wheel_contains_every_module_and_resource(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = _source_modules() - names
    assert not missing, f"modules missing from the wheel: {sorted(missing)}"
    for resource in ("slicereview.svg", "slicereview.qss",
                     *(f"slicereview-{s}.png" for s in (16, 32, 64, 256))):
        assert f"slicereview/resources/{resource}" in names, resource
    # Nothing from the tests, the packaging folder or the top-level resources/ path.
    assert not [n for n in names if n.startswith(("tests/", "packaging/", "resources/"))]


@pytest.mark.slow
def test_wheel_metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as zf:
        info = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = zf.read(info).decode()
        entry_points = zf.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "Requires-Dist: PySide6-Essentials<6.12,>=6.9" in metadata
    assert "License-Expression: BSD-3-Clause" in metadata
    assert "[gui_scripts]\nslicereview = slicereview.launcher:main" in entry_points


@pytest.mark.slow
def test_wheel_resources_found_when_installed(wheel: Path, tmp_path: Path):
    # Unpack the wheel as an installation would and find the resources through
    # importlib.resources from a clean interpreter that cannot see the source tree.
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    code = (
        "import slicereview.app.resources as r, sys;"
        "p = r.resource_path('slicereview-256.png');"
        "print(p); print(len(r.read_text('slicereview.qss')))"
    )
    # -S: no site-packages, so neither the editable install's finder nor the source tree can
    # answer; the unpacked wheel on PYTHONPATH is all there is (the module is stdlib-only).
    env = {**os.environ, "PYTHONPATH": str(target)}
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    path, length = proc.stdout.split()
    assert Path(path).is_relative_to(target), path
    assert Path(path).is_file() and int(length) > 100


# -- Linux desktop integration and the PyInstaller spec ----------------------------------------
def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read(PACKAGING / "slicereview.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_file_fields():
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "slicereview %f"
    assert entry["Icon"] == "slicereview"
    assert "application/x-slicereview-project" in entry["MimeType"].split(";")
    assert entry["Terminal"] == "false"


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="needs desktop-file-validate (apt-get install desktop-file-utils)")
def test_desktop_file_validates():
    proc = subprocess.run(["desktop-file-validate", str(PACKAGING / "slicereview.desktop")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def test_mime_xml_matches_project_format():
    from slicereview.store.project import SUFFIX
    from slicereview.store.schema import APPLICATION_ID

    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    root = ET.parse(PACKAGING / "slicereview-mime.xml").getroot()
    (mime,) = root.findall("m:mime-type", ns)
    assert mime.get("type") == "application/x-slicereview-project"
    assert [g.get("pattern") for g in mime.findall("m:glob", ns)] == [f"*{SUFFIX}"]
    outer = mime.find("m:magic/m:match", ns)
    inner = outer.find("m:match", ns)
    assert (outer.get("offset"), outer.get("value")) == ("0", "SQLite format 3")
    assert inner.get("offset") == "68" and int(inner.get("value"), 0) == APPLICATION_ID


def test_qt_recognises_a_project_with_the_mime_xml(tmp_path: Path):
    # Qt reads freedesktop mime packages from $XDG_DATA_DIRS/mime/packages/*.xml: install ours
    # into a private data dir and ask QMimeDatabase about a real project, also renamed.
    from slicereview.store import Project

    (tmp_path / "share" / "mime" / "packages").mkdir(parents=True)
    shutil.copy(PACKAGING / "slicereview-mime.xml", tmp_path / "share" / "mime" / "packages")
    Project.create(tmp_path / "study.srproj").close()
    shutil.copy(tmp_path / "study.srproj", tmp_path / "no-suffix")
    code = (
        "import sys; from PySide6.QtCore import QCoreApplication, QMimeDatabase;"
        "app = QCoreApplication([]); db = QMimeDatabase();"
        "[print(db.mimeTypeForFile(p).name()) for p in sys.argv[1:]]"
    )
    env = {**os.environ, "XDG_DATA_DIRS": str(tmp_path / "share"),
           "XDG_DATA_HOME": str(tmp_path / "empty"), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "study.srproj"), str(tmp_path / "no-suffix")],
        capture_output=True, text=True, env=env, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["application/x-slicereview-project"] * 2


def test_pyinstaller_spec_is_valid_python_and_names_the_entry_point():
    spec = (PACKAGING / "slicereview.spec").read_text(encoding="utf-8")
    compile(spec, "slicereview.spec", "exec")
    launcher = (PACKAGING / "launcher.py").read_text(encoding="utf-8")
    assert "from slicereview.launcher import main" in launcher
    assert "launcher.py" in spec and '"slicereview/resources"' in spec
    assert '"krippendorff"' in spec and '"tests"' in spec  # excluded from the bundle
    # The model engines' libraries are named (imported inside functions), not excluded.
    assert '"onnxruntime"' in spec and '"sklearn.ensemble"' in spec
    assert '"sklearn",' not in spec
    # The build itself and the commands run from it: tests/test_standalone_build.py.
