"""Reading a work package zip: the one way in for every path that reads a package — merging
it (``slicereview merge``, Owner ▸ Merge a work package…), opening it (``slicereview open
anna.zip``, File ▸ Open project…) and describing it (``slicereview info anna.zip``).

Rules held here:

* **limits before anything is inflated** — only the members the manifest names are ever
  read (``manifest.json``, ``project.srproj``, the images); together they may unpack to at
  most :data:`UNPACKED_FACTOR` times the zip's size plus :data:`UNPACKED_SLACK` (four times
  plus 256 MiB: images are stored as they are, only the project file is deflated), the
  manifest alone to at most :data:`MANIFEST_BYTES`. The sizes are those of the zip's central
  directory, and zipfile stops inflating a member at its stated size (and checks its CRC
  there), so a deflate bomb is refused from the directory alone: nothing is inflated, no
  memory or disk is taken, and the project is not touched;
* **plain words** — every refusal is a :class:`PackageError` whose one sentence says what
  happened to which file and what to do; zipfile's own text ("File is not a zip file", "Bad
  CRC-32 for file …") never reaches the user, nor does the name of a temporary folder.

Example
-------
>>> import tempfile, pathlib
>>> bad = pathlib.Path(tempfile.mkdtemp()) / "anna.zip"
>>> _ = bad.write_bytes(b"not a zip")
>>> try:
...     PackageZip(bad, "merged")
... except PackageError as exc:
...     print(exc)
anna.zip is not a zip file (or it was cut short), so nothing was merged; a work package is the .zip that slicereview wrote for an annotator: check that this is the right file, or ask for the package again.
"""  # noqa: E501

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from pathlib import Path
from typing import IO, Any

from slicereview.store import ProjectError

#: The manifest's format: what this slicereview writes, and the newest it reads. 2: the
#: images are shared (de-identified) copies named by case id, and the package's sources name
#: their SHA-256; a format-1 package (the originals) still merges.
FORMAT = 2
MANIFEST = "manifest.json"
PROJECT = "project.srproj"

#: What the members read may unpack to, at most: this many times the zip's size …
UNPACKED_FACTOR = 4
#: … plus this many bytes (a small package's deflated project file).
UNPACKED_SLACK = 256 << 20
#: The manifest's size at most (names and hashes: about 100 bytes an image).
MANIFEST_BYTES = 64 << 20

_AGAIN = "ask the annotator to send the package again"


class PackageError(ProjectError):
    """A package that cannot be read, opened or merged (another project, damaged, newer, too
    large unpacked, a hash mismatch); its message is one sentence for the user."""


