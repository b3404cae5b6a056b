"""The test suite's own rules: quick to collect, doctests run once, nothing written outside
pytest's temporary folders.

* Collecting the tests imports every test module; the independent libraries the tests check
  against (pingouin, statsmodels, scikit-learn, …) are slow to import, so a test imports them
  where it uses them, never at module level; the conftest files import nothing heavy.
* The package's docstring examples run once per run, as pytest's doctests of ``slicereview``
  (``--doctest-modules``; see the pytest settings in pyproject.toml); the modules listed in
  :data:`EXAMPLES` must keep theirs.
* tests/conftest.py points the system temporary folder and the user's folders into pytest's base
  temporary folder for the whole run, child processes included, and fails a test module that
  writes into the source tree.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import os
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: Libraries that slicereview does not import when its modules are imported (measured with
#: ``python -X importtime -m pytest --co -q -s``); a test module importing one at module level
#: makes every collection pay for it.
HEAVY = ("pingouin", "statsmodels", "scipy.stats", "sklearn", "krippendorff", "nibabel",
         "SimpleITK", "skimage", "pandas", "matplotlib", "choix", "tifffile", "psycopg")

EXAMPLES = [
    "slicereview.store.repeats",
    "slicereview.app.qa.repeats",
    "slicereview.app.review.queue",
    "slicereview.demo.review",
    *(f"slicereview.engines.agreement.{name}" for name in (
        "alpha", "segmentation", "overlap", "icc", "g_study", "consensus", "consensus_masks",
        "staple_em", "labelstudio")),
    "slicereview.engines.review.metrics",
    "slicereview.engines.review.rankstats",
    *(f"slicereview.engines.imaging.{name}" for name in (
        "display", "dicom", "dicom_meta", "errors", "file_checks", "formats", "importer",
        "isolated", "limits", "loader", "raster", "volume")),
    *(f"slicereview.engines.dicomweb.{name}" for name in ("http", "multipart", "client",
                                                           "cache")),
    *(f"slicereview.engines.dicomout.{name}" for name in ("common", "seg", "sr")),
]


def _test_sources() -> dict[str, str]:
    return {str(path.relative_to(TESTS)): path.read_text("utf-8")
            for path in sorted(TESTS.rglob("*.py")) if "__pycache__" not in path.parts}


# -- quick to collect --------------------------------------------------------------------------
def _module_level_imports(source: str) -> list[str]:
    """The modules a file imports outside functions and classes (``if TYPE_CHECKING:``
    blocks left out: they never run)."""
    names: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for inner in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(inner, ast.Import):
                names += [alias.name for alias in inner.names]
            elif isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                names += [inner.module] + [f"{inner.module}.{alias.name}"
                                           for alias in inner.names]
    return names


def test_no_test_module_imports_a_heavy_oracle_at_module_level() -> None:
    def heavy(module: str) -> bool:
        return any(module == h or module.startswith(h + ".") for h in HEAVY)

    found = {name: modules for name, source in _test_sources().items()
             if (modules := sorted(filter(heavy, _module_level_imports(source))))}
    assert found == {}, ("import these inside the tests (or fixtures) that use them: "
                         f"{found}")


def test_the_conftest_files_import_nothing_heavy() -> None:
    script = ("import sys; import tests.conftest, tests.gui.conftest; "
              "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(TESTS.parent), os.environ.get("PYTHONPATH", "")])}
    loaded = set(subprocess.run([sys.executable, "-c", script], capture_output=True,
                                text=True, check=True, env=env,
                                cwd=TESTS.parent).stdout.split())
    assert loaded.isdisjoint({"hypothesis", "PySide6", "numpy", "slicereview", "scipy"}), (
        loaded & {"hypothesis", "PySide6", "numpy", "slicereview", "scipy"})


# -- doctests once -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_module_keeps_its_runnable_examples(name: str) -> None:
    """(Finding them imports the module but runs nothing.)"""
    module = importlib.import_module(name)
    examples = sum(len(test.examples) for test in doctest.DocTestFinder().find(module))
    assert examples > 0, f"{name} has lost its docstring examples"


def test_the_package_doctests_run_once(pytestconfig: pytest.Config) -> None:
    """``slicereview`` is a test path and its doctests are collected there; no test module
    runs them a second time with ``doctest.testmod``."""
    assert "slicereview" in pytestconfig.getini("testpaths")
    assert pytestconfig.getoption("doctestmodules")
    again = [name for name, source in _test_sources().items()
             if "testmod(" in source and name != Path(__file__).name]
    assert again == [], f"these run the package's doctests a second time: {again}"


# -- nothing written outside pytest's temporary folders ----------------------------------------
def test_no_test_names_a_fixed_folder_in_the_system_temp_dir() -> None:
    path = re.compile(r"""["']/tmp/|Path\(["']/tmp["']\)""")
    fixed = [name for name, source in _test_sources().items()
             if path.search(source) and name != Path(__file__).name]
    assert fixed == [], f"use tmp_path (or tmp_path_factory) instead of /tmp in {fixed}"


def test_temporary_and_user_folders_are_inside_pytest_s_base_temp(
        sandbox: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    import platformdirs

    base = tmp_path_factory.getbasetemp()
    assert sandbox.is_relative_to(base)
    assert Path(tempfile.gettempdir()).is_relative_to(sandbox)
    assert Path(tempfile.mkdtemp()).is_relative_to(sandbox)
    for variable in ("SLICEREVIEW_CONFIG_DIR", "SLICEREVIEW_LOG_DIR",
                     "SLICEREVIEW_DICOMWEB_CACHE", "SLICEREVIEW_FILE_CACHE"):
        assert Path(os.environ[variable]).is_relative_to(base), variable
    if platform.system() == "Linux":  # (platformdirs follows the XDG variables there)
        for folder in (platformdirs.user_config_dir("slicereview"),
                       platformdirs.user_cache_dir("slicereview"),
                       platformdirs.user_data_dir("slicereview"),
                       platformdirs.user_log_dir("slicereview"),
                       platformdirs.user_state_dir("slicereview")):
            assert Path(folder).is_relative_to(sandbox), folder


def test_a_child_process_writes_inside_pytest_s_base_temp_too(sandbox: Path) -> None:
    script = ("import tempfile, platformdirs; print(tempfile.gettempdir()); "
              "print(platformdirs.user_data_dir('slicereview'))")
    lines = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    assert Path(lines[0]).is_relative_to(sandbox)
    if platform.system() == "Linux":
        assert Path(lines[1]).is_relative_to(sandbox)
