"""The stand-alone build (``packaging/slicereview.spec``) runs what its users run.

Every command below runs from the built program, on the demo project the built program makes:
the demo itself, ``queue``, ``report`` (matplotlib's figures), ``review-eval --plot``, ``stats
alpha`` and ``stats icc`` (the agreement engines' lazily loaded names), ``export`` (PNG, NIfTI
DICOM SEG and SR with highdicom), and ``open --screenshot`` on every tab; then (issue 31: the
test ran about ten commands) every other command people run: ``import`` (files and
``--dicomweb`` from a real Orthanc), ``rate``, ``ranking``, ``reliability``, ``plan-rating``, the
QA commands, ``review``, ``package``/``merge`` (the zip and the unpacked folder), ``relink``,
``export --stow`` to the Orthanc, and the server extra: ``new URL``, ``copy`` to a PostgreSQL
database, ``info`` and ``open --screenshot`` of the server project. Missing data files, stubs
and hidden imports show up only here (dicognito's release notes did: ``package`` failed).

Slow (the build alone takes 3.5–5.5 minutes on two busy cores): opt-in locally with
``SLICEREVIEW_TEST_PYINSTALLER=1`` (or the path of an existing ``dist/slicereview`` folder to
test that build); ``.ci/run`` always runs it. Needs the ``build`` extra (PyInstaller) and the
``demo`` extra (the images the build bundles).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from pydicom.data import get_testdata_file

import slicereview
from slicereview.store import Project

REPO = Path(__file__).resolve().parent.parent
SPEC = REPO / "packaging" / "slicereview.spec"
OPT_IN = os.environ.get("SLICEREVIEW_TEST_PYINSTALLER", "")
TABS = ("view", "annotate", "rate", "review", "overview")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not OPT_IN, reason="set SLICEREVIEW_TEST_PYINSTALLER=1 to build (slow)"),
    pytest.mark.skipif(not SPEC.is_file(), reason="needs the source tree"),
]

# [Krippendorff2011], "Computing Krippendorff's alpha-reliability": 4 observers, 12 units,
# nominal alpha 0.743. [ShroutFleiss1979, Table 2]: ICC(2,1) = 0.29.
KRIPPENDORFF_2011 = """obs,u1,u2,u3,u4,u5,u6,u7,u8,u9,u10,u11,u12
A,1,2,3,3,2,1,4,1,2,,,
B,1,2,3,3,2,2,4,1,2,5,,3
C,,3,3,3,2,3,4,2,2,5,1,
D,1,2,3,3,2,4,4,1,2,5,1,
"""
SHROUT_FLEISS_1979 = """target,J1,J2,J3,J4
img1,9,2,5,8
img2,6,1,3,2
img3,8,4,6,8
img4,7,1,2,6
img5,10,5,6,9
img6,6,2,4,7
"""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one-folder build, made now (its time and size printed) or the one OPT_IN names."""
    if OPT_IN not in ("1", "true", "yes"):
        folder = Path(OPT_IN)
        assert (folder / "slicereview").is_file(), f"no build in {folder}"
        return folder
    pytest.importorskip("PyInstaller")
    work = tmp_path_factory.mktemp("pyinstaller")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
         "--workpath", str(work / "build"), "--distpath", str(work / "dist"), str(SPEC)],
        capture_output=True, text=True, timeout=2400,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    folder = work / "dist" / "slicereview"
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    print(f"\nstand-alone build: {time.perf_counter() - start:.0f} s, {size / 2**20:.0f} MiB")
    return folder


