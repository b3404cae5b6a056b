"""Seeded fuzzing of the import path with damaged copies of real files.

Seeds: pydicom's bundled files (every transfer syntax family), scikit-image's PNG/JPEG/TIFF
data and nibabel's NIfTI test data. Each seed is mutated by truncation, byte flips and hostile
header values (DICOM image attributes, NIfTI dimensions). Every mutant goes through
:func:`detect_format` here and :func:`read_entries` (header read + one decode) in the isolated
child, and must be either imported or refused with a plain one-line message: no crash of this
process, no traceback text, no decoder crash in the child, and the child's peak resident memory
stays under :data:`MEMORY_BUDGET_MB`.

The figures (files tried, decoded, refused, crashes, peak memory) are printed for the README's
reliability section (``pytest -s``).

The third round (:func:`_round3`, its own seed, values the earlier rounds did not try: Bits
Stored below Bits Allocated in colour JPEG, 1-bit labels on 16-bit data, huge and denormal
rescale slopes, NIfTI ``scl_slope``, excess frames) goes on where ``import`` stops: each file
imported is also shown, in the child as the viewer does, and must come out with the size the
project stores and finite values. Its table (docs/reliability.md): tried, crashed (the child
died), over budget (memory or time), undisplayable (imported, then not shown as stored), raw
messages (a refusal that is not one plain sentence) and refused plainly.
"""

from __future__ import annotations

import os
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.engines.imaging import isolated
from slicereview.engines.imaging.errors import DecoderCrashedError, ImagingError
from slicereview.engines.imaging.formats import detect_format
from slicereview.engines.imaging.importer import SliceSelection, read_entries
from slicereview.engines.imaging.limits import Limits
from slicereview.model import Image

SEED = 20240611
#: Mutants per seed file (quick run) and in the ``slow`` run.
QUICK, SLOW = 6, 30
#: The child's peak resident memory may not pass this (it includes Python, numpy, pydicom,
#: SimpleITK and scikit-image: ~150 MB before any image).
MEMORY_BUDGET_MB = 700
LIMITS = Limits(max_frame_pixels=16_000_000, max_decoded_bytes=256 << 20,
                max_volume_bytes=256 << 20, child_address_space=3 << 30, decode_timeout_s=30)
RAW_TEXT = ("Traceback", "Error:", "sitk::", "broadcast", ".cxx", "itk::", "pyo3", "\n")

DICOM_SEEDS = [
    "CT_small.dcm", "MR_small.dcm", "MR_small_RLE.dcm", "MR_small_jp2klossless.dcm",
    "MR_small_jpeg_ls_lossless.dcm", "MR_small_bigendian.dcm", "JPEG-LL.dcm", "JPEG-lossy.dcm",
    "JPEG2000.dcm", "JPEGLSNearLossless_16.dcm", "SC_rgb.dcm", "SC_rgb_rle.dcm",
    "SC_rgb_jpeg_gdcm.dcm", "SC_rgb_jpeg_dcmtk.dcm", "SC_ybr_full_422_uncompressed.dcm",
    "US1_J2KR.dcm", "emri_small.dcm", "emri_small_RLE.dcm", "OBXXXX1A.dcm",
    "OT-PAL-8-face.dcm", "image_dfl.dcm", "liver.dcm", "rtdose.dcm", "ExplVR_LitEndNoMeta.dcm",
    "SC_rgb_32bit.dcm", "RG1_J2KR.dcm", "mlut_18.dcm",
]
SKIMAGE_SEEDS = ["camera.png", "chessboard_RGB.png", "microaneurysms.png", "phantom.png",
                 "horse.png", "multipage.tif", "multipage_rgb.tif", "rocket.jpg"]
NIBABEL_SEEDS = ["anatomical.nii", "example_nifti2.nii.gz", "standard.nii.gz",
                 "functional.nii"]
_HOSTILE = {
    "Rows": [0, 1, 65535, 40000], "Columns": [0, 1, 65535, 40000],
    "BitsAllocated": [0, 1, 12, 32, 64, 255], "BitsStored": [0, 1, 17, 64],
    "HighBit": [0, 31, 200], "SamplesPerPixel": [0, 2, 3, 4, 65535],
    "PhotometricInterpretation": ["MONOCHROME2", "RGB", "PALETTE COLOR", "YBR_FULL_422", "X"],
    "NumberOfFrames": [0, -1, 2, 2**31 - 1, "abc"], "PixelRepresentation": [1, 7],
    "PlanarConfiguration": [1, 5],
}


def _seeds() -> list[Path]:
    import nibabel
    import skimage

    seeds = []
    for name in DICOM_SEEDS:
        try:
            seeds.append(Path(get_testdata_file(name)))
        except Exception:  # a file pydicom would have to download
            continue
    data = Path(skimage.__file__).parent / "data"
    seeds += [data / n for n in SKIMAGE_SEEDS if (data / n).is_file()]
    nib_data = Path(nibabel.__file__).parent / "tests" / "data"
    seeds += [nib_data / n for n in NIBABEL_SEEDS if (nib_data / n).is_file()]
    return seeds


