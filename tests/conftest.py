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
(``SLICEREVIEW_LOG_DIR``), DICOMweb cache (``SLICEREVIEW_DICOMWEB_CACHE``) and verdicts of
checked project files (``SLICEREVIEW_CHECKED_DIR``). One exception:
run as root, the session's PostgreSQL cluster (run as the ``postgres`` user, who cannot enter
pytest's private folders) lives in the system temporary folder and is deleted at the end of
the session. After each test
module, :func:`_nothing_written_to_the_source_tree` fails if a file appeared or changed in the
source tree (screenshots and projects belong in ``tmp_path``); hypothesis' example database
(``.hypothesis/``, ignored by git) is the one folder kept there between runs, so that a local
run replays the examples that failed last time.
"""

from __future__ import annotations

import inspect
import itertools
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")

#: The system temporary folder, before :func:`sandbox` points it into pytest's base temporary
#: folder (only the PostgreSQL cluster of a run as root goes there: :func:`postgres_cluster`).
_SYSTEM_TEMP = tempfile.gettempdir()

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


# -- waits for a condition never fail because the machine is busy -----------------------------
#: The least time a qtbot wait (``waitUntil``, ``waitSignal``, ...) waits before it fails, in
#: milliseconds. A wait ends as soon as its condition holds, so a long floor costs nothing when
#: the test passes; a short ``timeout=`` in a test is a guess at the machine's speed, and the
#: suite must pass beside two busy processes (docs/contributing.md, "Run the tiers"). Only
#: benchmarks measure speed. ``SLICEREVIEW_TEST_WAIT_MS`` sets another floor.
WAIT_FLOOR_MS = int(os.environ.get("SLICEREVIEW_TEST_WAIT_MS", "60000"))


def _patient(original):  # type: ignore[no-untyped-def]
    import functools

    @functools.wraps(original)
    def wait(self, *args, timeout: int = 5000, **kwargs):  # type: ignore[no-untyped-def]
        return original(self, *args, timeout=max(int(timeout), WAIT_FLOOR_MS), **kwargs)

    return wait


def pytest_configure(config: pytest.Config) -> None:
    """Give every qtbot wait at least :data:`WAIT_FLOOR_MS` (pytest-qt is loaded already)."""
    try:
        from pytestqt.qtbot import QtBot
    except ImportError:  # (pytest-qt is a test extra; without it no test uses qtbot)
        return
    for name in ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed",
                 "waitActive"):
        original = getattr(QtBot, name)
        if not getattr(original, "patient", False):
            patient = _patient(original)
            patient.patient = True
            setattr(QtBot, name, patient)


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
    PACS cache or server file cache."""
    user = tmp_path_factory.mktemp("user")
    for variable, name in (("SLICEREVIEW_CONFIG_DIR", "config"),
                           # the decoding children's log of what native decoders print (a
                           # child started in this test writes there)
                           ("SLICEREVIEW_LOG_DIR", "log"),
                           ("SLICEREVIEW_DICOMWEB_CACHE", "dicomweb-cache"),
                           # the file cache of images a server project holds (fetched from
                           # the database)
                           ("SLICEREVIEW_FILE_CACHE", "file-cache"),
                           # the project files found healthy (store/verdicts.py)
                           ("SLICEREVIEW_CHECKED_DIR", "checked")):
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


