"""``slicereview report``: the HTML file stands alone and opens in a real headless browser."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image as PILImage

from slicereview.cli import main
from tests.app.qa_project import build

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def qa_path(tmp_path_factory, module_backend, on_backend):
    return on_backend(module_backend, build(tmp_path_factory.mktemp("qa_cli")))


@pytest.mark.slow  # 3 s
def test_report_command_and_subsets(qa_path: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(qa_path), "--out", str(out), "--without-group", "A0"]) == 0
    text = out.read_text()
    assert "all annotators except group A0" in text
    assert "http://" not in text and "https://" not in text and "<script" not in text
    assert main(["report", str(qa_path), "--out", str(out), "--annotators", "a2-1,nobody"]) == 2
    assert "no annotator named nobody" in capsys.readouterr().err
    assert main(["report", str(qa_path), "--out", str(out), "--group", "A9"]) == 2
    assert "needs two annotators" in capsys.readouterr().err


@pytest.mark.slow  # 3 s
def test_report_opens_in_headless_chromium(qa_path: Path, tmp_path: Path) -> None:
    browser = next((b for b in BROWSERS if shutil.which(b)), None)
    if browser is None:
        pytest.skip("no chromium binary found: apt-get install -y chromium (Debian) to run "
                    "the report in a real browser")
    out = tmp_path / "report.html"
    assert main(["report", str(qa_path), "--out", str(out)]) == 0
    shot = tmp_path / "report.png"
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
         "--window-size=1200,2000", out.as_uri()],
        check=True, capture_output=True, timeout=120)
    pixels = np.asarray(PILImage.open(shot).convert("L"), dtype=float)
    assert pixels.shape == (2000, 1200)
    assert pixels.var() > 100                      # text, tables and plots, not a blank page
    # the embedded plots drew: coloured pixels (histogram bars) somewhere on the page
    rgb = np.asarray(PILImage.open(shot).convert("RGB"), dtype=int)
    assert (np.abs(rgb[..., 0] - rgb[..., 2]) > 60).sum() > 1000


def test_package_and_merge_commands(qa_path: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "a2-1.zip"
    assert main(["package", str(qa_path), "--annotator", "a2-1", "--batch", "formal",
                 "--out", str(out)]) == 0
    assert "the annotator opens it with `slicereview open" in capsys.readouterr().out
    assert main(["merge", str(qa_path), str(out)]) == 0
    assert "0 added, 0 updated, 8 unchanged" in capsys.readouterr().out
    assert main(["package", str(qa_path), "--annotator", "expert", "--out",
                 str(tmp_path / "x.zip")]) == 2
    assert "no annotator named 'expert'" in capsys.readouterr().err
