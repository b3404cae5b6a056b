"""Every command people run, from the stand-alone build (issue 31: the build test ran about
ten of them): ``import`` (files and ``--dicomweb`` from a real Orthanc), ``rate``, ``ranking``,
``reliability``, ``plan-rating``, the QA commands (``people``, ``questions``, ``guidelines``,
``batch``, ``claim``, ``onboarding``, ``repeats``, ``selection``, ``audit``), ``review``,
``package``/``merge`` (the zip and the unpacked folder), ``relink``, ``export --stow`` to the
Orthanc, and the server extra: ``new URL``, ``copy`` to a PostgreSQL database, ``info`` and
``open --screenshot`` of the server project.

The build and its demo come from tests/test_standalone_build.py (opt-in as there:
``SLICEREVIEW_TEST_PYINSTALLER``). ``SLICEREVIEW_TEST_COMMANDS=source`` runs the same commands
with the installed ``slicereview`` instead (a quick check of the commands themselves).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from pydicom.data import get_testdata_file

from slicereview.store import Project
from tests.test_standalone_build import OPT_IN, SPEC, app, demo  # noqa: F401 (fixtures)

SOURCE = os.environ.get("SLICEREVIEW_TEST_COMMANDS") == "source"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (OPT_IN or SOURCE),
                       reason="set SLICEREVIEW_TEST_PYINSTALLER=1 to build (slow)"),
    pytest.mark.skipif(not SPEC.is_file(), reason="needs the source tree"),
]

ANNOTATOR = "Simulated annotator A (careful)"
REVIEWER = "Simulated reviewer"


@pytest.fixture(scope="module")
def cli(request, tmp_path_factory) -> list[str]:
    """How to run a command: the build's ``slicereview-cli``, or the installed one."""
    if SOURCE:
        return [sys.executable, "-m", "slicereview"]
    return [str(request.getfixturevalue("app") / "slicereview-cli")]


@pytest.fixture(scope="module")
def project(cli, request, tmp_path_factory) -> Path:
    """A copy of the demo project (built by the build itself), to change."""
    folder = tmp_path_factory.mktemp("commands")
    if SOURCE:
        run(cli, "demo", "--no-gui", "--dir", str(folder / "demo"), cwd=folder)
        return folder / "demo" / "demo.srproj"
    source = request.getfixturevalue("demo")
    shutil.copytree(source.parent, folder / "demo")
    return folder / "demo" / "demo.srproj"


