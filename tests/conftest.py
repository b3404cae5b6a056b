"""Test set-up shared by every test: Qt runs offscreen, hypothesis is deterministic in CI."""

from __future__ import annotations

import inspect
import itertools
import os
import re
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_LOGGING_RULES", "qt.qpa.*=false")

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """No test reads or writes the real user's settings (recent projects, window layout)."""
    monkeypatch.setenv("SLICEREVIEW_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
    # The decoding children's log of what native decoders print (a child started in this
    # test writes there).
    monkeypatch.setenv("SLICEREVIEW_LOG_DIR", str(tmp_path_factory.mktemp("log")))
    # The file cache of images a server project holds (fetched from the database).
    monkeypatch.setenv("SLICEREVIEW_FILE_CACHE", str(tmp_path_factory.mktemp("file-cache")))


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory) -> Path:
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


def pytest_collection_modifyitems(config, items):
    """Refuse a store/app/CLI test that makes or opens a project without `location` (it would
    run on SQLite only) unless it says why with `@pytest.mark.file_only(reason)`."""
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
    cluster = Cluster(bin_dir)
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
