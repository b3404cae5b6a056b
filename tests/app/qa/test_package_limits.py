"""Every path that reads a work package applies the same limits, from one place
(``app/qa/package_zip.py``), and says a refusal in plain words.

Real zip bombs made here: a package of the project whose image member is 300 MiB of zeros
deflated to about a megabyte (its manifest hash made to match, so that without the limit the
merge verified it and merged), one whose project file is such a member, and one whose
manifest is. ``merge`` used to inflate and merge them while ``open`` refused the same file.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from slicereview.app.qa.package_zip import MANIFEST_BYTES, UNPACKED_SLACK
from slicereview.app.qa.packages import PackageError, describe, merge, package, unpack
from slicereview.store import Project
from tests.app.qa.test_packages import _ZIPFILE_WORDS, make_project
from tests.postgres_cluster import fingerprint

#: The bomb's member: 300 MiB of zeros (more than UNPACKED_SLACK, so the limit is passed
#: whatever the zip's size).
BOMB_MIB = 300


def _rewrite(sent: Path, out: Path, member: str, manifest_tail: bytes = b"") -> Path:
    """``sent`` again, with ``member`` replaced by :data:`BOMB_MIB` MiB of zeros (the
    manifest's hash of it made right) and ``manifest_tail`` after the manifest's JSON."""
    zeros = bytes(1 << 20)
    digest = hashlib.sha256()
    for _ in range(BOMB_MIB):
        digest.update(zeros)
    with zipfile.ZipFile(sent) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED,
                                                       compresslevel=1) as dst:
        for info in src.infolist():
            if info.filename == "manifest.json":
                manifest = json.loads(src.read(info))
                if member in manifest["images"]:
                    manifest["images"][member] = digest.hexdigest()
                dst.writestr("manifest.json", json.dumps(manifest).encode() + manifest_tail)
            elif info.filename == member:
                with dst.open(member, "w", force_zip64=True) as bomb:
                    for _ in range(BOMB_MIB):
                        bomb.write(zeros)
            else:
                dst.writestr(info, src.read(info))
    return out


def _image_member(sent: Path) -> str:
    with zipfile.ZipFile(sent) as zf:
        return next(n for n in zf.namelist() if n.startswith("images/"))


@pytest.mark.slow  # 4-8 s: deflating 300 MiB
def test_an_image_bomb_is_refused_by_merge_open_and_info_nothing_inflated(location, tmp_path):
    path = make_project(tmp_path / "src", location("p.srproj"))
    (tmp_path / "share").mkdir()
    with Project.open(path) as p:
        sent = package(p, "ann", tmp_path / "ann.zip")
    bomb = _rewrite(sent, tmp_path / "share" / "ann.zip", _image_member(sent))
    assert bomb.stat().st_size < 4 << 20                       # a few MB …
    with zipfile.ZipFile(bomb) as zf:                          # … that unpack to 300 MB
        assert sum(i.file_size for i in zf.infolist()) > UNPACKED_SLACK + 4 * (4 << 20)
    before = fingerprint(path)
    tracemalloc.start()
    try:
        for read, done in ((lambda f: merge(Project.open(path), f), "merged"),
                           (unpack, "unpacked"), (describe, "read")):
            with pytest.raises(PackageError) as refused:
                read(bomb)
            text = str(refused.value)
            assert text.startswith("ann.zip would unpack to 3") and "far more than a work " \
                "package of its size" in text and f"so nothing was {done}; ask the " \
                "annotator to send the package again." in text, text
            assert "\n" not in text and not _ZIPFILE_WORDS.search(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20                  # nothing inflated into memory (300 MiB if it were)
    assert fingerprint(path) == before      # nothing merged
    assert sorted(p.name for p in bomb.parent.iterdir()) == ["ann.zip"]  # nothing unpacked


@pytest.mark.slow  # 5-10 s: deflating 300 MiB, three commands in a child process
def test_the_cli_refuses_a_project_file_bomb_within_a_small_file_size_limit(location, tmp_path):
    """The commands run with ``RLIMIT_FSIZE`` of 64 MiB: a reader that inflated the bomb to
    disk (merge extracted ``project.srproj`` into a temporary folder) would be stopped by the
    kernel instead of refusing it in one sentence."""
    import resource

    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        sent = package(p, "ann", tmp_path / "ann.zip")
    bomb = _rewrite(sent, tmp_path / "bomb.zip", "project.srproj")
    before = fingerprint(path)

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for command, done in ((["merge", str(path), str(bomb)], "merged"),
                          (["open", str(bomb)], "unpacked"), (["info", str(bomb)], "read")):
        run = subprocess.run([sys.executable, "-m", "slicereview", *command],
                             capture_output=True, text=True, env=env, timeout=600,
                             preexec_fn=small_files)
        assert run.returncode == 2, (command, run.returncode, run.stderr)
        [line] = run.stderr.splitlines()
        assert line.startswith("slicereview: error: bomb.zip would unpack to 3") and \
            f"so nothing was {done};" in line, line
    assert fingerprint(path) == before
    assert not (tmp_path / "bomb").exists() and not (tmp_path / "bomb.partial").exists()


def test_a_manifest_bomb_is_refused_before_it_is_read(location, tmp_path):
    path = make_project(tmp_path / "src", location("p.srproj"))
    with Project.open(path) as p:
        sent = package(p, "ann", tmp_path / "ann.zip")
    bomb = tmp_path / "manifest-bomb.zip"
    with zipfile.ZipFile(sent) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED,
                                                       compresslevel=1) as dst:
        for info in src.infolist():
            if info.filename == "manifest.json":
                with dst.open("manifest.json", "w") as out:
                    out.write(src.read(info))
                    block = b" " * (1 << 20)
                    for _ in range(MANIFEST_BYTES // len(block) + 1):  # (valid JSON: spaces)
                        out.write(block)
            else:
                dst.writestr(info, src.read(info))
    before = fingerprint(path)
    tracemalloc.start()
    try:
        for read in (lambda f: merge(Project.open(path), f), unpack, describe):
            with pytest.raises(PackageError, match=r"^manifest-bomb.zip has a manifest of "
                               r"6\d MB, far more than a work package's, so nothing was"):
                read(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20 and fingerprint(path) == before


NOT_PACKAGES = {
    "notes.zip": (b"these are my notes", "is not a zip file (or it was cut short), so nothing "
                  "was {done}; a work package is the .zip that slicereview wrote"),
    "empty.zip": (b"", "is not a zip file"),
    "photos.zip": ("zip:holiday.jpg", "has no manifest.json, so it is not a slicereview work "
                   "package, so nothing was {done}; check that this is the right file."),
    "cut.zip": ("cut", "is not a zip file (or it was cut short)"),
}


@pytest.mark.parametrize("name", sorted(NOT_PACKAGES))
def test_a_file_that_is_no_package_is_said_in_plain_words_by_every_reader(location, tmp_path,
                                                                          name):
    path = make_project(tmp_path / "src", location("p.srproj"))
    content, said = NOT_PACKAGES[name]
    file = tmp_path / name
    if content == "cut":
        with Project.open(path) as p:
            whole = package(p, "ann", tmp_path / "whole.zip").read_bytes()
        file.write_bytes(whole[:len(whole) // 2])
    elif isinstance(content, str):
        with zipfile.ZipFile(file, "w") as zf:
            zf.writestr(content.split(":")[1], b"\xff\xd8 a photo")
    else:
        file.write_bytes(content)
    before = fingerprint(path)
    for read, done in ((lambda f: merge(Project.open(path), f), "merged"),
                       (unpack, "unpacked"), (describe, "read")):
        with pytest.raises(PackageError) as refused:
            read(file)
        text = str(refused.value)
        assert text.startswith(f"{name} ") and said.format(done=done) in text, text
        assert not _ZIPFILE_WORDS.search(text) and "\n" not in text
    assert fingerprint(path) == before
    assert not (tmp_path / Path(name).stem).exists()
