"""Image files full of sentinels (``PHI_SENTINEL_…``) where patient data can hide, and a search
for them in whatever a test wants to prove clean (docs/privacy.md, the "done when" of the
de-identification). Used by the engine, app, CLI and server tests."""

from __future__ import annotations

import gzip
import io
import re
import struct
import zlib
from pathlib import Path

import numpy as np

MARK = b"PHI_SENTINEL"
#: UIDs of the sentinel DICOM file (the originals a de-identified copy must not hold).
STUDY_UID = "1.2.826.0.1.3680043.8.498.11"
SERIES_UID = "1.2.826.0.1.3680043.8.498.12"
SOP_UID = "1.2.826.0.1.3680043.8.498.13"
FRAME_UID = "1.2.826.0.1.3680043.8.498.14"
UIDS = (STUDY_UID, SERIES_UID, SOP_UID, FRAME_UID)
#: A date the file holds (dates cannot hold a text sentinel).
BIRTH_DATE = "19010203"

#: Every identifying text attribute of the PS3.15 Basic profile a test file commonly holds.
IDENTIFYING = (
    "PatientName", "PatientID", "OtherPatientIDs", "OtherPatientNames", "PatientAddress",
    "PatientMotherBirthName", "PatientTelephoneNumbers", "PatientComments",
    "AdditionalPatientHistory", "InstitutionName", "InstitutionAddress",
    "InstitutionalDepartmentName", "ReferringPhysicianName", "PerformingPhysicianName",
    "NameOfPhysiciansReadingStudy", "OperatorsName", "PhysiciansOfRecord",
    "RequestingPhysician", "StudyDescription", "SeriesDescription", "AccessionNumber",
    "StudyID", "StationName", "DeviceSerialNumber", "ProtocolName", "ImageComments",
    "Occupation", "MedicalRecordLocator", "PerformedProcedureStepDescription",
    "RequestedProcedureDescription", "DerivationDescription", "AcquisitionComments",
)


def dicom(path: Path, index: int = 0, *, modality: str = "CT", burned: str | None = None,
          rows: int = 32) -> Path:
    """A real CT slice (uint16 ``(rows, rows)``, spacing 0.5 × 0.6 mm, a window) whose every
    identifying attribute, a nested sequence and a private tag hold sentinels."""
    from pydicom import Dataset
    from pydicom.dataset import FileMetaDataset
    from pydicom.uid import CTImageStorage, ExplicitVRLittleEndian

    ds = Dataset()
    ds.file_meta = FileMetaDataset()
    ds.file_meta.MediaStorageSOPClassUID = CTImageStorage
    ds.file_meta.MediaStorageSOPInstanceUID = f"{SOP_UID}.{index}"
    ds.file_meta.TransferSyntaxUID = ExplicitVRLittleEndian
    ds.file_meta.SourceApplicationEntityTitle = "PHI_SENTINEL_AE"
    ds.SOPClassUID = CTImageStorage
    ds.SOPInstanceUID = f"{SOP_UID}.{index}"
    ds.StudyInstanceUID, ds.SeriesInstanceUID = STUDY_UID, SERIES_UID
    ds.FrameOfReferenceUID = FRAME_UID
    from pydicom.datadict import dictionary_VR, tag_for_keyword

    for k, keyword in enumerate(IDENTIFYING):
        limit = {"SH": 16, "LO": 64, "PN": 64}.get(dictionary_VR(tag_for_keyword(keyword)), 200)
        setattr(ds, keyword, f"PHI_SENTINEL_{k}_{keyword}"[:limit])
    ds.PatientBirthDate, ds.StudyDate, ds.StudyTime = BIRTH_DATE, "20200304", "101010"
    ds.ContentDate, ds.AcquisitionDateTime = "20200304", "20200304101010"
    ds.PatientSex, ds.PatientAge = "F", "077Y"
    ds.Modality = modality
    if burned:
        ds.BurnedInAnnotation = burned
    nested = Dataset()
    nested.RequestedProcedureDescription = "PHI_SENTINEL_NESTED_REQUEST"
    inner = Dataset()
    inner.PatientName = "PHI_SENTINEL_NESTED^DEEPER"
    nested.ReferencedPatientSequence = [inner]
    ds.RequestAttributesSequence = [nested]
    ds.add_new((0x0009, 0x0010), "LO", "PHI_SENTINEL_PRIVATE_CREATOR")
    ds.add_new((0x0009, 0x1001), "LO", "PHI_SENTINEL_PRIVATE_VALUE")
    ds.add_new((0x0009, 0x1002), "SQ", [_private_item()])
    ds.Rows = ds.Columns = rows
    ds.SamplesPerPixel, ds.PhotometricInterpretation = 1, "MONOCHROME2"
    ds.BitsAllocated, ds.BitsStored, ds.HighBit, ds.PixelRepresentation = 16, 12, 11, 0
    ds.PixelSpacing, ds.SliceThickness = [0.5, 0.6], 1.0
    ds.ImagePositionPatient, ds.ImageOrientationPatient = [0, 0, index], [1, 0, 0, 0, 1, 0]
    ds.WindowCenter, ds.WindowWidth, ds.RescaleIntercept, ds.RescaleSlope = 40, 400, -1024, 1
    rng = np.random.default_rng(index)
    ds.PixelData = rng.integers(0, 4096, (rows, rows), dtype=np.uint16).tobytes()
    ds.save_as(path, enforce_file_format=True)
    return path


