"""Each way a file can fail maps to one plain, one-sentence message (table-driven).

Every row builds a bad file from a real test file (or from scratch), imports it with
:func:`read_entries` and checks the error type, a phrase of the message and that the message is
one line ending in a full stop with no raw library text. The size-limit rows use the default
:class:`Limits` where the header alone is the bomb, and small limits where a real bomb would
take seconds to build (the mechanism is the same).
"""

from __future__ import annotations

import os
import re
import signal
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file

from slicereview.engines.imaging.errors import (
    ImagingError,
    LimitExceededError,
    MissingCodecError,
    UnreadableImageError,
)
from slicereview.engines.imaging.formats import detect_format
from slicereview.engines.imaging.importer import SliceSelection, read_entries
from slicereview.engines.imaging.limits import DEFAULT_LIMITS, Limits

SMALL = Limits(max_frame_pixels=1_000_000, max_decoded_bytes=8 << 20,
               max_volume_bytes=8 << 20)
RAW_TEXT = ("Traceback", "Error:", "sitk::", "broadcast", "UID is not", ".cxx", "\n",
            "itk::", "pyo3", "PanicException")


def _dcm(tmp: Path, name: str, source: str, **attrs: object) -> Path:
    ds = dcmread(get_testdata_file(source))
    for key, value in attrs.items():
        if key == "TransferSyntaxUID":
            ds.file_meta.TransferSyntaxUID = value
        else:
            setattr(ds, key, value)
    path = tmp / name
    ds.save_as(path)
    return path


def _garbage_dicom(tmp: Path) -> Path:
    path = tmp / "garbage.dcm"
    path.write_bytes(bytes(128) + b"DICM" + b"\x02\x00\x10\x00UI\xff\xff" + b"garbage" * 10)
    return path


def _nested(tmp: Path) -> Path:
    """A DICOM file whose sequences nest 5000 deep (RecursionError in a naive parser)."""
    from pydicom.dataset import FileMetaDataset
    from pydicom.filewriter import write_file_meta_info
    from pydicom.uid import ExplicitVRLittleEndian

    meta = FileMetaDataset()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    meta.MediaStorageSOPClassUID = "1.2.840.10008.5.1.4.1.1.7"
    meta.MediaStorageSOPInstanceUID = "1.2.3.4"
    path = tmp / "nested.dcm"
    with path.open("wb") as fh:
        fh.write(bytes(128) + b"DICM")
        write_file_meta_info(fh, meta)
        level = struct.pack("<HH2sHI", 0x0008, 0x1115, b"SQ", 0, 0xFFFFFFFF)
        item = struct.pack("<HHI", 0xFFFE, 0xE000, 0xFFFFFFFF)
        fh.write((level + item) * 5000)
    return path


def _deflate_bomb(tmp: Path) -> Path:
    from pydicom.uid import DeflatedExplicitVRLittleEndian

    ds = dcmread(get_testdata_file("CT_small.dcm"))
    ds.add_new(0x00091010, "OB", bytes(16 << 20))  # 16 MB of zeros: ~16 kB deflated
    ds.file_meta.TransferSyntaxUID = DeflatedExplicitVRLittleEndian
    path = tmp / "bomb.dcm"
    ds.save_as(path, enforce_file_format=True)
    return path


def _nifti(tmp: Path, name: str, shape: tuple[int, ...], data_bytes: int) -> Path:
    import nibabel as nib

    header = nib.Nifti1Header()
    header.set_data_shape(shape)
    header.set_data_dtype(np.int16)
    header["vox_offset"] = 352
    path = tmp / name
    path.write_bytes(header.binaryblock + bytes(4) + bytes(data_bytes))
    return path


def _tiff_bomb(tmp: Path) -> Path:
    import tifffile

    path = tmp / "bomb.tif"
    tifffile.imwrite(path, np.zeros((16, 16), np.uint8), compression="zlib")
    with tifffile.TiffFile(path) as tif:
        offsets = [tif.pages.first.tags[n].valueoffset for n in ("ImageWidth", "ImageLength")]
    data = bytearray(path.read_bytes())
    for offset in offsets:
        data[offset:offset + 4] = struct.pack("<I", 100_000)
    path.write_bytes(bytes(data))
    return path


def _mhd(tmp: Path, target: str) -> Path:
    path = tmp / "evil.mhd"
    path.write_text("ObjectType = Image\nNDims = 2\nDimSize = 4 4\nElementType = MET_UCHAR\n"
                    f"ElementDataFile = {target}\n")
    return path


def _volume(tmp: Path, name: str, arr: np.ndarray, vector: bool = False) -> Path:
    import SimpleITK as sitk

    path = tmp / name
    sitk.WriteImage(sitk.GetImageFromArray(arr, isVector=vector), str(path))
    return path


