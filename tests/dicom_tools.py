"""Helpers of the DICOM tests: the validators and servers they need, required in CI.

A test that needs ``dciodvfy`` (Debian ``dicom3tools``) or Orthanc fails when it is missing
and the environment variable ``CI`` is set (``.ci/run`` installs them), and is skipped on a
developer's machine without them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

APT = {"dciodvfy": "dicom3tools", "Orthanc": "orthanc orthanc-dicomweb"}


def need(program: str) -> str:
    """The path of ``program``; a failure in CI, a skip elsewhere, when it is missing."""
    path = shutil.which(program) or (f"/usr/sbin/{program}"
                                     if Path(f"/usr/sbin/{program}").is_file() else None)
    if path is None:
        message = f"{program} is missing: apt-get install {APT.get(program, program)}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


def dciodvfy_errors(path: str | Path) -> list[str]:
    """The "Error" lines ``dciodvfy`` prints for the DICOM file at ``path``."""
    result = subprocess.run([need("dciodvfy"), str(path)], capture_output=True, text=True,
                            timeout=120)
    lines = (result.stdout + result.stderr).splitlines()
    return [line for line in lines if line.startswith("Error")]
