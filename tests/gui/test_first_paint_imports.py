"""The main window's first paint loads only what it shows.

The job pages are built on first use, the rating, import and statistics modules are imported
by the gateway on first use, and the display pyramid uses Pillow: none of the packages below
is loaded by ``slicereview open P --screenshot`` on a one-image project (the start-up
benchmark, tests/benchmarks/test_bench_startup.py, measures the time this saves).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from slicereview.app.images.importing import import_paths
from slicereview.store import Project

LATER = ("scipy", "skimage", "SimpleITK", "choix", "sklearn", "onnxruntime",
         "slicereview.app.rating.sessions",
         "slicereview.app.commands", "slicereview.app.images.importing",
         "slicereview.engines.ranking.reliability", "slicereview.engines.agreement.alpha")

SCRIPT = """
import json, sys
from pathlib import Path
from slicereview.gui.application import run
code = run(Path(sys.argv[1]), screenshot=Path(sys.argv[2]))
print(json.dumps([code, [m for m in json.loads(sys.argv[3]) if m in sys.modules]]))
"""


@pytest.mark.slow  # 3 s
def test_first_paint_imports_no_later_module(tmp_path) -> None:
    yy, xx = np.mgrid[0:3000, 0:2400]  # large enough for a pyramid level
    Image.fromarray((xx * 7 + yy * 3).astype(np.uint16)).save(tmp_path / "ramp.png")
    path = tmp_path / "p.srproj"
    with Project.create(path, name="p") as project:
        import_paths(project, [tmp_path / "ramp.png"])
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(path), str(tmp_path / "shot.png"),
                          json.dumps(LATER)], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=180, check=True)
    code, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert code == 0 and (tmp_path / "shot.png").is_file()
    assert loaded == [], f"the first paint loads {loaded}"
