"""DICOM display rules on pydicom's bundled test files (real files, real decoders)."""

from __future__ import annotations

import numpy as np
import pytest
from pydicom import dcmread
from pydicom.data import get_testdata_file
from pydicom.pixels import apply_modality_lut, apply_voi_lut, get_decoder
from pydicom.uid import JPEG2000Lossless

from slicereview.engines.imaging import dicom
from slicereview.engines.imaging.dicom_meta import check_decoder, install_hint
from slicereview.engines.imaging.errors import MissingCodecError, UnreadableImageError


def _file(name: str) -> str:
    path = get_testdata_file(name)
    assert path is not None, name
    return path


def test_ct_rescale_is_applied_and_kept_integer():
    d = dicom.load(_file("CT_small.dcm"))
    raw = dcmread(_file("CT_small.dcm")).pixel_array
    assert d.data.dtype == np.int32
    np.testing.assert_array_equal(d.data, raw.astype(np.int32) - 1024)
    assert d.value_unit == "HU" and not d.invert
    assert d.spacing == pytest.approx((0.661468, 0.661468))
    assert d.spacing_source == "PixelSpacing"


def test_non_integer_rescale_gives_float32_matching_pydicom():
    ds = dcmread(_file("MR2_UNCR.dcm"))
    d = dicom.load(_file("MR2_UNCR.dcm"))
    assert d.data.dtype == np.float32
    np.testing.assert_allclose(d.data, apply_modality_lut(ds.pixel_array, ds), rtol=1e-5)


def test_modality_lut_sequence_matches_pydicom():
    ds = dcmread(_file("mlut_18.dcm"))
    expected = apply_modality_lut(ds.pixel_array, ds)
    d = dicom.load(_file("mlut_18.dcm"))
    assert d.data.dtype.kind in "iu"
    np.testing.assert_array_equal(d.data, expected)


def test_voi_lut_sequence_is_applied_to_the_data():
    ds = dcmread(_file("vlut_04.dcm"))
    expected = apply_voi_lut(apply_modality_lut(ds.pixel_array, ds), ds)
    d = dicom.load(_file("vlut_04.dcm"))
    np.testing.assert_array_equal(d.data, expected)
    assert not np.array_equal(d.data, ds.pixel_array)  # it really is non-linear work
    assert len(d.presets) == 1
    lut = np.asarray(ds.VOILUTSequence[0].LUTData)
    assert d.presets[0].levels() == (float(lut.min()), float(lut.max()))


def test_monochrome1_is_inverted_after_windowing_not_in_the_data():
    d = dicom.load(_file("RG1_UNCI.dcm"))
    assert d.invert is True
    np.testing.assert_array_equal(d.data, dcmread(_file("RG1_UNCI.dcm")).pixel_array)
    assert not dicom.load(_file("MR_small.dcm")).invert


def test_zero_pixel_spacing_falls_back_to_one():
    assert list(dcmread(_file("RG1_UNCI.dcm")).PixelSpacing) == [0, 0]
    d = dicom.load(_file("RG1_UNCI.dcm"))
    assert d.spacing == (1.0, 1.0) and d.spacing_source == "fallback 1.0"


def test_missing_spacing_falls_back_and_imager_spacing_is_used(tmp_path):
    ds = dcmread(_file("CT_small.dcm"))
    del ds.PixelSpacing
    ds.save_as(tmp_path / "none.dcm")
    d = dicom.load(tmp_path / "none.dcm")
    assert (d.spacing, d.spacing_source) == ((1.0, 1.0), "fallback 1.0")
    ds.ImagerPixelSpacing = [0.1, 0.07]
    ds.save_as(tmp_path / "imager.dcm")
    d = dicom.load(tmp_path / "imager.dcm")
    assert (d.spacing, d.spacing_source) == ((0.1, 0.07), "ImagerPixelSpacing")


def test_several_windows_become_named_presets(tmp_path):
    d = dicom.load(_file("bad_sequence.dcm"))  # a real file with two windows
    assert [(p.name, p.center, p.width) for p in d.presets] == [
        ("WINDOW1", 40.0, 350.0), ("WINDOW2", 450.0, 1500.0)]
    ds = dcmread(_file("CT_small.dcm"))
    ds.WindowCenter = [40, 400, -600]
    ds.WindowWidth = [400, 1800, 0]  # the zero-width window is dropped
    ds.save_as(tmp_path / "w.dcm")
    presets = dicom.load(tmp_path / "w.dcm").presets
    assert [(p.name, p.center, p.width) for p in presets] == [
        ("window 1", 40.0, 400.0), ("window 2", 400.0, 1800.0)]


