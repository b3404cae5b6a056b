"""Test set-up shared by every test: Qt runs offscreen, hypothesis is deterministic in CI, and
nothing a test run writes lands outside pytest's temporary folders.

Kept light: collecting the tests imports this first, so it imports nothing heavy (hypothesis
is imported just before the first test module that uses it).

Where files go
--------------
For the whole run, the system temporary folder (``TMPDIR``, :data:`tempfile.tempdir`) and the
user folders that platformdirs names on Linux (``XDG_CONFIG_HOME``, ``XDG_CACHE_HOME``,
``XDG_DATA_HOME``, ``XDG_STATE_HOME``) point into one folder under pytest's base temporary
folder, and so do the child processes the tests start (they inherit the environment). Each
test also gets its own settings folder (``SLICEREVIEW_CONFIG_DIR``), decoder log folder
(``SLICEREVIEW_LOG_DIR``) and DICOMweb cache (``SLICEREVIEW_DICOMWEB_CACHE``). After each test
module, :func:`_nothing_written_to_the_source_tree` fails if a file appeared or changed in the
source tree (screenshots and projects belong in ``tmp_path``); hypothesis' example database
(``.hypothesis/``, ignored by git) is the one folder kept there between runs, so that a local
run replays the examples that failed last time.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")

#: The folders under the sandbox that stand in for the user's (see the module docstring).
XDG = {"XDG_CONFIG_HOME": "config", "XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "data",
       "XDG_STATE_HOME": "state"}


# -- hypothesis --------------------------------------------------------------------------------
def _load_hypothesis_profile() -> None:
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                              database=None)
    settings.register_profile("dev", deadline=None)
    settings.load_profile("ci" if os.environ.get("CI") else "dev")


_profile_loaded = False


def pytest_collectstart(collector: pytest.Collector) -> None:
    """Load the hypothesis profile before the first test module that uses hypothesis is
    imported (``@given`` reads the profile when the module is imported); a run without such
    a module never imports hypothesis (half a second)."""
    global _profile_loaded
    if (not _profile_loaded and isinstance(collector, pytest.Module)
            and b"hypothesis" in collector.path.read_bytes()):
        _load_hypothesis_profile()
        _profile_loaded = True


# -- where files go ----------------------------------------------------------------------------
@pytest.fixture(scope="session", autouse=True)
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The run's stand-in for the system temporary folder and the user's folders."""
    root = tmp_path_factory.mktemp("sandbox", numbered=False)
    temp = root / "tmp"
    temp.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        for variable in ("TMPDIR", "TEMP", "TMP"):
            mp.setenv(variable, str(temp))
        mp.setattr(tempfile, "tempdir", str(temp))
        for variable, name in XDG.items():
            (root / name).mkdir()
            mp.setenv(variable, str(root / name))
        yield root


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory: pytest.TempPathFactory,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's settings (recent projects, window layout), log
    or PACS cache."""
    user = tmp_path_factory.mktemp("user")
    for variable, name in (("SLICEREVIEW_CONFIG_DIR", "config"),
                           # the decoding children's log of what native decoders print (a
                           # child started in this test writes there)
                           ("SLICEREVIEW_LOG_DIR", "log"),
                           ("SLICEREVIEW_DICOMWEB_CACHE", "dicomweb-cache")):
        (user / name).mkdir()
        monkeypatch.setenv(variable, str(user / name))


def _source_files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` but in hidden folders and ``__pycache__``: path -> (size,
    modification time)."""
    found: dict[str, tuple[int, int]] = {}
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith(".") and entry.name != "__pycache__":
                        stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found[entry.path] = (st.st_size, st.st_mtime_ns)
    return found


@pytest.fixture(scope="module", autouse=True)
def _nothing_written_to_the_source_tree(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the module whose tests left a file in the source tree or changed one."""
    root = request.config.rootpath
    before = _source_files(root)
    yield
    after = _source_files(root)
    changed = sorted(os.path.relpath(path, root) for path in after.keys() | before.keys()
                     if after.get(path) != before.get(path))
    if changed:
        pytest.fail(f"{request.node.nodeid} wrote in the source tree (use tmp_path): "
                    f"{', '.join(changed[:10])}", pytrace=False)


@pytest.hookimpl(tryfirst=True)  # (before ``-m`` deselects by marker)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs :func:`demo_project` is in the slow tier: building the demo takes
    17-35 s on two busy cores, and the default run then never builds it."""
    for item in items:
        if "demo_project" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, built once per test run (real mammograms, MRI, simulated raters)."""
    from slicereview.demo.project import build_demo

    return build_demo(tmp_path_factory.mktemp("demo"))
