"""``project.dicomweb``: sources that live on a PACS (table ``dicomweb_sources``, format 5).

Such a source is a ``sources`` row (path: the instance's WADO-RS URL, its SHA-256 and size as
retrieved) plus its :class:`~slicereview.model.DicomwebRef`; its images are ordinary images.
It is never "missing" (:meth:`.Images.missing_sources` leaves it out): its pixels are
fetched again when needed.
"""

from __future__ import annotations

from collections.abc import Sequence

from slicereview.model import DicomwebRef, NewImage
from slicereview.store._base import Part, dumps, now_iso
from slicereview.store.database import Database
from slicereview.store.images import Images


class Dicomweb(Part):
    def __init__(self, db: Database, images: Images) -> None:
        super().__init__(db)
        self._images = images

    def add_source(self, ref: DicomwebRef, sha256: str, size_bytes: int,
                   images: Sequence[NewImage], info: dict | None = None) -> list[int]:
        """Add one PACS instance and its images in one transaction; returns the image ids."""
        with self.transaction():
            source_id = self.db.insert(
                "INSERT INTO sources (path, sha256, format, size_bytes, added_at, info) "
                "VALUES (?, ?, 'dicom', ?, ?, ?)",
                (ref.wado_url, sha256, size_bytes, now_iso(), dumps(info or {})))
            self.db.execute(
                "INSERT INTO dicomweb_sources (source_id, url, study_uid, series_uid, sop_uid) "
                "VALUES (?, ?, ?, ?, ?)",
                (source_id, ref.url, ref.study_uid, ref.series_uid, ref.sop_uid))
            return self._images.insert_images(source_id, images)

    def refs(self) -> dict[int, tuple[DicomwebRef, str]]:
        """``{source id: (reference, SHA-256 at import)}`` of every PACS source."""
        rows = self.db.execute(
            "SELECT d.source_id, d.url, d.study_uid, d.series_uid, d.sop_uid, s.sha256 "
            "FROM dicomweb_sources d JOIN sources s ON s.id = d.source_id ORDER BY d.source_id")
        return {r[0]: (DicomwebRef(r[1], r[2], r[3], r[4]), r[5]) for r in rows}

    def ref(self, source_id: int) -> DicomwebRef | None:
        row = self.db.execute(
            "SELECT url, study_uid, series_uid, sop_uid FROM dicomweb_sources "
            "WHERE source_id = ?", (source_id,)).fetchone()
        return None if row is None else DicomwebRef(*row)

    def sop_known(self, sop_uid: str) -> bool:
        """True when an instance with this SOP Instance UID came from a PACS already (from
        this server or another)."""
        return self.db.execute("SELECT 1 FROM dicomweb_sources WHERE sop_uid = ?",
                                 (sop_uid,)).fetchone() is not None

    def forget_sources(self) -> int:
        """Make every PACS source a plain file source (a work package carries the files
        themselves); returns how many there were."""
        with self.transaction():
            return self.db.execute("DELETE FROM dicomweb_sources").rowcount
