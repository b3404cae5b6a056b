"""What one import did: :class:`ImportReport` (files and images added, duplicates, unreadable
files with the reason, warnings)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ImportReport:
    """What one :func:`import_paths` call did.

    ``duplicates`` are the paths skipped because a file with the same SHA-256 is already in the
    project (or earlier in the same import) — for a volume or multi-frame file, only when the
    chosen slices/frames are all in the project already (new ones are added to it);
    ``failed`` pairs a path with the reason it could not be imported; ``skipped`` pairs a
    name that is not a regular file (a named pipe, a device, a link loop, a missing path)
    with what it is -- it was never opened; ``warnings`` are
    import-wide remarks (e.g. this import made the project mix "FOR PROCESSING" and
    "FOR PRESENTATION" mammograms).
    """

    added_files: int = 0
    added_images: int = 0
    image_ids: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cancelled: bool = False

    def summary(self) -> str:
        """One line for the user, e.g. ``'3 files added (40 images); 1 duplicate skipped; ...'``."""
        def n(k: int, word: str) -> str:
            return f"{k} {word}{'' if k == 1 else 's'}"

        text = (f"{n(self.added_files, 'file')} added ({n(self.added_images, 'image')}); "
                f"{n(len(self.duplicates), 'duplicate')} skipped; {len(self.failed)} unreadable")
        if self.skipped:
            text += f"; {len(self.skipped)} not a file, skipped"
        if self.cancelled:
            text += "; cancelled"
        return text

    def details(self, limit: int = 20) -> list[str]:
        """Lines for a terminal or dialog: warnings, then each unreadable file with its reason
        and each duplicate (at most ``limit`` of each, then a count of the rest).

        Example
        -------
        >>> ImportReport(failed=[("a.txt", "not a recognised image format")]).details()
        ['unreadable: a.txt: not a recognised image format']
        """
        lines = [f"warning: {w}" for w in self.warnings]
        for title, items in (("unreadable", [f"{p}: {r}" for p, r in self.failed]),
                             ("not a file, skipped", [f"{p}: {r}" for p, r in self.skipped]),
                             ("duplicate, skipped", self.duplicates)):
            lines += [f"{title}: {item}" for item in items[:limit]]
            if len(items) > limit:
                lines.append(f"{title}: ... and {len(items) - limit} more")
        return lines
