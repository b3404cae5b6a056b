"""A large image is shown from a display pyramid: the viewer's process holds a screen-sized
level and one region, never the whole image.

Made here: an 8192 × 8192 RGB TIFF (201 MB once decoded; the reported case was 600 MB and
took the viewer's process to 4.25 GB). The window runs in a subprocess that reports its own
peak resident memory (Linux ``VmHWM``) after showing the image fitted, at 1:1 and panned;
it is compared with the same window showing a small image.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from slicereview.app.images.importing import import_paths
from slicereview.store import Project

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux VmHWM")

_WINDOW = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from slicereview.gui.application import application
    from slicereview.gui.window.main_window import MainWindow

    def peak_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024

    app = application()
    w = MainWindow(remember=False)
    w.resize(1200, 800)
    w.show()
    assert w.open_project(Path(sys.argv[1]))
    for _ in range(20):
        app.processEvents()
    w.browser.wait_for_thumbnails(120000)
    image = w.gateway.images()[0]
    assert w.show_image(image.id), w.image_label.text()
    app.processEvents()
    view = w.viewer
    shown = {"level": list(view.display.data.shape), "label": w.image_label.text()}
    view.actual_size()  # 1:1 at the centre: a region of the full image is read
    app.processEvents()
    view.viewbox.translateBy(x=300, y=-200)  # a small pan: the region held covers it
    view._update_level()
    app.processEvents()
    shown["tile"] = getattr(getattr(view, "tiles", None), "nbytes", -1)
    shown["value"] = view.value_at(4000.5, 3000.5)
    shown["peak_mb"] = peak_mb()
    print(json.dumps(shown))
""")


def _window(project: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _WINDOW, str(project)], capture_output=True,
                          text=True, timeout=600,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _project(tmp_path: Path, name: str, shape: tuple[int, int, int]) -> Path:
    import tifffile

    rows = np.arange(shape[0], dtype=np.uint32)[:, None]
    cols = np.arange(shape[1], dtype=np.uint32)[None, :]
    rgb = np.empty(shape, np.uint8)
    rgb[..., 0] = (rows + cols) % 251
    rgb[..., 1] = rows % 256
    rgb[..., 2] = cols % 256
    tifffile.imwrite(tmp_path / f"{name}.tif", rgb)
    del rgb
    project = tmp_path / f"{name}.srproj"
    with Project.create(project) as p:
        assert import_paths(p, [tmp_path / f"{name}.tif"]).added_files == 1
    return project


@pytest.mark.slow  # 11 s
def test_a_large_rgb_image_is_shown_from_a_pyramid(tmp_path: Path):
    small = _window(_project(tmp_path, "small", (600, 800, 3)))
    large = _window(_project(tmp_path, "large", (8192, 8192, 3)))
    print(f"\nviewer peak: small image {small['peak_mb']} MB, large {large['peak_mb']} MB, "
          f"region {large['tile'] / 2**20:.1f} MB")
    assert max(large["level"][:2]) <= 2048  # the screen-sized level, not 8192 × 8192
    assert 0 < large["tile"] <= 3 * 2 * 1200 * 2 * 800 * 3  # one region: about a view
    # (x 4000, y 3000: row 3000, column 4000 of the full image, read from its file)
    assert large["value"] == [3000, 4000, [(3000 + 4000) % 251, 3000 % 256, 4000 % 256]]
    # The whole image is 192 MiB: the window holds less than one copy of it (measured: 106 MB
    # more than for a small image, pyqtgraph rendering the 2048-pixel level; 412 MB before).
    assert large["peak_mb"] - small["peak_mb"] < 160, (small, large)