def _nrrd_gzip_bomb(tmp: Path) -> Path:
    path = tmp / "bomb.nrrd"
    payload = zlib.compress(bytes(64 << 20), 9)  # 64 MB of zeros in ~64 kB
    path.write_bytes(b"NRRD0004\ntype: uint8\ndimension: 3\nsizes: 512 512 256\n"
                     b"encoding: gzip\n\n" + payload)
    return path


Case = tuple[Callable[[Path], Path], type[Exception], str, Limits]
CASES: dict[str, Case] = {
    "damaged DICOM": (_garbage_dicom, UnreadableImageError, "without image pixel data",
                      DEFAULT_LIMITS),
    "no pixel data": (lambda t: Path(get_testdata_file("rtplan.dcm")), UnreadableImageError,
                      "without image pixel data", DEFAULT_LIMITS),
    "truncated DICOM": (lambda t: Path(get_testdata_file("MR_truncated.dcm")),
                        UnreadableImageError, "is truncated", DEFAULT_LIMITS),
    "photometric vs samples": (
        lambda t: _dcm(t, "a.dcm", "US1_J2KR.dcm", PhotometricInterpretation="MONOCHROME2"),
        UnreadableImageError, "needs 1 sample per pixel, not 3", DEFAULT_LIMITS),
    "bits stored 1": (lambda t: _dcm(t, "b.dcm", "MR_small_jp2klossless.dcm", BitsStored=1),
                      UnreadableImageError, "Bits Stored (1)", DEFAULT_LIMITS),
    "bits allocated 32 JPEG": (lambda t: _dcm(t, "c.dcm", "JPEG-LL.dcm", BitsAllocated=32),
                               UnreadableImageError, "cannot have 32 bits", DEFAULT_LIMITS),
    "2^31-1 frames": (lambda t: _dcm(t, "d.dcm", "emri_small.dcm", NumberOfFrames=2**31 - 1),
                      LimitExceededError, "max_frames", DEFAULT_LIMITS),
    "RLE 65535 squared": (lambda t: _dcm(t, "e.dcm", "MR_small_RLE.dcm", Rows=65535,
                                         Columns=65535),
                          LimitExceededError, "max_frame_pixels", DEFAULT_LIMITS),
    "JPEG-LS 65535 squared": (lambda t: _dcm(t, "f.dcm", "JPEGLSNearLossless_16.dcm",
                                             Rows=65535, Columns=65535),
                              LimitExceededError, "max_frame_pixels", DEFAULT_LIMITS),
    "deflate bomb": (_deflate_bomb, LimitExceededError, "max_decoded_bytes", SMALL),
    "bad transfer syntax": (lambda t: _dcm(t, "g.dcm", "CT_small.dcm",
                                           TransferSyntaxUID="1.2.3.4"),
                            UnreadableImageError, "not a standard one", DEFAULT_LIMITS),
    "no decoder exists": (lambda t: _dcm(t, "h.dcm", "MR_small_jp2klossless.dcm",
                                         TransferSyntaxUID="1.2.840.10008.1.2.4.100"),
                          MissingCodecError, "no installed decoder", DEFAULT_LIMITS),
    "RLE segments wrong": (lambda t: _dcm(t, "i.dcm", "MR_small_RLE.dcm", BitsAllocated=32),
                           UnreadableImageError, "Cannot decode the pixel data", DEFAULT_LIMITS),
    "nested sequences": (_nested, UnreadableImageError, "not a readable DICOM", DEFAULT_LIMITS),
    "NIfTI 4.5 GB over 64 bytes": (lambda t: _nifti(t, "big.nii", (1024, 1024, 2200), 64),
                                   LimitExceededError, "max_volume_bytes", DEFAULT_LIMITS),
    "NIfTI truncated": (lambda t: _nifti(t, "short.nii", (64, 64, 10), 4000),
                        UnreadableImageError, "is truncated", DEFAULT_LIMITS),
    "NRRD gzip bomb": (_nrrd_gzip_bomb, LimitExceededError, "max_volume_bytes", SMALL),
    "header points outside": (lambda t: _mhd(t, "/etc/passwd"), UnreadableImageError,
                              "outside its own folder", DEFAULT_LIMITS),
    "header points above": (lambda t: _mhd(t, "../../x.raw"), UnreadableImageError,
                            "outside its own folder", DEFAULT_LIMITS),
    "zlib TIFF 100k squared": (_tiff_bomb, LimitExceededError, "max_frame_pixels",
                               DEFAULT_LIMITS),
    "junk PNG": (lambda t: (t / "junk.png").write_bytes(b"junk" * 10) and t / "junk.png",
                 UnreadableImageError, "cannot read junk.png", DEFAULT_LIMITS),
    "4-D series": (lambda t: _volume(t, "t.nii", np.zeros((2, 3, 4, 5), np.int16)),
                   UnreadableImageError, "4-D images", DEFAULT_LIMITS),
    "RGB volume": (lambda t: _volume(t, "rgb.mha", np.zeros((3, 4, 5, 3), np.uint8), True),
                   UnreadableImageError, "values per voxel", DEFAULT_LIMITS),
}