def run(cli: list[str], *args: str, cwd: Path, env: dict | None = None, code: int = 0,
        timeout: float = 600) -> subprocess.CompletedProcess:
    environ = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})}
    if not SOURCE:
        environ.pop("PYTHONPATH", None)  # the build, never the source tree
    start = time.perf_counter()
    proc = subprocess.run([*cli, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=environ, stdin=subprocess.DEVNULL)
    print(f"{' '.join(args[:2])}: {time.perf_counter() - start:.1f} s")
    assert proc.returncode == code, f"{args}: {proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc


def test_rating_commands(cli, project: Path, tmp_path: Path) -> None:
    listed = run(cli, "rate", "list", str(project), cwd=tmp_path).stdout
    assert "sort" in listed and "confidence" in listed
    run(cli, "rate", "status", str(project), "1", cwd=tmp_path)
    made = run(cli, "rate", "new", str(project), "--kind", "sort", "--rater",
               "Simulated rater 2 (noisy)", "--image-set", "Mammograms", "--name",
               "from the build", cwd=tmp_path).stdout
    assert "'from the build' (sort, 8 images)" in made
    run(cli, "ranking", str(project), "1", "--csv", str(tmp_path / "ranking.csv"), cwd=tmp_path)
    assert (tmp_path / "ranking.csv").read_text().count("\n") > 5
    run(cli, "ranking", str(project), "--pooled", "--sessions", "1", "2", cwd=tmp_path)
    out = run(cli, "reliability", str(project), "1", "2", "--randomisations", "50",
              cwd=tmp_path).stdout
    assert "24 common images" in out
    out = run(cli, "plan-rating", str(project), "--images", "20", "--noise", "0.1",
              "--seeds", "2", cwd=tmp_path).stdout
    assert "plan:" in out and "comparisons per image" in out


def test_qa_and_review_commands(cli, project: Path, tmp_path: Path) -> None:
    p = str(project)
    assert ANNOTATOR in run(cli, "people", "list", p, cwd=tmp_path).stdout
    run(cli, "people", "add", p, "newcomer", "--role", "annotator", cwd=tmp_path)
    run(cli, "questions", "list", p, cwd=tmp_path)
    run(cli, "guidelines", p, cwd=tmp_path)
    assert "pre-filter" in run(cli, "onboarding", p, "--batch", "Onboarding",
                               cwd=tmp_path).stdout
    run(cli, "repeats", "list", p, "--batch", "Formal", cwd=tmp_path)
    run(cli, "selection", p, "--batch", "Formal", cwd=tmp_path)
    run(cli, "audit", "set", p, "--share", "0.05", "--owner", "Study owner", cwd=tmp_path)
    assert "R@20" in run(cli, "audit", "show", p, cwd=tmp_path).stdout
    run(cli, "batch", p, "claimed", "--phase", "formal", "--cases", "C000003,C000004",
        "--annotators", "newcomer", "--per-image", "1", cwd=tmp_path)
    assert "C000003" in run(cli, "claim", p, "--batch", "claimed", "--annotator", "newcomer",
                            cwd=tmp_path).stdout
    shown = run(cli, "review", "show", p, "--case", "C000001", cwd=tmp_path).stdout
    assert ANNOTATOR in shown
    assert "accepted" in run(cli, "review", "accept", p, "--case", "C000001", "--reviewer",
                             REVIEWER, "--annotator", ANNOTATOR, cwd=tmp_path).stdout
    run(cli, "queue", p, "--csv", str(tmp_path / "queue.csv"), cwd=tmp_path)


def test_import_package_merge_relink(cli, project: Path, tmp_path: Path) -> None:
    from PIL import Image

    images = tmp_path / "pngs"
    images.mkdir()
    for k in range(3):
        Image.new("L", (64, 48), 40 * k + 20).save(images / f"img{k}.png")
    made = tmp_path / "made.srproj"
    run(cli, "import", str(made), str(images), "--create", cwd=tmp_path)
    with Project.open(made) as opened:
        assert len(opened.images.all()) == 3
    moved = tmp_path / "moved"
    shutil.move(str(images), moved)
    run(cli, "relink", str(made), str(moved), cwd=tmp_path)
    with Project.open(made) as opened:
        assert not opened.images.missing_sources()

    p = str(project)
    out = tmp_path / "ann.zip"
    run(cli, "package", p, "--annotator", ANNOTATOR, "--out", str(out), cwd=tmp_path)
    run(cli, "info", str(out), cwd=tmp_path)
    run(cli, "merge", p, str(out), cwd=tmp_path)
    folder = tmp_path / "ann"
    with zipfile.ZipFile(out) as zipped:
        zipped.extractall(folder)
    merged = run(cli, "merge", p, str(folder), cwd=tmp_path).stdout  # the unpacked folder too
    assert "merged" in merged


def test_pacs_import_and_stow(cli, project: Path, tmp_path: Path) -> None:
    from tests.orthanc_server import PASSWORD, USER, start

    server = start(tmp_path / "orthanc")
    try:
        server.upload(get_testdata_file("CT_small.dcm"))
        env = {"SLICEREVIEW_DICOMWEB_USER": USER, "SLICEREVIEW_DICOMWEB_PASSWORD": PASSWORD,
               "SLICEREVIEW_DICOMWEB_CACHE": str(tmp_path / "cache")}
        pacs = tmp_path / "pacs.srproj"
        run(cli, "import", str(pacs), "--create", "--dicomweb", server.dicomweb, cwd=tmp_path,
            env=env)
        with Project.open(pacs) as opened:
            assert len(opened.images.all()) == 1
        run(cli, "export", str(project), "--masks", str(tmp_path / "seg"), "--format",
            "dicom-seg", "--stow", server.dicomweb, cwd=tmp_path, env=env)
    finally:
        server.stop()


def test_server_project(cli, project: Path, tmp_path: Path, postgres_cluster) -> None:
    from PIL import Image

    empty = postgres_cluster.new_database("built")
    copied = postgres_cluster.new_database("copied")
    try:
        run(cli, "new", empty, "--name", "Made by the build", cwd=tmp_path)
        assert "Made by the build" in run(cli, "info", empty, cwd=tmp_path).stdout
        run(cli, "copy", str(project), copied, cwd=tmp_path, timeout=900)
        assert "images" in run(cli, "info", copied, cwd=tmp_path).stdout
        shot = tmp_path / "server.png"
        run(cli, "open", copied, "--screenshot", str(shot), "--tab", "review", cwd=tmp_path)
        assert Image.open(shot).size == (1400, 900)
    finally:
        postgres_cluster.drop_database(empty)
        postgres_cluster.drop_database(copied)
