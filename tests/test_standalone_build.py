"""The stand-alone build (``packaging/slicereview.spec``) runs what its users run.

Every command below runs from the built program, on the demo project the built program makes:
the demo itself, ``queue``, ``report`` (matplotlib's figures), ``review-eval --plot``, ``stats
alpha`` and ``stats icc`` (the agreement engines' lazily loaded names), ``export`` (PNG, NIfTI
DICOM SEG and SR with highdicom), and ``open --screenshot`` on every tab. Missing data files,
stubs and hidden imports show up only here.

Slow (the build alone takes 3.5–5.5 minutes on two busy cores): opt-in locally with
``SLICEREVIEW_TEST_PYINSTALLER=1`` (or the path of an existing ``dist/slicereview`` folder to
test that build); ``.ci/run`` always runs it. Needs the ``build`` extra (PyInstaller) and the
``demo`` extra (the images the build bundles).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import slicereview

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

