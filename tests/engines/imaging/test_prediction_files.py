"""Reading prediction files (engines/imaging/predictions): what the values mean in every
format, and one sentence for each file that is not a prediction — colour, NaN, negative or
too-large values, a DICOM that is no SEG, a SEG that names no source, a damaged SEG, a header
that claims more pixels than the limits allow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pydicom
import pytest
from PIL import Image as PILImage
from pydicom.data import get_testdata_file

from slicereview.engines.imaging.errors import ImagingError
from slicereview.engines.imaging.limits import Limits
from slicereview.engines.imaging.predictions import interpret, read, stem_of


@pytest.mark.parametrize(("values", "kind", "first"), [
    (np.array([[0, 1], [2, 0]], np.uint8), "labels", [0, 1, 2, 0]),
    (np.array([[0, 255], [255, 0]], np.uint8), "labels", [0, 1, 1, 0]),
    (np.array([[True, False]]), "labels", [1, 0]),
    (np.array([[0, 51]], np.uint8), "probability", [0.0, 0.2]),
    (np.array([[0, 13107]], np.uint16), "probability", [0.0, 0.2]),
    (np.array([[0.0, 0.25]], np.float32), "probability", [0.0, 0.25]),
    (np.array([[0.0, 1.0, 2.0]], np.float64), "labels", [0, 1, 2]),
    (np.array([[0.0, 127.5]], np.float32), "probability", [0.0, 0.5]),
])
def test_values_are_read_by_one_rule(values, kind, first) -> None:
    got_kind, got = interpret(values)
    assert got_kind == kind
    assert np.allclose(got.ravel(), first, atol=1e-6)


@pytest.mark.parametrize(("values", "said"), [
    (np.array([[0.0, np.nan]], np.float32), "NaN or infinite"),
    (np.array([[-1, 0]], np.int16), "values from -1 to 0"),
    (np.array([[0.0, 300.0]], np.float32), r"from 0 to 1 \(or 0 to 255\)"),
    (np.array([[0, 70000]], np.int32), "values from 0 to 70000"),
    (np.zeros((0, 3), np.uint8), "no pixels"),
])
def test_values_that_are_no_prediction_are_one_sentence(values, said) -> None:
    with pytest.raises(ValueError, match=said):
        interpret(values, "it")


def test_files_that_are_no_prediction(tmp_path: Path) -> None:
    import tifffile

    rgb = tmp_path / "colour.png"
    PILImage.fromarray(np.zeros((4, 4, 3), np.uint8)).save(rgb)
    with pytest.raises(ValueError, match="has colour channels"):
        read(rgb)
    tif = tmp_path / "nan.tif"
    tifffile.imwrite(tif, np.array([[0.5, np.nan]], np.float32))
    with pytest.raises(ValueError, match="NaN"):
        read(tif)
    with pytest.raises(ValueError, match="not a Segmentation"):
        read(get_testdata_file("CT_small.dcm"))
    text = tmp_path / "x.json"
    text.write_text("{}")
    with pytest.raises(ValueError, match="not a prediction file"):
        read(text)
    broken = tmp_path / "broken.dcm"
    broken.write_bytes(b"\0" * 128 + b"DICM" + b"\x02\x00\x10\x00UI\x40\x00" + b"1" * 10)
    with pytest.raises(ValueError):
        read(broken)
    assert stem_of("a/C000001_net.seg.dcm") == "C000001_net"


def _seg(tmp_path: Path) -> Path:
    """A real BINARY SEG of pydicom's CT test image (highdicom), one segment."""
    import highdicom as hd
    from pydicom.sr.codedict import codes

    source = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    mask = np.zeros((1, source.Rows, source.Columns, 1), bool)
    mask[0, 10:30, 20:40, 0] = True
    seg = hd.seg.Segmentation(
        source_images=[source], pixel_array=mask,
        segmentation_type=hd.seg.SegmentationTypeValues.BINARY,
        segment_descriptions=[hd.seg.SegmentDescription(
            segment_number=1, segment_label="finding",
            segmented_property_category=codes.SCT.MorphologicallyAbnormalStructure,
            segmented_property_type=codes.SCT.Lesion,
            algorithm_type=hd.seg.SegmentAlgorithmTypeValues.AUTOMATIC,
            algorithm_identification=hd.AlgorithmIdentificationSequence(
                name="x", version="1", family=codes.cid7162.ArtificialIntelligence))],
        series_instance_uid=hd.UID(), series_number=1, sop_instance_uid=hd.UID(),
        instance_number=1, manufacturer="t", manufacturer_model_name="t",
        software_versions="1", device_serial_number="1")
    path = tmp_path / "seg.dcm"
    seg.save_as(path)
    return path


def test_a_seg_is_read_per_source_and_checked(tmp_path: Path) -> None:
    path = _seg(tmp_path)
    [part] = read(path)
    source = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    assert (part.sop_uid, part.frame, part.kind) == (source.SOPInstanceUID, 0, "labels")
    assert int(part.values.sum()) == 400 and part.values[15, 25] == 1
    with pytest.raises(ImagingError, match="max_frame_pixels"):
        read(path, Limits(max_frame_pixels=1000))
    ds = pydicom.dcmread(path)
    del ds.PerFrameFunctionalGroupsSequence[0].DerivationImageSequence
    ds.save_as(tmp_path / "no-source.dcm")
    with pytest.raises(ValueError, match="names no source image"):
        read(tmp_path / "no-source.dcm")