def _mb(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MB" if n >= 1 << 20 else f"{n / 1024:,.0f} KB"


class PackageZip:
    """A package zip, checked: its members and sizes against the limits, its manifest read.

    ``done`` is what a refusal says was not done (``"merged"``, ``"unpacked"``, ``"read"``).
    Use it in a ``with`` block; every read raises :class:`PackageError` in plain words.
    """

    def __init__(self, file: str | Path, done: str) -> None:
        self.file = Path(file)
        self.done = done
        try:
            self._zip = zipfile.ZipFile(self.file)
        except BaseException as exc:
            raise self.refusal(exc) from None
        try:
            self.manifest = self._manifest()
            self.members = [MANIFEST, PROJECT, *self.manifest["images"]]
            self._check_sizes()
        except BaseException:
            self._zip.close()
            raise

    def __enter__(self) -> PackageZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()

    # -- the checks ----------------------------------------------------------------------
    def _info(self, name: str) -> zipfile.ZipInfo:
        try:
            return self._zip.getinfo(name)
        except KeyError:
            what = ("has no manifest.json, so it is not a slicereview work package" if
                    name == MANIFEST else f"lacks {name}, which its manifest names")
            raise self._refuse(what, _AGAIN if name != MANIFEST else
                               "check that this is the right file") from None

    def _manifest(self) -> dict[str, Any]:
        info = self._info(MANIFEST)
        if info.file_size > MANIFEST_BYTES:
            raise self._refuse(f"has a manifest of {_mb(info.file_size)}, far more than a "
                               "work package's", _AGAIN)
        raw = self._read_member(MANIFEST)
        try:
            manifest = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            manifest = None
        if isinstance(manifest, dict) and _newer(manifest.get("format", 0)):
            raise self._refuse("was written by a newer slicereview",
                               "update slicereview to read it")
        images = manifest.get("images") if isinstance(manifest, dict) else None
        if not (isinstance(images, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in images.items())
                and isinstance(manifest.get("annotator"), str)
                and isinstance(manifest.get("package_id"), str)
                and isinstance(manifest.get("format", 0), int)):
            raise self._refuse("has a manifest.json slicereview cannot read", _AGAIN)
        return manifest

    def _check_sizes(self) -> None:
        unpacked = sum(self._info(name).file_size for name in self.members)
        allowed = UNPACKED_FACTOR * self.file.stat().st_size + UNPACKED_SLACK
        if unpacked > allowed:
            raise self._refuse(
                f"would unpack to {_mb(unpacked)}, far more than a work package of its size "
                f"({_mb(self.file.stat().st_size)}) holds (at most {UNPACKED_FACTOR} times "
                f"its size plus {_mb(UNPACKED_SLACK)}): it is damaged or not a slicereview "
                "package", _AGAIN)

    # -- reading ---------------------------------------------------------------------------
    def _read_member(self, name: str) -> bytes:
        try:
            return self._zip.read(self._info(name))
        except PackageError:
            raise
        except BaseException as exc:
            raise self.refusal(exc, name) from None

    def open_member(self, name: str) -> IO[bytes]:
        """One member for streaming (``read`` may raise zipfile's errors: see
        :meth:`refusal`)."""
        try:
            return self._zip.open(self._info(name))
        except PackageError:
            raise
        except BaseException as exc:
            raise self.refusal(exc, name) from None

    def extract(self, name: str, folder: Path) -> Path:
        """Extract ``name`` (one of :attr:`members`) below ``folder``; zipfile drops "..",
        drive and root parts of a name."""
        try:
            return Path(self._zip.extract(self._info(name), folder))
        except PackageError:
            raise
        except BaseException as exc:
            raise self.refusal(exc, name, folder) from None

    def verify_images(self) -> None:
        """Read each image to its end once (zipfile checks its CRC there) and compare its
        SHA-256 with the manifest's."""
        for name, sha in self.manifest["images"].items():
            digest = hashlib.sha256()
            try:
                with self.open_member(name) as member:
                    while chunk := member.read(1 << 20):
                        digest.update(chunk)
            except PackageError:
                raise
            except BaseException as exc:
                raise self.refusal(exc, name) from None
            if digest.hexdigest() != sha:
                raise self._refuse(f"is damaged: {name} is not the image it was (its hash "
                                   "differs)", _AGAIN)

    # -- plain words -------------------------------------------------------------------------
    def _refuse(self, what: str, advice: str) -> PackageError:
        return PackageError(f"{self.file.name} {what}, so nothing was {self.done}; {advice}.")

    def refusal(self, exc: BaseException, member: str = "", folder: Path | None = None
                ) -> BaseException:
        """``exc`` from zipfile, zlib or the disk while reading ``member`` (into ``folder``)
        said in plain words; exits (``KeyboardInterrupt``, ``SystemExit``) pass unchanged."""
        if not isinstance(exc, Exception):
            return exc
        if isinstance(exc, PackageError):
            return exc
        text = str(exc)
        of = f" ({member})" if member else ""
        if isinstance(exc, FileNotFoundError) and folder is None:
            return PackageError(f"there is no file {self.file}: check its name and folder.")
        if isinstance(exc, IsADirectoryError) and folder is None:
            return PackageError(f"{self.file} is a folder; a work package is a .zip file "
                                "(an unpacked one opens from its project.srproj).")
        if isinstance(exc, OSError):
            reason = (exc.strerror or text).lower()
            what = "could not be read" if folder is None else "could not be unpacked"
            return self._refuse(f"{what}{of} ({reason})", "free some disk space, or check "
                                "the file's permissions, and try again")
        if isinstance(exc, zipfile.BadZipFile) and "not a zip file" in text:
            return self._refuse("is not a zip file (or it was cut short)",
                                "a work package is the .zip that slicereview wrote for an "
                                "annotator: check that this is the right file, or ask for "
                                "the package again")
        if isinstance(exc, RuntimeError) and "password" in text:
            return self._refuse(f"is protected by a password{of}",
                                "send it again zipped without a password")
        if isinstance(exc, NotImplementedError):
            return self._refuse(f"uses a kind of zip compression slicereview cannot read{of}",
                                "zip the folder again with ordinary (deflate) compression")
        if isinstance(exc, (zipfile.BadZipFile, zlib.error, EOFError, ValueError)):
            what = ("does not match its checksum" if "CRC" in text else "cannot be read")
            return self._refuse(f"is damaged: {member or 'its table of contents'} {what}",
                                _AGAIN)
        return exc


def _newer(format_: object) -> bool:
    return isinstance(format_, int) and format_ > FORMAT


def read_package(file: str | Path, folder: Path, done: str) -> tuple[dict[str, Any], Path]:
    """The manifest of the package ``file`` and its project file, extracted into ``folder``
    (a temporary folder of the caller's), after every check: the limits, every member's
    checksum and each image's hash. Raises :class:`PackageError`."""
    with PackageZip(file, done) as package:
        project = package.extract(PROJECT, folder)
        package.verify_images()
        return package.manifest, project


def unpacked_folder(path: Path) -> Path | None:
    """The unpacked package folder that ``path`` names -- the folder itself, or its
    ``project.srproj`` -- or ``None`` (``path`` is a zip, or anything else)."""
    folder = path if path.is_dir() else path.parent if path.name == PROJECT else None
    return folder if folder is not None and (folder / MANIFEST).is_file() else None


def zip_unpacked(folder: Path, out: Path) -> Path:
    """Pack an unpacked package ``folder`` (the annotator's work done in it) back into the zip
    ``out``, in the layout it was written in, so that it is read, checked and merged as the
    package is: the manifest, a consistent copy of the project file (SQLite's backup, so a
    window still open on it loses nothing), the images. Returns ``out``."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(out, "w") as zipped:
        copy = Path(tmp) / PROJECT
        try:
            with sqlite3.connect(folder / PROJECT) as src, sqlite3.connect(copy) as dst:
                src.backup(dst)
        except sqlite3.Error as exc:
            raise PackageError(f"{folder.name}/{PROJECT} cannot be read ({exc}), so nothing "
                               f"was merged; {_AGAIN}.") from exc
        zipped.write(copy, PROJECT, zipfile.ZIP_DEFLATED)
        for f in sorted(folder.rglob("*")):
            name = f.relative_to(folder).as_posix()
            if f.is_file() and not name.startswith(PROJECT):  # (and its -wal, -shm)
                zipped.write(f, name, zipfile.ZIP_STORED)
    return out