@pytest.mark.parametrize("case", list(CASES))
def test_failure_class_has_its_plain_message(tmp_path: Path, case: str) -> None:
    make, error, phrase, limits = CASES[case]
    path = make(tmp_path)
    fmt = detect_format(path)
    assert fmt is not None
    with pytest.raises(error) as info:
        read_entries(path, fmt, SliceSelection(mode="all"), isolated=False, limits=limits)
    message = str(info.value)
    assert phrase in message, message
    assert message.endswith(".") and not re.search(r"\. [A-Z]", message), message
    assert not any(raw in message for raw in RAW_TEXT), message


@pytest.mark.parametrize("case", ["photometric vs samples", "RLE 65535 squared",
                                  "NIfTI truncated", "deflate bomb"])
def test_the_child_process_reports_the_same_message(tmp_path: Path, case: str) -> None:
    make, error, phrase, limits = CASES[case]
    path = make(tmp_path)
    with pytest.raises(error, match=phrase):
        read_entries(path, detect_format(path) or "", SliceSelection(), limits=limits)


def test_a_crashing_decoder_is_contained() -> None:
    from slicereview.engines.imaging import isolated

    with pytest.raises(ImagingError, match="stopped abnormally on x.dcm"):
        isolated._call("abort", ("x.dcm",), DEFAULT_LIMITS)
    image = _image("dicom")
    assert isolated.thumbnail(get_testdata_file("CT_small.dcm"), image, 16).shape == (16, 16)


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="stops the child with SIGSTOP")
def test_a_decoder_that_hangs_is_stopped(tmp_path: Path) -> None:
    """A child that never answers (stopped with SIGSTOP: it hangs for sure, however fast or
    busy the machine) is killed after ``decode_timeout_s``, and the file is remembered."""
    from slicereview.engines.imaging import isolated

    path = get_testdata_file("CT_small.dcm")
    isolated.forget_crashes()
    isolated.start(0)
    child = isolated._slots[0].child
    assert child is not None
    os.kill(child.process.pid, signal.SIGSTOP)
    try:
        with pytest.raises(ImagingError, match=r"longer than 0\.1 s \(decode_timeout_s\)"):
            isolated.thumbnail(path, _image("dicom"), 16, Limits(decode_timeout_s=0.1))
        child.process.join(10)
        assert not child.process.is_alive() and not isolated.running(0)  # stopped for good
        # Remembered: not tried again with the same time, nor in-process; a longer time may.
        assert isolated.known_crash(path, 0.1) and isolated.known_crash(path)
        assert isolated.known_crash(path, 5.0) is None
        # The next call starts a new child.
        assert isolated.thumbnail(path, _image("dicom"), 16).shape == (16, 16)
    finally:
        if child.process.is_alive():
            os.kill(child.process.pid, signal.SIGKILL)
        isolated.forget_crashes()


def _image(fmt: str, axis: int = -1, index: int = 0):
    from slicereview.model import Image

    return Image(0, 0, "", "", fmt, 0, axis, index)


@pytest.mark.parametrize("suffix", [".nrrd", ".mha"])
def test_rgb_file_with_one_slice_is_shown(tmp_path: Path, suffix: str) -> None:
    from slicereview.engines.imaging.loader import load_display

    arr = np.arange(1 * 4 * 5 * 3, dtype=np.uint8).reshape(1, 4, 5, 3)
    path = _volume(tmp_path, "rgb" + suffix, arr, vector=True)
    _, images = read_entries(path, detect_format(path) or "", SliceSelection(), isolated=False)
    display = load_display(path, _image(detect_format(path) or "", images[0].axis))
    assert display.data.shape == (4, 5, 3)
    np.testing.assert_array_equal(display.data, arr[0])


def test_free_text_window_names_and_rescale_types_are_not_stored(tmp_path: Path) -> None:
    path = _dcm(tmp_path, "w.dcm", "CT_small.dcm", WindowCenter=[40, 400],
                WindowWidth=[400, 2000], RescaleType="Dr Jones research",
                WindowCenterWidthExplanation=["Mrs Smith liver", "BONE"])
    info, images = read_entries(path, "dicom", SliceSelection(), isolated=False)
    text = repr(images[0].info) + repr(info)
    assert "Smith" not in text and "Jones" not in text
    names = [p["name"] for p in images[0].info["window_presets"]]
    assert names == ["window 1", "BONE"]
    assert images[0].info["value_unit"] == "HU"