def _suffix(path: Path) -> str:
    return ".nii.gz" if path.name.endswith(".nii.gz") else path.suffix or ".dcm"


def _hostile_dicom(seed: Path, out: Path, rng: random.Random) -> bool:
    try:
        ds = dcmread(seed, force=True)
    except Exception:
        return False
    for keyword in rng.sample(sorted(_HOSTILE), rng.randint(1, 3)):
        value = rng.choice(_HOSTILE[keyword])
        try:
            setattr(ds, keyword, value)
        except Exception:
            continue
    try:
        ds.save_as(out)
    except Exception:
        return False
    return True


def _hostile_nifti(data: bytearray, rng: random.Random) -> bytearray:
    import struct

    if len(data) >= 348 and struct.unpack("<i", data[:4])[0] == 348:
        k = rng.randrange(1, 4)
        data[40 + 2 * k:42 + 2 * k] = struct.pack("<h", rng.choice([0, -1, 32767, 30000]))
    return data


def _mutants(seed: Path, n: int, folder: Path, rng: random.Random) -> Iterator[Path]:
    original = seed.read_bytes()
    is_nifti = seed.name.endswith(".nii")
    for k in range(n):
        out = folder / f"{seed.stem.replace('.', '_')}_{k}{_suffix(seed)}"
        kind = k % 3
        if kind == 2 and _suffix(seed) == ".dcm":
            if _hostile_dicom(seed, out, rng):
                yield out
                continue
            kind = 1
        data = bytearray(original)
        if kind == 0:  # truncation
            data = data[: rng.randrange(0, max(1, len(data)))]
        elif kind == 1 or not is_nifti:  # byte flips, dense near the header
            for _ in range(rng.randint(1, 40)):
                end = len(data) if rng.random() < 0.3 else min(len(data), 2048)
                if end:
                    data[rng.randrange(end)] = rng.randrange(256)
        else:
            data = _hostile_nifti(data, rng)
        out.write_bytes(bytes(data))
        yield out


def _plain(message: str) -> bool:
    return (message.endswith(".") and not any(raw in message for raw in RAW_TEXT)
            and not re.search(r"\. [A-Z]", message))


def _fuzz(per_seed: int, folder: Path) -> Counter:
    rng = random.Random(SEED)
    tally: Counter = Counter()
    peak_kb = 0
    for seed in _seeds():
        for path in _mutants(seed, per_seed, folder, rng):
            tally["files"] += 1
            fmt = detect_format(path)
            if fmt is None:
                tally["not an image"] += 1
                continue
            try:
                read_entries(path, fmt, SliceSelection(mode="all"), limits=LIMITS)
                tally["decoded"] += 1
            except DecoderCrashedError as exc:
                tally["crashed"] += 1
                tally[f"crash: {path.name}: {exc}"] += 1
            except ImagingError as exc:
                tally["refused"] += 1
                assert _plain(str(exc)), (path.name, str(exc))
            peak_kb = max(peak_kb, isolated.last_peak_kb)
            path.unlink()
    tally["peak_mb"] = peak_kb // 1024
    print(f"\nfuzz: {dict(tally)}")
    return tally


def _check(tally: Counter) -> None:
    crashes = [k for k in tally if k.startswith("crash: ")]
    assert tally["crashed"] == 0, crashes
    assert tally["peak_mb"] <= MEMORY_BUDGET_MB, tally["peak_mb"]
    assert tally["decoded"] + tally["refused"] + tally["not an image"] == tally["files"]


def test_fuzzed_files_are_decoded_or_refused_plainly(tmp_path: Path) -> None:
    isolated.shutdown()  # a fresh child: its peak memory is this test's
    _check(_fuzz(QUICK, tmp_path))


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SLICEREVIEW_FUZZ_SLOW"), reason="long fuzz run")
def test_fuzzed_files_long_run(tmp_path: Path) -> None:
    isolated.shutdown()
    _check(_fuzz(SLOW, tmp_path))


# -- third round ------------------------------------------------------------------------------
ROUND3_SEED = 20261126
ROUND3_QUICK, ROUND3_SLOW = 4, 34
_ROUND3_DICOM = {
    "BitsStored": [1, 7, 11, 15], "HighBit": [0, 6, 14], "BitsAllocated": [1, 8, 16],
    "RescaleSlope": ["1e39", "1e300", "4.9e-324", "-1e38", "1e-45", "NaN"],
    "RescaleIntercept": ["1e39", "-3e38"], "NumberOfFrames": [1, 3, 65535],
    "SamplesPerPixel": [1, 3], "PixelRepresentation": [0, 1],
    "PhotometricInterpretation": ["MONOCHROME1", "RGB", "YBR_FULL", "PALETTE COLOR"],
}


