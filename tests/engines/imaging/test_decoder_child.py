"""The decoding child: a file that runs out of its time is read once per import, and what
native decoders print goes to the log, never to the user's terminal.

Files are made here: a 4000-page TIFF (about 12 s to read, against a 4 s limit); DICOM files
derived from pydicom's test data that make libjpeg print warnings (a 12-bit JPEG marked 8
bits) and gdcm abort ("terminate called after throwing an instance of 'gdcm::Exception'",
an RGB JPEG Lossless file marked 7 of 8 bits stored; refused by the header checks now).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.limits import Limits
from slicereview.store import Project

#: Library text that must never reach the terminal.
LIBRARY_TEXT = ("terminate called", "gdcm::", "what():", "JPEG data precision", "panicked",
                "Invalid SOS", "Traceback")


def slow_tiff(path: Path, pages: int = 8000) -> Path:
    """A TIFF of one-pixel pages whose reading takes far longer than the 4 s time-out the tests
    give it: ~23 s at 8,000 pages on an idle machine, where 4,000 took 5.4 s — too close to
    4 s on a fast one (read within the limit once in CI). The time grows faster than the
    page count."""
    import tifffile

    with tifffile.TiffWriter(path) as tif:
        for _ in range(pages):
            tif.write(np.zeros((1, 1), np.uint16), contiguous=False)
    return path


def gdcm_abort_dicom(path: Path) -> Path:
    """An RGB JPEG Lossless file whose header says 7 of 8 bits stored: gdcm throws from
    gdcmImageCodec.cxx and nothing catches it (SIGABRT); the header checks now refuse it
    before gdcm sees it."""
    ds = dcmread(get_testdata_file("SC_rgb_jpeg_gdcm.dcm"))
    ds.BitsStored, ds.HighBit = 7, 6
    ds.save_as(path)
    return path


def libjpeg_warning_dicom(path: Path) -> Path:
    """A 12-bit JPEG Extended file marked 8 bits stored: libjpeg prints warnings."""
    ds = dcmread(get_testdata_file("JPEG-lossy.dcm"))
    ds.BitsStored, ds.HighBit = 8, 7
    ds.save_as(path)
    return path


@pytest.mark.slow  # 7 s: a real 4 s time-out
def test_a_file_that_runs_out_of_time_is_read_once(tmp_path: Path, monkeypatch):
    from skimage import io

    folder = tmp_path / "in"
    folder.mkdir()
    for value, name in enumerate(("a.png", "c.png")):
        io.imsave(folder / name, np.full((9, 7), value, np.uint8), check_contrast=False)
    slow = slow_tiff(folder / "b.tif")
    sent: list[str] = []
    original = isolated._Slot.send

    def counting(self, request, limits):
        task, args = request
        files = [item[0] for item in args[0]] if isinstance(args[0], list) else [args[0]]
        sent.extend(str(f) for f in files)
        return original(self, request, limits)

    monkeypatch.setattr(isolated._Slot, "send", counting)
    isolated.shutdown()
    isolated.forget_crashes()
    limits = Limits(decode_timeout_s=4.0)
    isolated.start(0)  # the readers are loaded (the same child: the same address space)
    try:
        with Project.create(tmp_path / "p.srproj") as project:
            report = import_paths(project, [folder], limits=limits)
    finally:
        isolated.shutdown()
        isolated.forget_crashes()
    assert report.added_files == 2, report.details()
    [(path, reason)] = report.failed
    assert path == str(slow) and "took longer than 4 s" in reason and "b.tif" in reason
    assert sent.count(str(slow)) == 1, sent  # never decoded a second time
    assert sent.count(str(folder / "a.png")) >= 1 and sent.count(str(folder / "c.png")) >= 1


def test_what_decoders_print_goes_to_the_log_not_the_terminal(tmp_path: Path):
    from skimage import io

    folder = tmp_path / "in"
    folder.mkdir()
    gdcm_abort_dicom(folder / "aborts.dcm")
    libjpeg_warning_dicom(folder / "warns.dcm")
    io.imsave(folder / "fine.png", np.full((9, 7), 80, np.uint8), check_contrast=False)
    logs = tmp_path / "logs"
    env = {**os.environ, "SLICEREVIEW_LOG_DIR": str(logs)}
    done = subprocess.run([sys.executable, "-m", "slicereview", "import", "--create",
                           str(tmp_path / "p.srproj"), str(folder)], env=env,
                          capture_output=True, text=True, timeout=300)
    shown = done.stdout + done.stderr
    assert "2 files added" in done.stdout and "1 unreadable" in done.stdout, shown
    assert "aborts.dcm: aborts.dcm cannot be shown: its colour JPEG pixel data" in done.stdout
    for text in LIBRARY_TEXT:
        assert text not in shown, (text, shown)
    for line in done.stdout.splitlines():
        if line.strip().startswith("unreadable:"):
            reason = line.split(": ", 2)[2]
            assert reason.endswith(".") and reason.count(". ") == 0, line
    log = (logs / "decoder.log").read_text(errors="replace")
    assert "Unsupported JPEG data precision 12" in log  # libjpeg's own words, kept
    assert "warns.dcm" in log  # the file each text belongs to is named before it


@pytest.fixture(autouse=True)
def _fresh_children():
    isolated.shutdown()
    yield
    isolated.shutdown()
