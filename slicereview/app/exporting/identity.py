"""The UIDs of the DICOM objects slicereview writes, derived from what they hold. Rules held
here:

* **the same content gives the same UIDs** -- a SEG's SOP Instance UID is derived from the
  project, the annotation (or, for a consensus, the image and method), its round, the source
  instance and a digest of the masks; an SR's from the image, the phase, round, source and the
  review it reports; a series' from the study, the author and the series description. So an
  export made twice (a SEG export, then ``--format dicom-sr --masks``) writes the same objects
  again, and a PACS that holds them is not sent them twice
  (:meth:`slicereview.engines.dicomweb.client.Server.store`); changed content gets new UIDs.
* **a de-identified export has UIDs of its own** -- ``deidentified`` is part of every name, so
  an object never has one UID with the patient's data and another without.

A UID is ``2.25.`` and the integer of a name-based UUID (version 5, [DICOM-PS3.5, Annex B.2]).

Example
-------
>>> derived_uid("p1", "seg", 7, 1) == derived_uid("p1", "seg", 7, 1)
True
>>> derived_uid("p1", "seg", 7, 1) != derived_uid("p1", "seg", 7, 2)
True
>>> derived_uid("p1", "seg", 7, 1).startswith("2.25.")
True
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable

import numpy as np


def derived_uid(*parts: object) -> str:
    """A UID derived from ``parts`` (their ``str``, in order)."""
    name = "\x1f".join(str(p) for p in parts)
    return f"2.25.{uuid.uuid5(uuid.NAMESPACE_OID, name).int}"


def digest(arrays: Iterable[np.ndarray] = (), text: str = "") -> str:
    """The SHA-256 of ``arrays`` (dtype, shape and bytes, in order) and ``text``."""
    hashed = hashlib.sha256(text.encode())
    for array in arrays:
        hashed.update(f"{array.dtype}{array.shape}".encode())
        hashed.update(np.ascontiguousarray(array).tobytes())
    return hashed.hexdigest()
