"""``slicereview info P | head -1``: a reader that goes away early gives no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from slicereview.cli import EXIT_BROKEN_PIPE
from slicereview.store import Project


@pytest.fixture
def project_path(location, tmp_path):
    path = location("p.srproj")
    Project.create(path, name="p").close()
    return path


def _run_with_closed_stdout(args: list[str], cwd) -> tuple[int, str]:
    """Run ``python -m slicereview ARGS`` with its stdout pipe closed before it writes."""
    proc = subprocess.Popen([sys.executable, "-m", "slicereview", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the command prints anything
    try:
        err = proc.stderr.read().decode(errors="replace")
        return proc.wait(timeout=120), err
    finally:
        proc.stderr.close()


@pytest.mark.parametrize("command", ["info", "new", "help", "version"])
def test_closed_stdout_prints_no_traceback(location, command, project_path, tmp_path):
    args = {"info": ["info", str(project_path)],
            "new": ["new", str(location("new.srproj"))],
            "help": ["--help"],
            "version": ["--version"]}[command]
    code, err = _run_with_closed_stdout(args, tmp_path)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert "Exception ignored" not in err, err
    assert code in (0, 1, EXIT_BROKEN_PIPE), (code, err)


def test_info_reports_the_broken_pipe_in_its_exit_code(project_path, tmp_path):
    code, err = _run_with_closed_stdout(["info", str(project_path)], tmp_path)
    assert (code, err) == (EXIT_BROKEN_PIPE, "")