def _private_item():
    from pydicom import Dataset

    item = Dataset()
    item.add_new((0x0011, 0x0010), "LO", "PHI_SENTINEL_PRIVATE_NESTED_CREATOR")
    item.add_new((0x0011, 0x1001), "LO", "PHI_SENTINEL_PRIVATE_NESTED")
    return item


def nifti(path: Path) -> Path:
    """A gzipped NIfTI-1 volume whose descrip, aux_file, db_name and intent_name, and an
    extension, hold sentinels."""
    import nibabel as nib

    image = nib.Nifti1Image(np.arange(4 * 5 * 3, dtype=np.int16).reshape(4, 5, 3), np.eye(4))
    header = image.header
    header["descrip"] = b"PHI_SENTINEL_NIFTI_DESCRIP"
    header["aux_file"] = b"PHI_SENTINEL_AUX"
    header["db_name"] = b"PHI_SENTINEL_DB"
    header["intent_name"] = b"PHI_SENTINEL_IN"
    header.extensions.append(nib.nifti1.Nifti1Extension(6, b"PHI_SENTINEL_EXTENSION_COMMENT"))
    nib.save(image, path)
    return path


def png(path: Path) -> Path:
    """A 16-bit grey PNG with sentinels in tEXt, zTXt and iTXt chunks."""
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "PHI_SENTINEL_PNG_TEXT")
    info.add_text("Comment", "PHI_SENTINEL_PNG_ZTXT", zip=True)
    info.add_itxt("Title", "PHI_SENTINEL_PNG_ITXT", lang="en", tkey="T")
    Image.fromarray(np.arange(64, dtype=np.uint8).reshape(8, 8)).save(path, pnginfo=info)
    return path


def tiff(path: Path) -> Path:
    """A TIFF with sentinels in ImageDescription, Artist, Software and Copyright."""
    import tifffile

    tifffile.imwrite(path, np.arange(64, dtype=np.uint16).reshape(8, 8),
                     description="PHI_SENTINEL_TIFF_DESCRIPTION", software="PHI_SENTINEL_SW",
                     extratags=[(315, "s", 0, "PHI_SENTINEL_TIFF_ARTIST", True),
                                (33432, "s", 0, "PHI_SENTINEL_COPYRIGHT", True)],
                     metadata=None)
    return path


def all_kinds(folder: Path) -> list[Path]:
    """One file of each kind, each named with a sentinel as well."""
    folder.mkdir(parents=True, exist_ok=True)
    return [dicom(folder / "PHI_SENTINEL_Smith_John_CT.dcm"),
            nifti(folder / "PHI_SENTINEL_Doe_Jane.nii.gz"),
            png(folder / "PHI_SENTINEL_Roe_R.png"), tiff(folder / "PHI_SENTINEL_Poe_E.tif")]


def hits(data: bytes) -> int:
    """How many sentinels (and original UIDs) ``data`` holds, looking into gzip and zlib
    streams it contains (a ``.nii.gz``, a PNG's compressed chunks, a zip's members) and in
    UTF-16 too."""
    found = _plain(data)
    for start in (m.start() for m in re.finditer(b"\x1f\x8b\x08", data)):
        try:
            found += _plain(gzip.GzipFile(fileobj=io.BytesIO(data[start:])).read())
        except (OSError, EOFError, zlib.error, struct.error):
            continue
    for start in (m.start() for m in re.finditer(b"x[\x01\x5e\x9c\xda]", data)):
        try:  # (zlib streams: a PNG's zTXt and iTXt, a deflated DICOM)
            found += _plain(zlib.decompressobj().decompress(data[start:start + (4 << 20)]))
        except zlib.error:
            continue
    return found


def _plain(data: bytes) -> int:
    lower = data.lower()
    count = lower.count(MARK.lower()) + data.count(MARK.decode().encode("utf-16-le"))
    return count + sum(data.count(uid.encode()) for uid in UIDS)


def zip_hits(path: Path) -> dict[str, int]:
    """``member: hits`` of every member of a zip (decompressed) that holds any."""
    import zipfile

    with zipfile.ZipFile(path) as zf:
        found = {name: hits(zf.read(name)) for name in zf.namelist()}
        found |= {f"(name) {n}": 1 for n in zf.namelist() if MARK.lower() in n.lower().encode()}
    return {k: v for k, v in found.items() if v}
