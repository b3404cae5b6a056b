"""A file swapped after its import is checked before any decode in the viewer's process.

Made here: a project with an RGB JPEG Lossless DICOM and a PNG; then the DICOM is replaced by
one whose header makes gdcm throw an exception nobody catches (SIGABRT: "terminate called
after throwing an instance of 'gdcm::Exception'"), as a PACS export rerun or a sync tool
might. The viewer used to decode that image in its own process (the import had decoded the
original safely) and aborted on every open. The window runs in a subprocess, so an abort
fails the test instead of ending the test run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.app.images.importing import import_paths
from slicereview.store import Project

_WINDOW = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from PySide6.QtWidgets import QApplication
    from slicereview.gui.application import application
    from slicereview.gui.window.main_window import MainWindow

    app = application()
    w = MainWindow(remember=False)
    w.resize(900, 600)
    w.show()
    assert w.open_project(Path(sys.argv[1]))
    for _ in range(20):
        app.processEvents()
    w.browser.wait_for_thumbnails(60000)
    app.processEvents()
    rows = {w.browser.row_text(i).splitlines()[0]: (w.browser.row_text(i),
                                                    w.browser.row_tooltip(i))
            for i in w.browser.image_ids()}
    first = w.image_label.text()
    for image in w.gateway.images():
        w.browser.select(image.id)
        app.processEvents()
        rows[image.case_id] += (w.image_label.text(),)
    print(json.dumps({"first": first, "rows": rows}))
""")


def _open_in_a_window(project: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _WINDOW, str(project)], capture_output=True,
                          text=True, timeout=180,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # 8 s
def test_a_file_swapped_for_one_that_aborts_gdcm_is_not_decoded(tmp_path: Path):
    from skimage import io

    folder = tmp_path / "scans"
    folder.mkdir()
    shutil.copyfile(get_testdata_file("SC_rgb_jpeg_gdcm.dcm"), folder / "a.dcm")
    io.imsave(folder / "b.png", np.full((20, 30), 90, np.uint8), check_contrast=False)
    project = tmp_path / "p.srproj"
    with Project.create(project) as p:
        assert import_paths(p, [folder]).added_files == 2
    time.sleep(0.01)  # (a new modification time, as any rewrite of the file gives)
    ds = dcmread(get_testdata_file("SC_rgb_jpeg_gdcm.dcm"))
    ds.BitsStored, ds.HighBit = 7, 6  # gdcm: "GetBitsAllocated() == GetBitsStored()" abort
    ds.save_as(folder / "a.dcm")
    os.utime(folder / "b.png")  # touched only: the same content, still shown
    seen = _open_in_a_window(project)
    text, tooltip, label = seen["rows"]["C000001"]
    assert "(changed since import)" in text and "relink" in tooltip
    assert "changed since it was imported" in seen["first"] and "relink" in seen["first"]
    assert "changed since it was imported" in label
    text, tooltip, label = seen["rows"]["C000002"]
    assert "(cannot be shown)" not in text and "(changed" not in text
    assert label.startswith("C000002") and "cannot show" not in label
    # Relinking to the original file shows it again (the SHA-256 matches).
    original = tmp_path / "original"
    original.mkdir()
    shutil.copyfile(get_testdata_file("SC_rgb_jpeg_gdcm.dcm"), original / "a.dcm")
    shutil.move(folder / "a.dcm", tmp_path / "swapped.dcm")
    with Project.open(project) as p:
        from slicereview.app.images.relinking import relink

        assert relink(p, original).relinked == 1
    seen = _open_in_a_window(project)
    text, _tooltip, label = seen["rows"]["C000001"]
    assert "(changed" not in text and "cannot show" not in label, (text, label)