def _round3_dicom(seed: Path, out: Path, rng: random.Random) -> bool:
    try:
        ds = dcmread(seed, force=True)
    except Exception:
        return False
    for keyword in rng.sample(sorted(_ROUND3_DICOM), rng.randint(1, 3)):
        try:
            setattr(ds, keyword, rng.choice(_ROUND3_DICOM[keyword]))
        except Exception:
            continue
    try:
        ds.save_as(out)
    except Exception:
        return False
    return True


def _round3_nifti(data: bytearray, rng: random.Random) -> bytearray:
    import struct

    if len(data) >= 348 and struct.unpack("<i", data[:4])[0] == 348:
        slope = rng.choice([1e38, 3.4e38, -1e38, float("inf"), float("nan"), 1e-45])
        data[112:116] = struct.pack("<f", slope)  # scl_slope
        if rng.random() < 0.5:
            data[70:72] = struct.pack("<h", rng.choice([16, 64, 2, 4]))  # datatype
    return data


def _round3_mutants(seed: Path, n: int, folder: Path, rng: random.Random) -> Iterator[Path]:
    original = seed.read_bytes()
    is_nifti = seed.name.endswith((".nii", ".nii.gz"))
    for k in range(n):
        out = folder / f"r3_{seed.stem.replace('.', '_')}_{k}{_suffix(seed)}"
        if _suffix(seed) == ".dcm" and k % 2 == 0 and _round3_dicom(seed, out, rng):
            yield out
            continue
        data = bytearray(original)
        if is_nifti and seed.name.endswith(".nii") and k % 2 == 0:
            data = _round3_nifti(data, rng)
        elif k % 4 == 1:
            data = data[: rng.randrange(0, max(1, len(data)))]
        else:
            for _ in range(rng.randint(1, 24)):
                end = len(data) if rng.random() < 0.5 else min(len(data), 4096)
                if end:
                    data[rng.randrange(end)] = rng.randrange(256)
        out.write_bytes(bytes(data))
        yield out


def _shown_as_stored(path: Path, fmt: str, images: list) -> bool:
    """Whether the first image imported is shown, in the child as the viewer does, with the
    size the project stores and no value that is not finite."""
    import numpy as np

    first = images[0]
    image = Image(0, 0, "", str(path), fmt, first.frame, first.axis, first.slice_index,
                  first.rows, first.cols)
    try:
        shown = isolated.display(path, image, LIMITS)
    except ImagingError:
        return False
    data = np.asarray(shown.data)
    return data.shape[:2] == (first.rows, first.cols) and (
        data.dtype.kind != "f" or bool(np.isfinite(data).all()))


def _round3(per_seed: int, folder: Path) -> Counter:
    rng = random.Random(ROUND3_SEED)
    tally: Counter = Counter()
    for seed in _seeds():
        for path in _round3_mutants(seed, per_seed, folder, rng):
            tally["tried"] += 1
            fmt = detect_format(path)
            if fmt is None:
                tally["not an image"] += 1
                path.unlink()
                continue
            try:
                _info, images = read_entries(path, fmt, SliceSelection(), limits=LIMITS)
            except DecoderCrashedError as exc:
                over = "took longer" in str(exc)
                tally["over budget" if over else "crashed"] += 1
                tally[f"{'over budget' if over else 'crash'}: {path.name}: {exc}"] += 1
            except ImagingError as exc:
                plain = _plain(str(exc))
                tally["refused plainly" if plain else "raw messages"] += 1
                if not plain:
                    tally[f"raw: {path.name}: {exc}"] += 1
            else:
                tally["imported"] += 1
                if not _shown_as_stored(path, fmt, images):
                    tally["undisplayable"] += 1
                    tally[f"undisplayable: {path.name}"] += 1
            if isolated.last_peak_kb // 1024 > MEMORY_BUDGET_MB:
                tally["over budget"] += 1
                tally[f"over budget: {path.name}: {isolated.last_peak_kb // 1024} MB"] += 1
            path.unlink()
    print(f"\nfuzz round 3: {dict(tally)}")
    return tally


def _check_round3(tally: Counter) -> None:
    problems = [k for k in tally if k.split(":")[0] in ("crash", "over budget", "raw",
                                                          "undisplayable")]
    assert not problems, problems
    assert tally["imported"] + tally["refused plainly"] + tally["not an image"] == \
        tally["tried"]


@pytest.mark.slow  # 5 s
def test_round3_fuzzed_files_are_shown_as_stored_or_refused_plainly(tmp_path: Path) -> None:
    isolated.shutdown()
    _check_round3(_round3(ROUND3_QUICK, tmp_path))


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SLICEREVIEW_FUZZ_SLOW"), reason="long fuzz run")
def test_round3_long_run(tmp_path: Path) -> None:
    isolated.shutdown()
    tally = _round3(ROUND3_SLOW, tmp_path)
    assert tally["tried"] >= 1000
    _check_round3(tally)
