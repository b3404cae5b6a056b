"""Value types of the privacy setting and the shared (de-identified) copies
(docs/privacy.md)."""

from __future__ import annotations

from dataclasses import dataclass

from slicereview.model.base import StrEnum


@dataclass(frozen=True)
class SharedSource:
    """A source's *shared copy* (docs/privacy.md): ``header`` then the original's bytes
    ``keep`` (start, end) (``header`` ``None``: made again when needed); ``warnings`` for the
    owner (burned-in text); ``rules`` the version of the rules that made it."""

    source_id: int
    sha256: str
    name: str
    size_bytes: int
    header: bytes | None = None
    keep: tuple[int, int] | None = None
    warnings: tuple[str, ...] = ()
    rules: int = 1


class SharedImages(StrEnum):
    """What everyone but the owner gets of the images."""
    DEIDENTIFIED, ORIGINALS = "deidentified", "originals"


class SharedNames(StrEnum):
    """How images are named to everyone but the owner."""
    CASE_IDS, FILE_NAMES = "case_ids", "file_names"


@dataclass(frozen=True)
class PrivacySetting:
    """The privacy setting in force and who set it when (``changed_by`` "": the default)."""

    images: SharedImages = SharedImages.DEIDENTIFIED
    names: SharedNames = SharedNames.CASE_IDS
    changed_by: str = ""
    changed_at: str = ""
