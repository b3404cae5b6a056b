"""A trained model as bytes: it loads back to the same predictions; damaged, changed, foreign
and hostile bytes are refused with one sentence, and loading never runs code."""

from __future__ import annotations

import hashlib
import json
import pickle
import struct

import numpy as np
import pytest

from slicereview.engines.learning import Example, ProjectModel, persist, predict, train
from tests.learning_data import small_settings, synthetic


@pytest.fixture(scope="module")
def model() -> ProjectModel:
    image, labels = synthetic(0)
    return train([Example.of(image, labels, key=11)], small_settings())


def _resign(body: bytes) -> bytes:
    """Bytes with a recomputed digest: what a deliberate change would carry."""
    return body + hashlib.sha256(body).digest()


def _parts(blob: bytes) -> tuple[dict, int]:
    _, _, header_len = struct.unpack_from("<8sII", blob)
    return json.loads(blob[16:16 + header_len]), 16 + header_len


def test_round_trip_gives_the_same_predictions(model):
    blob = model.to_bytes()
    assert isinstance(blob, bytes) and blob.startswith(b"SRPMODEL")
    back = ProjectModel.from_bytes(blob)
    assert back.settings == model.settings and back.training == model.training
    assert back.training["keys"] == [11]
    image, _ = synthetic(1)
    np.testing.assert_array_equal(predict(back, image).probability,
                                  predict(model, image).probability)
    assert back.to_bytes() == blob  # the same bytes again


def _refused(blob: bytes, words: str) -> None:
    with pytest.raises(ValueError) as err:
        ProjectModel.from_bytes(blob)
    message = str(err.value)
    assert message.startswith("The project model's bytes") and words in message, message
    assert message.endswith("train the model again.") and "\n" not in message


def test_a_changed_byte_is_refused(model):
    blob = bytearray(model.to_bytes())
    for where in (20, len(blob) // 2, len(blob) - 40):
        changed = bytearray(blob)
        changed[where] ^= 0x01
        _refused(bytes(changed), "digest")
    _refused(bytes(blob[:-1]), "digest")
    _refused(bytes(blob[: len(blob) // 2]), "digest")


def test_changes_with_a_recomputed_digest_are_refused_by_the_checks(model):
    blob = model.to_bytes()
    header, start = _parts(blob)
    body = bytearray(blob[:-32])
    nodes = header["nodes"]
    left_at = start + 8 * (header["trees"] + 1)
    # A child pointing far outside its tree (what would read memory it does not own).
    changed = bytearray(body)
    struct.pack_into("<i", changed, left_at, 2**30)
    _refused(_resign(bytes(changed)), "points outside its tree")
    # A split on a feature the model does not have.
    feature_at = left_at + 8 * nodes
    changed = bytearray(body)
    struct.pack_into("<i", changed, feature_at, 10_000)
    _refused(_resign(bytes(changed)), "feature")
    # A header that lies about the sizes.
    lying = dict(header, nodes=nodes + 1)
    raw = json.dumps(lying, sort_keys=True).encode()
    rebuilt = struct.pack("<8sII", b"SRPMODEL", 1, len(raw)) + raw + bytes(body[start:])
    _refused(_resign(rebuilt), "wrong length")
    # Settings that do not match the forest.
    wrong = dict(header, settings=dict(header["settings"], sigma_max=16.0))
    raw = json.dumps(wrong, sort_keys=True).encode()
    rebuilt = struct.pack("<8sII", b"SRPMODEL", 1, len(raw)) + raw + bytes(body[start:])
    _refused(_resign(rebuilt), "feature count")
    # An unknown setting, and a header with other fields.
    for bad in (dict(header, settings={"trees": 3, "module": "os"}), dict(header, code="x")):
        raw = json.dumps(bad, sort_keys=True).encode()
        rebuilt = struct.pack("<8sII", b"SRPMODEL", 1, len(raw)) + raw + bytes(body[start:])
        _refused(_resign(rebuilt), "")


def test_other_formats_and_versions(model):
    blob = model.to_bytes()
    _refused(b"", "not a slicereview project model")
    _refused(b"PK\x03\x04" + bytes(100), "not a slicereview project model")
    future = bytearray(blob[:-32])
    struct.pack_into("<I", future, 8, 2)
    _refused(_resign(bytes(future)), "format 2")


def test_a_pickle_is_refused_and_never_run(tmp_path, monkeypatch):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    blob = pickle.dumps(Payload())
    _refused(blob, "not a slicereview project model")
    # Even dressed as ours, with a valid digest, its bytes are only read as data.
    dressed = struct.pack("<8sII", b"SRPMODEL", 1, len(blob)) + blob
    _refused(_resign(dressed), "not JSON")
    assert not marker.exists()


def test_too_large_is_refused_before_hashing(model, monkeypatch):
    monkeypatch.setattr(persist, "MAX_BYTES", 1000)
    _refused(model.to_bytes(), "more than the limit")