def _run(app: Path, *args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env.pop("PYTHONPATH", None)  # the build, never the source tree
    start = time.perf_counter()
    proc = subprocess.run([str(app / "slicereview-cli"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env)
    print(f"{' '.join(args[:2])}: {time.perf_counter() - start:.1f} s")
    assert proc.returncode == 0, f"{args}: {proc.stderr[-3000:]}"
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc


@pytest.fixture(scope="module")
def demo(app: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, built by the stand-alone program from the images it bundles."""
    folder = tmp_path_factory.mktemp("frozen-demo")
    _run(app, "demo", "--no-gui", "--dir", str(folder / "demo"), cwd=folder)
    return folder / "demo" / "demo.srproj"


def test_version_and_contents(app: Path, tmp_path: Path) -> None:
    proc = _run(app, "--version", cwd=tmp_path)
    assert proc.stdout.strip() == f"slicereview {slicereview.__version__}"
    internal = app / "_internal"
    assert list(internal.rglob("slicereview/resources/slicereview.qss"))
    assert list(internal.rglob("slicereview/engines/agreement/__init__.pyi"))
    assert list(internal.rglob("matplotlib/mpl-data/matplotlibrc"))
    # the brush and eraser's polygon booleans: shapely and its GEOS library (imported on the
    # first stroke only, so no command below would notice them missing)
    assert list(internal.rglob("shapely/lib*")) and list(internal.rglob("libgeos*"))
    # Nothing from the tests, no GPL oracle, none of what docs/packaging.md says is left out.
    # The model engines' libraries are in (onnxruntime, scikit-learn); onnx, the tests' model
    # builder, is not.
    assert list(internal.rglob("onnxruntime/capi")) and list(internal.rglob("sklearn/tree"))
    for name in ("krippendorff*", "pingouin*", "onnx", "pytest*", "pandas*", "tests",
                 "libgtk-3*", "translations", "libqeglfs*"):
        assert not list(internal.rglob(name)), name
    assert not [p for p in app.rglob("*") if p.is_symlink() and not p.exists()], "dangling"
    if sys.platform.startswith("linux"):
        assert (app / "slicereview-cli").resolve() == (app / "slicereview").resolve()


def test_queue_and_review_eval(app: Path, demo: Path, tmp_path: Path) -> None:
    _run(app, "queue", str(demo), "--csv", str(tmp_path / "queue.csv"), cwd=tmp_path)
    rows = (tmp_path / "queue.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) > 10 and rows[0].startswith("rank")
    proc = _run(app, "review-eval", str(demo), "--plot", str(tmp_path / "eval.png"),
                cwd=tmp_path)
    assert "P@20" in proc.stdout and (tmp_path / "eval.png").stat().st_size > 10_000


def test_report(app: Path, demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    _run(app, "report", str(demo), "--out", str(out), cwd=tmp_path)
    html = out.read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 2, "the report's matplotlib figures"


def test_stats(app: Path, tmp_path: Path) -> None:
    (tmp_path / "alpha.csv").write_text(KRIPPENDORFF_2011)
    (tmp_path / "icc.csv").write_text(SHROUT_FLEISS_1979)
    proc = _run(app, "stats", "alpha", "alpha.csv", cwd=tmp_path)
    assert "Krippendorff's alpha (nominal): 0.743" in proc.stdout
    proc = _run(app, "stats", "icc", "icc.csv", cwd=tmp_path)
    (row,) = [line.split() for line in proc.stdout.splitlines() if line.startswith("ICC(2,1)")]
    assert float(row[1]) == pytest.approx(0.29, abs=0.005)


def test_export(app: Path, demo: Path, tmp_path: Path) -> None:
    import pydicom

    for fmt in ("png", "nifti", "dicom-seg"):
        _run(app, "export", str(demo), "--masks", str(tmp_path / fmt), "--format", fmt,
             cwd=tmp_path)
    assert len(list((tmp_path / "png").rglob("*.png"))) >= 8
    assert list((tmp_path / "nifti").rglob("*.nii.gz"))
    _run(app, "export", str(demo), "--reports", str(tmp_path / "sr"), "--format", "dicom-sr",
         cwd=tmp_path)
    # highdicom's SEGs of the demo mammograms' annotations and SRs of their reviews
    for folder, pattern, modality in (("dicom-seg", "*.seg.dcm", "SEG"), ("sr", "*.sr.dcm", "SR")):
        written = sorted((tmp_path / folder).glob(pattern))
        assert len(written) >= 8, f"no {modality}: {sorted((tmp_path / folder).iterdir())}"
        assert pydicom.dcmread(written[0]).Modality == modality


@pytest.mark.parametrize("tab", TABS)
def test_screenshot_of_every_tab(app: Path, demo: Path, tmp_path: Path, tab: str) -> None:
    from PIL import Image

    shot = tmp_path / f"{tab}.png"
    _run(app, "open", str(demo), "--screenshot", str(shot), "--tab", tab, cwd=tmp_path)
    pixels = np.asarray(Image.open(shot).convert("L"))
    assert pixels.shape == (900, 1400) and pixels.std() > 10, "an empty window"


# -- every other command people run (issue 31) ------------------------------------------------
ANNOTATOR = "Simulated annotator A (careful)"
REVIEWER = "Simulated reviewer"


@pytest.fixture(scope="module")
def cli(app: Path) -> list[str]:
    """How the commands below run: the build's ``slicereview-cli``."""
    return [str(app / "slicereview-cli")]


@pytest.fixture(scope="module")
def project(demo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo project the build made, for the commands that change it."""
    folder = tmp_path_factory.mktemp("commands")
    shutil.copytree(demo.parent, folder / "demo")
    return folder / "demo" / "demo.srproj"


def run(cli: list[str], *args: str, cwd: Path, env: dict | None = None, code: int = 0,
        timeout: float = 600) -> subprocess.CompletedProcess:
    environ = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env or {})}
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
