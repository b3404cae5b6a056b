"""The command line starts light: importing it loads no science stack and no Qt.

Heavy libraries are imported inside the command handlers that need them, so ``--help``,
``info``, ``new`` ... start fast (see tests/benchmarks/test_bench_startup.py for the timing).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("scipy.stats", "scipy.ndimage", "skimage", "SimpleITK", "choix", "PySide6",
         "sklearn", "onnxruntime", "onnx")


def test_importing_the_cli_loads_no_heavy_library(tmp_path):
    code = (
        "import json, sys\n"
        "import slicereview.cli, slicereview.launcher\n"
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120, check=True)
    assert json.loads(out.stdout) == [], f"`import slicereview.cli` loads {out.stdout.strip()}"
