"""Every command reports a wrong input as one line on stderr (no traceback) and exits non-zero.

The GUI commands also refuse to start without a display, instead of running an invisible window
on Qt's offscreen platform forever.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slicereview.cli import main


def _one_line_error(code: int, err: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("slicereview: error: "), err
    return lines[0]


def test_demo_dir_that_is_a_file(tmp_path: Path, capsys) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("hello")
    line = _one_line_error(main(["demo", "--dir", str(a_file), "--no-gui"]),
                           capsys.readouterr().err)
    assert "notes.txt" in line and "folder" in line
    assert a_file.read_text() == "hello"


@pytest.mark.parametrize("stat", ["masks", "dice"])
def test_masks_that_are_not_images(tmp_path: Path, capsys, stat: str) -> None:
    text, binary = tmp_path / "a.txt", tmp_path / "b.png"
    text.write_text("hi\n")
    binary.write_bytes(bytes(range(256)) * 8)
    line = _one_line_error(main(["stats", stat, str(text), str(binary)]),
                           capsys.readouterr().err)
    assert "a.txt" in line and "image" in line


def test_mask_that_is_a_folder(tmp_path: Path, capsys) -> None:
    line = _one_line_error(main(["stats", "masks", str(tmp_path), str(tmp_path)]),
                           capsys.readouterr().err)
    assert "folder" in line


@pytest.mark.parametrize("stat", ["alpha", "ndcg"])
def test_tables_that_are_not_text(tmp_path: Path, capsys, stat: str) -> None:
    binary = tmp_path / "ratings.csv"
    binary.write_bytes(b"\xa3\xff\x00" * 100)
    line = _one_line_error(main(["stats", stat, str(binary)]), capsys.readouterr().err)
    assert "ratings.csv" in line and "text" in line
    line = _one_line_error(main(["stats", stat, str(tmp_path)]), capsys.readouterr().err)
    assert "folder" in line


def _headless_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    return {**env, "SLICEREVIEW_CONFIG_DIR": str(tmp_path / "config"), **extra}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="DISPLAY is an X11/Wayland thing")
@pytest.mark.parametrize("platform", [None, "offscreen"])
@pytest.mark.parametrize("command", ["open", "demo"])
def test_gui_without_a_display_says_so(tmp_path: Path, platform: str | None,
                                       command: str) -> None:
    env = _headless_env(tmp_path, **({"QT_QPA_PLATFORM": platform} if platform else {}))
    args = ["--dir", str(tmp_path / "demo")] if command == "demo" else []
    result = subprocess.run([sys.executable, "-m", "slicereview", command, *args],
                            capture_output=True, text=True, timeout=60, env=env)
    line = _one_line_error(result.returncode, result.stderr)
    assert "no display" in line and "xvfb-run" in line and "--screenshot" in line
    assert not (tmp_path / "demo").exists()  # refused before spending 30 s on the build