@pytest.fixture
def spawned_children_import_tests() -> Iterator[None]:
    """Let ``spawn`` children import work functions defined under ``tests/``.

    A spawned child starts with the parent's ``sys.path``, and pytest imports test modules
    without putting the repository on it. The repository is appended, not prepended, so that
    the children (and this process) keep importing slicereview from where the tests run it —
    the installed package in CI — never from the source tree in front of it.
    """
    root = str(Path(__file__).resolve().parent.parent)
    added = root not in sys.path
    if added:
        sys.path.append(root)
    yield
    if added and root in sys.path:
        sys.path.remove(root)


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, built once per test run (real mammograms, MRI, simulated raters)."""
    from slicereview.demo.project import build_demo

    return build_demo(tmp_path_factory.mktemp("demo"))


# -- projects on both backends ---------------------------------------------------------------
# Every store, app, CLI and demo test that works on a project takes its location from the
# `location` fixture and so runs twice: on a project file (`sqlite`) and on a PostgreSQL
# database (`postgres`, a throwaway cluster of the session: tests/postgres_cluster.py). A test
# of what only a project file has (its bytes, lock file, journal) is marked `file_only`; the
# check below refuses a test that makes a project any other way.

#: Where the check of `pytest_collection_modifyitems` applies.
_BOTH_BACKENDS_DIRS = ("store", "app", "cli", "demo")
_MAKES_A_PROJECT = re.compile(r"Project\.(create|open)\(|\.srproj|demo_project|"
                              r"\bbuild\(|\"new\"")


@pytest.hookimpl(tryfirst=True)  # (before ``-m`` deselects by marker)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Two rules of the suite, applied to every collected test (slow ones included):

    * a test that needs :func:`demo_project` is in the slow tier: building the demo takes
      17-35 s on two busy cores, and the default run then never builds it;
    * refuse a store/app/CLI test that makes or opens a project without `location` (it would
      run on SQLite only) unless it says why with `@pytest.mark.file_only(reason)`.
    """
    for item in items:
        if "demo_project" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    unchecked = []
    for item in items:
        parts = Path(str(item.path)).parts
        if "tests" not in parts or parts[parts.index("tests") + 1] not in _BOTH_BACKENDS_DIRS:
            continue
        names = getattr(item, "fixturenames", ())
        parametrised = {"location", "module_backend", "postgres_cluster"} & set(names)
        if parametrised or item.get_closest_marker("file_only") or item.get_closest_marker(
                "benchmark"):
            continue
        function = getattr(item, "function", None)
        if function is None:
            continue
        if _MAKES_A_PROJECT.search(inspect.getsource(function)):
            unchecked.append(item.nodeid)
    if unchecked:
        raise pytest.UsageError(
            "these tests make a project without the `location` fixture (so they would run on "
            "SQLite only); use it, or mark them file_only(reason):\n  " + "\n  ".join(unchecked))


@pytest.fixture(scope="session")
def postgres_cluster():
    """A PostgreSQL cluster for the session; missing PostgreSQL fails the tests in CI."""
    from tests.postgres_cluster import Cluster, find_bin

    bin_dir = find_bin()
    if bin_dir is None:
        why = ("PostgreSQL is not installed (Debian/Ubuntu: apt-get install postgresql; or set "
               "SLICEREVIEW_PG_BIN to the folder of initdb and pg_ctl)")
        if os.environ.get("CI"):
            pytest.fail(f"CI runs every test on PostgreSQL too: {why}", pytrace=False)
        pytest.skip(why)
    # The one folder a run makes outside pytest's base temporary folder: when the tests run as
    # root the server runs as the postgres user, who cannot enter pytest's folders (private to
    # the user running the tests), so the cluster goes to the system temporary folder. It is
    # deleted when the session ends.
    cluster = Cluster(bin_dir, Path(_SYSTEM_TEMP) if os.geteuid() == 0 else None)
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request) -> str:
    return request.param


@pytest.fixture
def location(backend, tmp_path, request):
    """``location(name)``: the location of a new project for this test -- ``tmp_path / name``
    on SQLite, a new empty database on PostgreSQL (dropped after the test). The same name
    gives the same location."""
    cluster = request.getfixturevalue("postgres_cluster") if backend == "postgres" else None
    made: dict[str, object] = {}

    def new(name: str = "p.srproj"):
        if name not in made:
            made[name] = tmp_path / name if cluster is None else cluster.new_database()
        return made[name]

    yield new
    if cluster is not None:
        for url in made.values():
            cluster.drop_database(url)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def module_backend(request) -> str:
    """The backend of a module-scoped project (built once per module and backend)."""
    return request.param


@pytest.fixture(scope="session")
def on_backend(request):
    """``on_backend(backend, path)``: the project file ``path`` itself on SQLite; on PostgreSQL
    a copy of it in a new database (``slicereview copy``), made once per file."""
    from slicereview.store.copying import copy_project

    copies: dict[Path, str] = {}

    def location(backend: str, path: Path):
        if backend == "sqlite":
            return path
        if path not in copies:
            copies[path] = request.getfixturevalue("postgres_cluster").new_database("m")
            copy_project(path, copies[path])
        return copies[path]

    return location


@pytest.fixture
def demo_location(demo_project, location):
    """A copy of the demo project on this test's backend, to change at will: a file beside
    the demo's (its image paths are relative), or a new database."""
    from slicereview.store.copying import copy_project

    target = location("demo-copy.srproj")
    if not isinstance(target, str):
        target = demo_project.parent / f"demo-copy-{os.getpid()}-{next(_DEMO_COPIES)}.srproj"
    copy_project(demo_project, target)
    yield target
    if not isinstance(target, str):
        target.unlink(missing_ok=True)


_DEMO_COPIES = itertools.count()
