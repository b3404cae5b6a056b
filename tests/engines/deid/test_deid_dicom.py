"""The DICOM de-identification (engines/deid/dicom.py): sentinels in every identifying
attribute, a nested sequence and a private tag are gone; display is unchanged; the pixel data
is the original's byte for byte; UIDs are remapped consistently."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file

from slicereview.engines.deid import NotShareableError, deidentify
from slicereview.engines.imaging.dicom_meta import frame_info, technical_info
from tests import privacy_sentinels as sentinels


def _copy(path, seed="seed"):
    raw = Path(path).read_bytes()
    copy = deidentify(raw, "dicom", seed)
    return raw, copy, copy.bytes_from(raw)


def test_no_sentinel_survives_and_display_is_unchanged(tmp_path):
    path = sentinels.dicom(tmp_path / "a.dcm")
    raw, copy, data = _copy(path)
    assert sentinels.hits(raw) > 40  # (the file really holds them)
    assert sentinels.hits(data) == 0
    assert sentinels.BIRTH_DATE.encode() not in data and b"20200304" not in data
    before, after = pydicom.dcmread(path), pydicom.dcmread(io.BytesIO(data))
    assert after.PixelData == before.PixelData
    assert np.array_equal(after.pixel_array, before.pixel_array)
    assert frame_info(after, 0) == frame_info(before, 0)  # spacing, windows, rescale
    assert technical_info(after) == technical_info(before)
    assert after.PatientIdentityRemoved == "YES"
    assert after.DeidentificationMethodCodeSequence[0].CodeValue == "113100"
    assert str(after.PatientName) and str(after.PatientName) != str(before.PatientName)
    assert after.PatientBirthDate == "" and after.StudyDate == ""
    assert not any(tag.is_private for tag in list(after.keys()))
    # the copy is the new header, then the original's pixel data element byte for byte
    start, end = copy.keep
    assert data[len(copy.header):] == raw[start:end] and len(data) == copy.size


def test_uids_are_remapped_consistently_and_the_map_says_how(tmp_path):
    a = pydicom.dcmread(io.BytesIO(_copy(sentinels.dicom(tmp_path / "a.dcm", 0))[2]))
    b_raw, b_copy, b_data = _copy(sentinels.dicom(tmp_path / "b.dcm", 1))
    b = pydicom.dcmread(io.BytesIO(b_data))
    # one study and series: the same replacements in both files; each instance its own
    assert (a.StudyInstanceUID, a.SeriesInstanceUID, a.FrameOfReferenceUID) == (
        b.StudyInstanceUID, b.SeriesInstanceUID, b.FrameOfReferenceUID)
    assert a.SOPInstanceUID != b.SOPInstanceUID
    assert b.file_meta.MediaStorageSOPInstanceUID == b.SOPInstanceUID
    assert b_copy.uids[sentinels.STUDY_UID] == b.StudyInstanceUID
    assert b_copy.uids[f"{sentinels.SOP_UID}.1"] == b.SOPInstanceUID
    assert b.SOPClassUID == pydicom.uid.CTImageStorage  # (class UIDs stay)
    other = pydicom.dcmread(io.BytesIO(_copy(tmp_path / "b.dcm", seed="another")[2]))
    assert other.StudyInstanceUID != b.StudyInstanceUID  # (another project, other UIDs)


@pytest.mark.parametrize("name", ["JPEG2000.dcm", "MR_small_bigendian.dcm", "image_dfl.dcm",
                                  "emri_small.dcm", "SC_rgb_rle.dcm", "MR_small_implicit.dcm"])
def test_every_transfer_syntax_keeps_its_pixels(name):
    path = get_testdata_file(name)
    raw, copy, data = _copy(path)
    before, after = pydicom.dcmread(path), pydicom.dcmread(io.BytesIO(data))
    assert after.file_meta.TransferSyntaxUID == before.file_meta.TransferSyntaxUID
    assert after.PixelData == before.PixelData
    assert "PatientID" in after and after.PatientID != before.get("PatientID", "x")
    assert str(before.get("SOPInstanceUID")) not in data.decode("latin-1")


def test_burned_in_text_is_flagged_never_cleaned(tmp_path):
    plain = _copy(sentinels.dicom(tmp_path / "a.dcm"))[1]
    burned = _copy(sentinels.dicom(tmp_path / "b.dcm", burned="YES"))[1]
    us = _copy(sentinels.dicom(tmp_path / "c.dcm", modality="US"))[1]
    assert plain.warnings == ()
    assert "BurnedInAnnotation is YES" in burned.warnings[0]
    assert "ultrasound" in us.warnings[0]
    assert "secondary capture" in " ".join(_copy(get_testdata_file("SC_rgb.dcm"))[1].warnings)


def test_a_damaged_header_is_one_sentence():
    with pytest.raises(NotShareableError, match="cannot be read|cut short|no SOP class"):
        deidentify(b"\0" * 128 + b"DICM" + b"\x02\x00\x10\x00UI\xff\x00", "dicom", "s")
    raw = Path(get_testdata_file("CT_small.dcm")).read_bytes()
    with pytest.raises(NotShareableError, match="cut short"):
        deidentify(raw[:-500], "dicom", "s")


@pytest.mark.parametrize("name", ["CT_small.dcm", "MR_small.dcm", "emri_small.dcm",
                                  "JPEG2000.dcm", "MR_small_implicit.dcm", "rtdose.dcm"])
def test_the_header_copied_as_bytes_is_what_pydicom_would_write(name):
    """The fast path (kept elements copied as the original's bytes) gives the same data set
    as pydicom writing the whole reduced data set (the path of deflated files)."""
    from slicereview.engines.deid import dicom

    path = get_testdata_file(name)
    raw = Path(path).read_bytes()
    fast = pydicom.dcmread(io.BytesIO(deidentify(raw, "dicom", "s").bytes_from(raw)))
    ds = pydicom.dcmread(path, force=True)
    out = dicom._reduce(ds, with_pixels=True)
    dicom._replace(out, ds, "s")
    assert sorted(fast.keys()) == sorted(out.keys())
    for tag in list(out.keys()):
        assert fast[tag].value == out[tag].value, tag
