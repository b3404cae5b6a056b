"""Importing from the GUI: a worker thread, a progress dialog, Cancel, and a responsive window."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from slicereview.gui.window.main_window import MainWindow
from slicereview.store import Project


def _pngs(folder: Path, n: int, size: int = 64) -> Path:
    from skimage import io

    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for k in range(n):
        io.imsave(folder / f"img_{k:03d}.png",
                  rng.integers(0, 65535, (size, size), dtype=np.uint16), check_contrast=False)
    return folder


@pytest.fixture
def window(open_window, tmp_path: Path) -> MainWindow:
    path = tmp_path / "p.srproj"
    Project.create(path).close()
    return open_window(path, size=None, exposed=False)


def test_import_in_background_updates_browser(window: MainWindow, qtbot, tmp_path: Path) -> None:
    folder = _pngs(tmp_path / "images", 120)
    relisted: list[int] = []
    window.gateway.images_changed.connect(lambda: relisted.append(1))
    worker = window.file_menu.start_import([folder])
    assert worker is not None
    progress: list[tuple[int, int]] = []
    worker.progress.connect(lambda done, total, _: progress.append((done, total)))
    # the project watch polls every second; here at every progress step, as on a slow import
    worker.progress.connect(lambda *_: window.gateway.watch.check())
    with qtbot.waitSignal(worker.finished, timeout=60000) as blocker:
        pass
    report = blocker.args[0]
    assert report.added_images == 120 and not report.cancelled
    qtbot.waitUntil(lambda: len(window.browser.image_ids()) == 120, timeout=5000)
    assert progress and progress[-1][1] == 120
    assert window.file_menu.import_worker is None
    # the window's own import is listed once at its end, not re-listed at every commit
    assert len(relisted) == 1


@pytest.mark.slow  # 9 s at load 8: 200 images, a decoding child
def test_cancel_stops_the_import(window: MainWindow, qtbot, tmp_path: Path) -> None:
    folder = _pngs(tmp_path / "images", 200, size=256)
    worker = window.file_menu.start_import([folder])
    worker.progress.connect(lambda done, total, _: worker.cancel() if done >= 5 else None)
    with qtbot.waitSignal(worker.finished, timeout=120000) as blocker:
        pass
    report = blocker.args[0]
    assert report.cancelled
    assert 0 < report.added_images < 200
    with Project.open(window.gateway.project.path) as p:  # what was committed is complete
        assert len(p.images.all()) == report.added_images


@pytest.mark.benchmark
def test_event_loop_stays_responsive_during_import(window: MainWindow, qtbot,
                                                    tmp_path: Path) -> None:
    """Import 500 files while a 10 ms timer measures the GUI event loop's latency."""
    import time

    from PySide6.QtCore import QTimer

    folder = _pngs(tmp_path / "images", 500, size=128)
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    start = time.perf_counter()
    worker = window.file_menu.start_import([folder])
    with qtbot.waitSignal(worker.finished, timeout=300000) as blocker:
        pass
    elapsed = time.perf_counter() - start
    timer.stop()
    report = blocker.args[0]
    lat = (np.array(gaps[1:]) - 0.010) * 1000.0
    p95, worst = float(np.percentile(lat, 95)), float(lat.max())
    print(f"\nGUI import of 500 PNGs: {500 / elapsed:.0f} files/s; event-loop latency "
          f"p95 {p95:.1f} ms, max {worst:.1f} ms over {len(lat)} ticks")
    assert report.added_images == 500
    assert p95 < 50.0


def test_import_options_pick_volume_slices(window: MainWindow, qtbot, tmp_path: Path,
                                           monkeypatch) -> None:
    import nibabel.testing

    from slicereview.gui.window.import_dialog import ImportOptionsDialog

    volume = tmp_path / "anatomical.nii"
    volume.write_bytes((Path(nibabel.testing.data_path) / "anatomical.nii").read_bytes())
    chosen = {}

    def fake_exec(dialog: ImportOptionsDialog) -> int:  # the user picks "every 5th, axis 0"
        dialog.mode_box.setCurrentIndex(2)
        dialog.step_spin.setValue(5)
        assert dialog.step_spin.isEnabled() and not dialog.start_spin.isEnabled()
        chosen["selection"] = dialog.selection()
        return ImportOptionsDialog.DialogCode.Accepted

    monkeypatch.setattr(ImportOptionsDialog, "exec", fake_exec)
    worker = window.file_menu.ask_and_import([volume])
    with qtbot.waitSignal(worker.finished, timeout=60000) as blocker:
        pass
    assert chosen["selection"].mode == "every"
    assert blocker.args[0].added_images == 5  # slices 0, 5, 10, 15, 20 of 25
    dialog = ImportOptionsDialog()
    dialog.mode_box.setCurrentIndex(3)
    dialog.start_spin.setValue(8)
    dialog.stop_spin.setValue(4)
    with pytest.raises(ValueError):
        dialog.selection()