def test_multi_frame_frames_and_functional_groups():
    raw = dcmread(_file("emri_small.dcm")).pixel_array
    for frame in (0, 3, 9):
        np.testing.assert_array_equal(dicom.load(_file("emri_small.dcm"), frame).data, raw[frame])
    with pytest.raises(UnreadableImageError, match="[Ff]rame 10"):
        dicom.load(_file("emri_small.dcm"), 10)
    # Enhanced CT: rescale and window live in the functional groups.
    ds = dcmread(_file("eCT_Supplemental.dcm"))
    item = ds.SharedFunctionalGroupsSequence[0].PixelValueTransformationSequence[0]
    d = dicom.load(_file("eCT_Supplemental.dcm"), 1)
    expected = ds.pixel_array[1].astype(np.int64) * int(item.RescaleSlope) + int(
        item.RescaleIntercept)
    np.testing.assert_array_equal(d.data, expected)
    assert d.value_unit == "HU" and d.presets and d.spacing_source == "PixelSpacing"


def test_colour_files_become_rgb_uint8():
    for name in ("OBXXXX1A.dcm", "US1_J2KR.dcm", "SC_rgb_16bit.dcm", "SC_rgb_rle.dcm"):
        d = dicom.load(_file(name))
        assert d.is_rgb and d.data.dtype == np.uint8 and d.data.shape[2] == 3, name
        assert d.data.max() > 0, name
    np.testing.assert_array_equal(dicom.load(_file("SC_rgb.dcm")).data,
                                  dcmread(_file("SC_rgb.dcm")).pixel_array)


@pytest.mark.parametrize("name", ["MR_small_jp2klossless.dcm", "MR_small_jpeg_ls_lossless.dcm",
                                  "MR_small_RLE.dcm", "MR_small_bigendian.dcm"])
def test_compressed_files_decode_like_the_uncompressed_one(name):
    np.testing.assert_array_equal(dicom.load(_file(name)).data,
                                  dicom.load(_file("MR_small.dcm")).data)


def test_missing_decoder_names_the_package(monkeypatch):
    decoder = get_decoder(JPEG2000Lossless)
    monkeypatch.setattr(decoder, "_available", {})
    with pytest.raises(MissingCodecError, match="pylibjpeg-openjpeg") as info:
        dicom.load(_file("MR_small_jp2klossless.dcm"))
    assert "slicereview[codecs]" in str(info.value)
    assert info.value.transfer_syntax == JPEG2000Lossless
    with pytest.raises(MissingCodecError, match="JPEG 2000"):
        dicom.import_entries(_file("MR_small_jp2klossless.dcm"))


def test_transfer_syntax_without_any_decoder(tmp_path):
    ds = dcmread(_file("MR_small_jp2klossless.dcm"))
    ds.file_meta.TransferSyntaxUID = "1.2.840.10008.1.2.4.100"  # MPEG2: pydicom has no decoder
    ds.save_as(tmp_path / "mpeg2.dcm", enforce_file_format=True)
    with pytest.raises(MissingCodecError, match="no installed decoder"):
        dicom.load(tmp_path / "mpeg2.dcm")
    check_decoder("1.2.840.10008.1.2.1")  # uncompressed always passes
    assert "pyjpegls" in install_hint("1.2.840.10008.1.2.4.80")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_truncated_and_corrupt_files_are_unreadable(tmp_path):
    with pytest.raises(UnreadableImageError, match="truncated"):
        dicom.import_entries(_file("MR_truncated.dcm"))
    with pytest.raises(UnreadableImageError, match="truncated"):  # header check, no decoder
        dicom.load(_file("MR_truncated.dcm"))
    bad = tmp_path / "bad.dcm"
    bad.write_bytes(b"\0" * 128 + b"DICM" + b"\x02\x00\x10\x00UI\xff\xff" + b"garbage" * 10)
    with pytest.raises(UnreadableImageError):
        dicom.import_entries(bad)
    with pytest.raises(UnreadableImageError, match="without image pixel data"):
        dicom.import_entries(_file("emri_small_jpeg_2k_lossless_too_short.dcm"))


def test_dicom_without_preamble_or_file_meta(tmp_path):
    from pydicom.filewriter import dcmwrite

    from slicereview.engines.imaging.formats import detect_format

    ds = dcmread(_file("CT_small.dcm"))
    ds.preamble = None
    del ds.file_meta
    path = tmp_path / "IM0001"  # no suffix, no DICM marker
    dcmwrite(path, ds, implicit_vr=True, little_endian=True, enforce_file_format=False)
    assert path.read_bytes()[128:132] != b"DICM"
    assert detect_format(path) == "dicom"
    _, [image] = dicom.import_entries(path)
    assert (image.rows, image.cols) == (128, 128)
    np.testing.assert_array_equal(dicom.load(path).data, dicom.load(_file("CT_small.dcm")).data)
    text = tmp_path / "notes"
    text.write_bytes(b"\x08\x00hello, not DICOM at all")
    assert detect_format(text) is None
