"""A trained project model as bytes that hold data only: safe to load from a shared project.

A project on a team server is read by everyone who opens it. A Python pickle (what
``joblib.dump`` of a scikit-learn forest writes) runs code when it is loaded, so anyone who
can write one row could run code on every reviewer's machine. These bytes are never
unpickled and name no Python object; they are

====================  ===========================================================
``SRPMODEL``          8 bytes, the format's name
format                uint32, little-endian: :data:`FORMAT` (1)
header length         uint32: the length of the header
header                UTF-8 JSON: ``trees``, ``nodes``, ``n_features``, ``settings``,
                      ``training`` (what the model was trained on: keys and counts)
arrays                raw little-endian, in this order: offsets ``int64 (trees + 1)``,
                      left, right, feature ``int32 (nodes)``, threshold ``float64
                      (nodes)``, value ``float32 (nodes)``
digest                32 bytes: SHA-256 of everything before it
====================  ===========================================================

Loading (:func:`decode`) refuses, with one sentence, bytes that are too large, of another
format or version, whose digest does not match (damaged or changed), whose lengths disagree
or whose header is not the expected JSON; then the settings are checked
(:meth:`.Settings.from_dict`) and the arrays proven to be trees
(:func:`~.forest.check_forest`) before scikit-learn's compiled tree walks them. A changed blob
with a recomputed digest is still only data: the structural checks keep it from reading
outside its arrays.

>>> import numpy as np
>>> from slicereview.engines.learning.forest import Forest
>>> from slicereview.engines.learning.settings import Settings
>>> forest = Forest(1, np.array([0, 3]), np.array([1, -1, -1], np.int32),
...                 np.array([2, -1, -1], np.int32), np.zeros(3, np.int32),
...                 np.array([0.5, 0, 0]), np.array([0.5, 0, 1], np.float32))
>>> one = Settings(edges=False, texture=False, sigma_max=1.0)  # one feature
>>> blob = encode(one, forest, {"keys": [7]})
>>> settings, back, training = decode(blob)
>>> back.value.tolist(), training
([0.5, 0.0, 1.0], {'keys': [7]})
>>> decode(blob[:-1] + bytes([blob[-1] ^ 1]))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: The project model's bytes are damaged or were changed ...
"""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any

import numpy as np

from slicereview.engines.learning.forest import Forest, check_forest
from slicereview.engines.learning.settings import Settings

MAGIC = b"SRPMODEL"
FORMAT = 1
#: The largest blob, header and node count loaded.
MAX_BYTES = 1 << 30
MAX_HEADER = 1 << 20
MAX_NODES = 20_000_000
_PREFIX = struct.Struct("<8sII")
_DIGEST = 32
#: (name, dtype, length: "trees+1" or "nodes"), in the order they are stored.
_ARRAYS = (("offsets", "<i8", "trees+1"), ("left", "<i4", "nodes"), ("right", "<i4", "nodes"),
           ("feature", "<i4", "nodes"), ("threshold", "<f8", "nodes"),
           ("value", "<f4", "nodes"))


def encode(settings: Settings, forest: Forest, training: dict[str, Any]) -> bytes:
    """The bytes of a model (see the module text); ``training`` holds JSON values."""
    header = json.dumps({
        "trees": forest.tree_count, "nodes": int(len(forest.left)),
        "n_features": forest.n_features, "settings": settings.to_dict(),
        "training": training}, sort_keys=True).encode("utf-8")
    parts = [_PREFIX.pack(MAGIC, FORMAT, len(header)), header]
    for name, dtype, _ in _ARRAYS:
        parts.append(np.ascontiguousarray(getattr(forest, name), dtype=dtype).tobytes())
    body = b"".join(parts)
    return body + hashlib.sha256(body).digest()


def _refuse(why: str) -> ValueError:
    return ValueError(f"The project model's bytes {why}: train the model again.")


def decode(blob: bytes) -> tuple[Settings, Forest, dict[str, Any]]:
    """``(settings, forest, training)`` from :func:`encode`'s bytes, after every check of the
    module text; ``ValueError`` with one sentence otherwise."""
    if not isinstance(blob, bytes | bytearray | memoryview):
        raise _refuse("are not bytes")
    blob = bytes(blob)
    if len(blob) > MAX_BYTES:
        raise _refuse(f"are {len(blob)} bytes, more than the limit of {MAX_BYTES}")
    if len(blob) < _PREFIX.size + _DIGEST or blob[:8] != MAGIC:
        raise _refuse("are not a slicereview project model")
    magic, version, header_len = _PREFIX.unpack_from(blob)
    if version != FORMAT:
        raise _refuse(f"are of format {version}, which this slicereview does not read "
                      f"(it reads format {FORMAT})")
    body, digest = blob[:-_DIGEST], blob[-_DIGEST:]
    if hashlib.sha256(body).digest() != digest:
        raise _refuse("are damaged or were changed (their digest does not match)")
    if header_len > MAX_HEADER or _PREFIX.size + header_len > len(body):
        raise _refuse("have a header of the wrong length")
    start = _PREFIX.size + header_len
    header = _header(body[_PREFIX.size:start])
    trees, nodes = header["trees"], header["nodes"]
    lengths = {"trees+1": trees + 1, "nodes": nodes}
    expected = sum(np.dtype(d).itemsize * lengths[n] for _, d, n in _ARRAYS)
    if len(body) - start != expected:
        raise _refuse("have arrays of the wrong length for their header")
    arrays: dict[str, np.ndarray] = {}
    offset = start
    for name, dtype, length in _ARRAYS:
        count = lengths[length]
        arrays[name] = np.frombuffer(body, dtype=dtype, count=count, offset=offset).astype(
            np.dtype(dtype).newbyteorder("="))
        offset += count * np.dtype(dtype).itemsize
    try:
        settings = Settings.from_dict(header["settings"])
        forest = Forest(header["n_features"], arrays["offsets"], arrays["left"],
                        arrays["right"], arrays["feature"], arrays["threshold"],
                        arrays["value"])
        check_forest(forest)
    except (TypeError, ValueError) as exc:
        raise _refuse(f"do not hold a valid model ({str(exc).rstrip('.')})") from None
    if forest.n_features != settings.feature_count():
        raise _refuse("have a feature count that does not match their settings")
    return settings, forest, header["training"]


def _header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise _refuse("have a header that is not JSON") from None
    if not isinstance(header, dict) or set(header) != {"trees", "nodes", "n_features",
                                                       "settings", "training"}:
        raise _refuse("have a header without the expected fields")
    for key, high in (("trees", 500), ("nodes", MAX_NODES), ("n_features", 10_000)):
        value = header[key]
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise _refuse(f"have a header whose `{key}` is not from 1 to {high}")
    if not isinstance(header["settings"], dict) or not isinstance(header["training"], dict):
        raise _refuse("have a header whose settings or training are not JSON objects")
    return header
